"""PatchCore: a memory bank of mid-level patch features of OK images, thinned by greedy coreset selection.

An image's score is the largest distance of one of its patches to the nearest bank patch; the per-patch distances
form the heat-map.

The bank also holds the patches of the OK images' flipped and turned views (`BANK_VIEWS`, the 8 symmetries of the
square), kept at a 5 % coreset (trainer.SETTINGS): a few dozen OK images under-cover the normal variation of parts
that lie any way round. Chosen on selection sets that hold no test image (bench/images_patchcore_selection.py,
bench/results/images-patchcore-selection.json): a small gain over the plain bank (selection AUROC 0.85 / 0.90 vs
0.85 / 0.89), far from the issue's goal of 0.95.

The features come from EfficientNet-Lite2 by default (trainer.SETTINGS["patchcore_backbone"]; blocks 6 + 14, stride 8,
48 + 120 channels): on the same selection sets it beat Lite0 (criterion 0.892 vs 0.877 at 128 px) and Lite1 (0.826),
declared in advance in bench/images_patchcore_lite_candidates.json (results: images-patchcore-lite-selection.json).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .backbone import PATCH_BLOCKS, patch_features


def embed(backbone: nn.Module, x: torch.Tensor, blocks: tuple[int, ...] = PATCH_BLOCKS) -> torch.Tensor:
    """(N, C, h, w) patch embeddings with 3x3 neighbourhood aggregation (local context, as in PatchCore)."""
    with torch.no_grad():
        f = patch_features(backbone, x, blocks)
        return F.avg_pool2d(f, 3, stride=1, padding=1)


# Views of each OK image whose patches enter the bank: identity, mirrored, flipped, turned 180 degrees, quarter turns
# and the two transposes (the images are squashed to a square, so every view has the same size).
BANK_VIEWS = ("id", "h", "v", "hv", "r90", "r270", "t", "tv")


def view(x: torch.Tensor, name: str) -> torch.Tensor:
    """One view of a batch (N, C, H, W): id, h (mirror), v (flip), hv (180 degrees), r90 / r270 (quarter turns
    anticlockwise / clockwise), t / tv (transposed over the main / the other diagonal)."""
    if name == "id":
        return x
    if name == "h":
        return torch.flip(x, dims=(3,))
    if name == "v":
        return torch.flip(x, dims=(2,))
    if name == "hv":
        return torch.flip(x, dims=(2, 3))
    if name in ("r90", "r270"):
        return torch.rot90(x, 1 if name == "r90" else 3, dims=(2, 3))
    if name == "t":
        return x.transpose(2, 3)
    if name == "tv":
        return torch.flip(x.transpose(2, 3), dims=(2, 3))
    raise ValueError(f"unknown view {name}")


def coreset(features: torch.Tensor, n: int, seed: int = 0, proj_dim: int = 64) -> torch.Tensor:
    """Greedy k-center selection of `n` rows (on a random projection for speed); returns their indices."""
    m = features.shape[0]
    if n >= m:
        return torch.arange(m)
    g = torch.Generator().manual_seed(seed)
    if features.shape[1] > proj_dim:
        proj = torch.randn(features.shape[1], proj_dim, generator=g) / proj_dim**0.5
        z = features @ proj
    else:
        z = features
    start = int(torch.randint(m, (1,), generator=g))
    chosen = [start]
    # Squared distances |z|^2 + |zi|^2 - 2 z.zi: one matrix-vector product per step (the bank of flipped views is 4x
    # larger). Thousands of small memory-bound steps: on one thread, since threads that wait for each other made a step
    # ~9x slower on a shared 2-core machine (74 ms vs 8 ms on 73,728 x 64).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        sq = (z * z).sum(1)
        dist = sq + sq[start] - 2 * (z @ z[start])
        for _ in range(n - 1):
            i = int(torch.argmax(dist))
            chosen.append(i)
            torch.minimum(dist, sq + sq[i] - 2 * (z @ z[i]), out=dist)
    finally:
        torch.set_num_threads(threads)
    return torch.tensor(chosen)


def nearest_distance(patches: torch.Tensor, bank: torch.Tensor, chunk: int = 4096) -> torch.Tensor:
    out = []
    for i in range(0, patches.shape[0], chunk):
        out.append(torch.cdist(patches[i : i + chunk], bank).min(dim=1).values)
    return torch.cat(out)


def score_maps(backbone: nn.Module, bank: torch.Tensor, x: torch.Tensor, blocks: tuple[int, ...] = PATCH_BLOCKS) -> torch.Tensor:
    """(N, h, w) patch anomaly maps."""
    f = embed(backbone, x, blocks)
    n, c, h, w = f.shape
    d = nearest_distance(f.permute(0, 2, 3, 1).reshape(-1, c), bank)
    return d.reshape(n, h, w)
