"""Image loading, resizing and augmentation with Pillow and torch (no torchvision)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import IO

import numpy as np
import torch
from PIL import Image, ImageEnhance, ImageOps

from ..task import EngineError
from .backbone import MEAN, STD

DEFAULT_AUG = {"hflip": False, "vflip": False, "rotate": 0, "brightness": 0.0, "contrast": 0.0, "crop": 0.0}


def open_rgb(path: str | Path | IO[bytes], name: str | None = None) -> Image.Image:
    """An image file (a path, or the bytes of one as a file object) as RGB; `name` says it in a refusal."""
    try:
        return _open_rgb(path)
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
        raise EngineError("image_unreadable", name=name or Path(str(path)).name, reason=f"{type(e).__name__}: {e}"[:200]) from e


def _open_rgb(path: str | Path | IO[bytes]) -> Image.Image:
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im)
        if im.mode in ("I;16", "I", "F"):
            arr = np.asarray(im, dtype=np.float32)
            lo, hi = float(arr.min()), float(arr.max())
            im = Image.fromarray(((arr - lo) / (hi - lo or 1) * 255).astype(np.uint8))
        return im.convert("RGB")


def augment(im: Image.Image, aug: dict, rng: random.Random) -> Image.Image:
    a = {**DEFAULT_AUG, **(aug or {})}
    if a["hflip"] and rng.random() < 0.5:
        im = ImageOps.mirror(im)
    if a["vflip"] and rng.random() < 0.5:
        im = ImageOps.flip(im)
    if a["rotate"]:
        im = im.rotate(rng.uniform(-a["rotate"], a["rotate"]), resample=Image.BILINEAR)
    if a["brightness"]:
        im = ImageEnhance.Brightness(im).enhance(1 + rng.uniform(-a["brightness"], a["brightness"]))
    if a["contrast"]:
        im = ImageEnhance.Contrast(im).enhance(1 + rng.uniform(-a["contrast"], a["contrast"]))
    if a["crop"]:
        w, h = im.size
        s = 1 - rng.uniform(0, a["crop"])
        cw, ch = max(1, int(w * s)), max(1, int(h * s))
        x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
        im = im.crop((x, y, x + cw, y + ch))
    return im


def to_tensor(im: Image.Image, size: int) -> torch.Tensor:
    im = im.resize((size, size), Image.BILINEAR)
    arr = np.asarray(im, dtype=np.float32) / 255.0
    return torch.from_numpy(((arr - MEAN) / STD).transpose(2, 0, 1).copy())


def load_batch(paths: list[str], size: int, aug: dict | None = None, rng: random.Random | None = None) -> torch.Tensor:
    out = []
    for p in paths:
        im = open_rgb(p)
        if aug and rng:
            im = augment(im, aug, rng)
        out.append(to_tensor(im, size))
    return torch.stack(out)
