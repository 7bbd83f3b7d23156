"""PatchCore: a memory bank of mid-level patch features of OK images, thinned by greedy coreset selection.

An image's score is the largest distance of one of its patches to the nearest bank patch; the per-patch distances
form the heat-map.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .backbone import patch_features


def embed(backbone: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """(N, C, h, w) patch embeddings with 3x3 neighbourhood aggregation (local context, as in PatchCore)."""
    with torch.no_grad():
        f = patch_features(backbone, x)
        return F.avg_pool2d(f, 3, stride=1, padding=1)


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
    dist = torch.cdist(z, z[start : start + 1]).squeeze(1)
    for _ in range(n - 1):
        i = int(torch.argmax(dist))
        chosen.append(i)
        dist = torch.minimum(dist, torch.cdist(z, z[i : i + 1]).squeeze(1))
    return torch.tensor(chosen)


def nearest_distance(patches: torch.Tensor, bank: torch.Tensor, chunk: int = 4096) -> torch.Tensor:
    out = []
    for i in range(0, patches.shape[0], chunk):
        out.append(torch.cdist(patches[i : i + chunk], bank).min(dim=1).values)
    return torch.cat(out)


def score_maps(backbone: nn.Module, bank: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """(N, h, w) patch anomaly maps."""
    f = embed(backbone, x)
    n, c, h, w = f.shape
    d = nearest_distance(f.permute(0, 2, 3, 1).reshape(-1, c), bank)
    return d.reshape(n, h, w)
