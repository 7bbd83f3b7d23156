"""Hosted image models (OK/NG and classification) in the serving processes (serve.py): one image per request.

A request is {"image": "<base64 of the file's bytes>", "threshold": <number or null>, "heatmap": true|false}; the
server has already checked the key, the size and the format (JPEG, PNG, BMP or TIFF by its first bytes). The answer
is {"kind", "predicted", "score", "threshold", "probabilities", "heatmap_png"} or an error {"error", "code",
"params", "status"}. The image is decoded, resized and scored exactly as the prediction job does it (ImageModel.row
and ImageModel.heatmap, images/model.py), so the same image gets the same score, class and heat-map either way.

Models stay loaded in a small LRU cache (torch and the backbone are imported with the first image model), so a
request costs one forward pass, never a load.
"""

from __future__ import annotations

import base64
import binascii
import io
import os
import time
from collections import OrderedDict
from typing import Any

from PIL import Image

from ..task import EngineError

MODEL_FILE = "model.pt"
# As the dataset upload (images/zipsafe.py LIMITS): more pixels than this is refused before decoding.
MAX_PIXELS = 40_000_000


def is_image_model(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, MODEL_FILE))


class ImageModels:
    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[Any, float | None]] = OrderedDict()

    def get(self, key: str, folder: str) -> tuple[Any, float | None]:
        """The loaded model and the threshold it was trained with."""
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit
        from ..images.backbone import configure_threads
        from ..images.model import ImageModel

        configure_threads()
        model = ImageModel.load(os.path.join(folder, MODEL_FILE), os.environ.get("MITATE_IMAGE_WEIGHTS_DIR") or None)
        self._items[key] = (model, model.threshold)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return self._items[key]


def error_of(exc: BaseException) -> dict:
    if isinstance(exc, EngineError):
        status = 413 if exc.code == "serve_image_pixels" else 422
        return {"error": str(exc), "code": exc.code, "params": exc.params, "column": None, "status": status}
    return {"error": f"{type(exc).__name__}: {exc}", "column": None, "status": 500}


def decode(request: dict) -> Image.Image:
    """The request's image as RGB, read as the prediction job reads a file (images/data.open_rgb)."""
    from ..images.data import open_rgb

    try:
        data = base64.b64decode(str(request.get("image") or ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise EngineError("image_unreadable", name="image", reason="not base64") from exc
    try:
        with Image.open(io.BytesIO(data)) as probe:
            w, h = probe.size
    except Exception as exc:  # noqa: BLE001 - any failure to identify is the caller's image
        raise EngineError("image_unreadable", name="image", reason=f"{type(exc).__name__}: {exc}"[:200]) from exc
    if w * h > MAX_PIXELS:
        raise EngineError("serve_image_pixels", message=f"{w} x {h} pixels is more than {MAX_PIXELS}", pixels=w * h, max=MAX_PIXELS)
    return open_rgb(io.BytesIO(data), name="image")


def answer_one(model, trained: float | None, request: dict) -> dict:
    import torch

    t0 = time.perf_counter()
    image = decode(request)
    t1 = time.perf_counter()
    # the threshold in force (the server's), else the one trained, as the prediction job sets it
    threshold = request.get("threshold")
    model.threshold = float(threshold) if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) else trained
    want_map = bool(request.get("heatmap"))
    # No autograd bookkeeping (the same kernels, so the same numbers); a CNN's Grad-CAM map needs gradients.
    with torch.inference_mode(not (want_map and model.algorithm != "patchcore")):
        row, amap = model.row(image, want_map=want_map)
    t2 = time.perf_counter()
    out = {
        "kind": model.kind,
        "predicted": row["predicted"],
        "score": row["score"],
        "threshold": model.threshold if model.kind == "analysis" else None,
        "probabilities": row.get("probabilities"),
    }
    if amap is not None:
        buf = io.BytesIO()
        model.heatmap(image, amap).save(buf, format="PNG")
        out["heatmap_png"] = base64.b64encode(buf.getvalue()).decode("ascii")
    # where the time went (ms), for the server's Server-Timing header; not part of the answer
    out["timing"] = {"decode": (t1 - t0) * 1000, "model": (t2 - t1) * 1000, "heatmap": (time.perf_counter() - t2) * 1000}
    return out


def answer(cache: ImageModels, spec: dict, requests: list) -> list[dict]:
    try:
        model, trained = cache.get(str(spec.get("key")), str(spec.get("dir")))
    except BaseException as exc:  # noqa: BLE001
        return [error_of(exc)] * len(requests)
    results = []
    for r in requests:
        try:
            results.append(answer_one(model, trained, r if isinstance(r, dict) else {}))
        except BaseException as exc:  # noqa: BLE001 - each caller gets its own answer
            results.append(error_of(exc))
    return results
