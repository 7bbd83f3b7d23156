"""A trained image model as one object: save/load (torch.load weights_only) and `predict` on image files.

`predict` is the one implementation used by evaluation after training, by the prediction task and the benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch
from PIL import Image
from torch import nn

from ..task import EngineError
from . import patchcore
from .backbone import BACKBONE_PATCH_BLOCKS, CompactCNN, FineTuned, load_backbone
from .data import open_rgb, to_tensor
from .heatmap import overlay_image

ALGORITHMS = ("patchcore", "finetune", "compact_cnn")


@dataclass
class ImageModel:
    algorithm: str
    kind: str  # analysis | classification
    classes: list[str]
    image_size: int
    threshold: float | None = None  # analysis: score at or above → NG
    net: nn.Module | None = None
    bank: torch.Tensor | None = None
    score_range: tuple[float, float] = (0.0, 1.0)  # heat-map colour scale
    extra: dict = field(default_factory=dict)

    # ---- persistence -----------------------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        blob = {
            "algorithm": self.algorithm,
            "kind": self.kind,
            "classes": list(self.classes),
            "image_size": int(self.image_size),
            "threshold": self.threshold,
            "score_range": list(self.score_range),
            "extra": self.extra,
        }
        if self.algorithm == "patchcore":
            blob["bank"] = self.bank
        else:
            blob["state_dict"] = self.net.state_dict()
        torch.save(blob, path)

    @classmethod
    def load(cls, path: str | Path, weights: str | None = None) -> ImageModel:
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:  # noqa: BLE001
            raise EngineError("model_unreadable", reason=str(e)[:200]) from e
        m = cls(
            blob["algorithm"],
            blob["kind"],
            blob["classes"],
            blob["image_size"],
            blob.get("threshold"),
            score_range=tuple(blob.get("score_range", (0.0, 1.0))),
            extra=blob.get("extra", {}),
        )
        if m.algorithm == "patchcore":
            m.bank = blob["bank"]
            m.net = load_backbone(weights, name=m.backbone).eval()
        else:
            # models saved before the compact CNN's standardised input and mean+max head have no "pooling" entry
            legacy = {"pooling": m.extra.get("pooling", "avg"), "standardise": m.extra.get("standardise", False)}
            m.net = build_net(m.algorithm, len(m.classes), weights, pretrained=False, width=m.extra.get("width", 32), **legacy)
            m.net.load_state_dict(blob["state_dict"])
            m.net.eval()
        return m

    @property
    def backbone(self) -> str:
        """PatchCore's backbone (backbone.BACKBONES); models saved before the choice existed used lite0."""
        return str(self.extra.get("backbone", "lite0"))

    # ---- inference -------------------------------------------------------------------------------------------
    def scores(self, x: torch.Tensor, want_maps: bool = False):
        """(scores, probabilities | None, maps | None). The score is 'how NG' for analysis, the top probability otherwise."""
        if self.algorithm == "patchcore":
            maps = patchcore.score_maps(self.net, self.bank, x, BACKBONE_PATCH_BLOCKS[self.backbone])
            s = maps.flatten(1).max(dim=1).values
            return s, None, maps if want_maps else None
        if want_maps:
            probs, maps = grad_cam(self.net, x)
        else:
            with torch.no_grad():
                probs = torch.softmax(self.net(x), dim=1)
            maps = None
        if self.kind == "analysis":
            s = probs[:, self.classes.index("NG")] if "NG" in self.classes else 1 - probs[:, 0]
        else:
            s = probs.max(dim=1).values
        return s, probs, maps

    def heat_scale(self) -> tuple[float, float]:
        """PatchCore's heat-map colour scale. No colour up to a typical OK image's score (the median on validation);
        a patch at the threshold is half-way (green), and red at twice the threshold's margin, as anomalib puts the
        threshold at 0.5 of its scale. Scaled to the highest validation score instead, one outlier made every patch
        of an image just over the threshold nearly transparent. Without a threshold above the median, that range."""
        lo, hi = self.score_range
        t = self.threshold
        return (lo, lo + 2 * (t - lo)) if t is not None and t > lo else (lo, hi)

    def row(self, image: Image.Image, want_map: bool = False) -> tuple[dict, torch.Tensor | None]:
        """One image's answer (score, predicted class, probabilities) and its map when asked. Each image is scored
        alone: batched with others, PatchCore's distances came out a few 1e-6 apart depending on how many patches
        shared the matrix product, so an image's score would have depended on its neighbours. Alone, the prediction
        job, the evaluation after training and a hosted API (platform/images.py) give the same image the same score."""
        s, probs, maps = self.scores(to_tensor(image, self.image_size)[None], want_maps=want_map)
        score = float(s[0])
        row: dict = {"score": score}
        if self.kind == "analysis":
            row["predicted"] = "NG" if self.threshold is not None and score >= self.threshold else "OK"
        else:
            top = int(torch.argmax(probs[0]))
            row["predicted"] = self.classes[top]
            row["probabilities"] = {c: round(float(probs[0, q]), 6) for q, c in enumerate(self.classes)}
        return row, (maps[0] if maps is not None else None)

    def heatmap(self, image: Image.Image, amap: torch.Tensor) -> Image.Image:
        """The heat-map overlay of one image: its map over the image at max(image_size, 160) px."""
        lo, hi = self.heat_scale() if self.algorithm == "patchcore" else (0.0, 1.0)
        side = max(self.image_size, 160)
        return overlay_image(image.resize((side, side), Image.BILINEAR), amap, lo, hi)

    def predict(
        self,
        paths: list[str],
        batch_size: int = 8,
        heatmap_dir: Path | None = None,
        names: list[str] | None = None,
        progress=None,
        check=None,
        unreadable: list[int] | None = None,
    ) -> list[dict]:
        """A row per image. Given `unreadable` (a list), an image that cannot be read is left out and its index
        appended there, so one bad file costs only its own result; without it, the first such image fails the call."""
        rows: list[dict] = []
        for i in range(0, len(paths), batch_size):
            if check:
                check()
            for k in range(i, min(i + batch_size, len(paths))):
                try:
                    image = open_rgb(paths[k])
                except EngineError:
                    if unreadable is None:
                        raise
                    unreadable.append(k)
                    continue
                row, amap = self.row(image, want_map=heatmap_dir is not None)
                row = {"index": k, **row}
                if heatmap_dir is not None and amap is not None:
                    name = (names[k] if names else f"{k:06d}") + ".png"
                    path = heatmap_dir / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self.heatmap(image, amap).save(path)
                    row["heatmap"] = name
                rows.append(row)
            if progress:
                progress(min(1.0, (i + batch_size) / len(paths)))
        return rows


