"""Heat-maps as PNG overlays (a small built-in colour map; no matplotlib)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch.nn import functional as F


def _colormap(v: np.ndarray) -> np.ndarray:
    """Blue → cyan → yellow → red for v in [0, 1]."""
    r = np.clip(1.5 - np.abs(4 * v - 3), 0, 1)
    g = np.clip(1.5 - np.abs(4 * v - 2), 0, 1)
    b = np.clip(1.5 - np.abs(4 * v - 1), 0, 1)
    return (np.stack([r, g, b], axis=-1) * 255).astype(np.uint8)


def overlay(image: Image.Image, amap: torch.Tensor, lo: float, hi: float, path: Path) -> None:
    """Writes `image` with `amap` (h, w) upsampled and scaled from [lo, hi] to [0, 1] blended over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    overlay_image(image, amap, lo, hi).save(path)


def overlay_image(image: Image.Image, amap: torch.Tensor, lo: float, hi: float) -> Image.Image:
    """`image` with `amap` (h, w) upsampled and scaled from [lo, hi] to [0, 1] blended over it."""
    w, h = image.size
    m = F.interpolate(amap[None, None].float(), size=(h, w), mode="bilinear", align_corners=False)[0, 0].numpy()
    v = np.clip((m - lo) / (hi - lo if hi > lo else 1.0), 0, 1)
    heat = _colormap(v)
    base = np.asarray(image.convert("RGB"), dtype=np.float32)
    alpha = (0.65 * v)[..., None]  # low scores leave the image as it is
    out = (base * (1 - alpha) + heat * alpha).astype(np.uint8)
    return Image.fromarray(out)