def build_net(
    algorithm: str, n_classes: int, weights: str | None = None, pretrained: bool = True, width: int = 32, pooling: str = "avgmax", standardise: bool = True
) -> nn.Module:
    if algorithm == "finetune":
        return FineTuned(n_classes, weights, pretrained)
    if algorithm == "compact_cnn":
        return CompactCNN(n_classes, width, pooling, standardise)
    raise EngineError("unknown_algorithm", algorithm=algorithm)


def grad_cam(net: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Probabilities and Grad-CAM maps (N, h, w), normalised to [0, 1] per image, for the predicted class."""
    acts: list[torch.Tensor] = []
    layer = net.last_conv()
    handle = layer.register_forward_hook(lambda _m, _i, out: acts.append(out))
    try:
        net.eval()
        x = x.clone().requires_grad_(False)
        with torch.enable_grad():
            logits = net(x)
            a = acts[0]
            a.retain_grad()
            top = logits.argmax(dim=1)
            logits.gather(1, top[:, None]).sum().backward()
            weights = a.grad.mean(dim=(2, 3), keepdim=True)
            cam = torch.relu((weights * a).sum(dim=1)).detach()
        net.zero_grad(set_to_none=True)
    finally:
        handle.remove()
    flat = cam.flatten(1)
    lo, hi = flat.min(dim=1).values[:, None, None], flat.max(dim=1).values[:, None, None]
    cam = (cam - lo) / (hi - lo).clamp_min(1e-8)
    return torch.softmax(logits.detach(), dim=1), cam
