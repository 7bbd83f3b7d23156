"""Hosted image models (platform/images.py through serve.answer): the served answer is the prediction job's."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from mitate_engine.images.backbone import configure_threads  # noqa: E402
from mitate_engine.images.model import ImageModel, build_net  # noqa: E402
from mitate_engine.images.trainer import SETTINGS, Hooks, Split, train_patchcore  # noqa: E402
from mitate_engine.platform.serve import ModelCache, answer  # noqa: E402


def tile(ok: bool, seed: int, size: int = 56) -> Image.Image:
    rng = np.random.default_rng(seed)
    a = (128 + rng.normal(0, 6, (size, size))).clip(0, 255)
    if not ok:
        a[20:24, 6 : size - 6] = 20  # a dark scratch
    return Image.fromarray(a.astype(np.uint8), "L")


def saved(folder: Path, name: str, im: Image.Image, fmt: str) -> Path:
    p = folder / name
    im.save(p, fmt)
    return p


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("served")
    ok = [str(saved(d, f"ok{i}.png", tile(True, i), "PNG")) for i in range(6)]
    pc, _ = train_patchcore("analysis", ["OK", "NG"], {"train": Split(ok, ["OK"] * len(ok), [])}, {**SETTINGS, "image_size": 48, "coreset_ratio": 0.2}, Hooks())
    pc.threshold = 3.0
    pc.score_range = (1.0, 6.0)
    (d / "pc").mkdir()
    pc.save(d / "pc" / "model.pt")
    torch.manual_seed(0)
    cnn = ImageModel(
        "compact_cnn",
        "classification",
        ["crack", "dent", "ok"],
        48,
        net=build_net("compact_cnn", 3, width=8).eval(),
        extra={"width": 8, "pooling": "avgmax", "standardise": True},
    )
    (d / "cnn").mkdir()
    cnn.save(d / "cnn" / "model.pt")
    return d


def serve(folder: Path, data: bytes, **extra) -> dict:
    (r,) = answer(ModelCache(), {"model": {"key": str(folder), "dir": str(folder)}, "requests": [{"image": base64.b64encode(data).decode(), **extra}]})
    return r


@pytest.mark.parametrize("kind", ["pc", "cnn"])
def test_served_answer_is_the_prediction_jobs(models, kind, tmp_path):
    folder = models / kind
    files = [
        saved(tmp_path, "a.jpg", tile(False, 40).convert("RGB"), "JPEG"),
        saved(tmp_path, "b.bmp", tile(True, 41), "BMP"),
        saved(tmp_path, "c.tiff", tile(False, 42), "TIFF"),
    ]
    configure_threads()  # as tasks/image_predict.py: both read MITATE_TORCH_THREADS (torch's results depend on threads)
    job = ImageModel.load(folder / "model.pt")
    rows = job.predict([str(f) for f in files], heatmap_dir=tmp_path / "maps")  # as tasks/image_predict.py
    cache = ModelCache()
    for f, row in zip(files, rows):
        (got,) = answer(
            cache,
            {"model": {"key": "k", "dir": str(folder)}, "requests": [{"image": base64.b64encode(f.read_bytes()).decode(), "heatmap": True, "threshold": None}]},
        )
        assert got["score"] == row["score"]
        assert got["predicted"] == row["predicted"]
        assert got.get("probabilities") == row.get("probabilities")
        # the heat-map is the job's file, byte for byte
        assert base64.b64decode(got["heatmap_png"]) == (tmp_path / "maps" / row["heatmap"]).read_bytes()
    if kind == "pc":
        (got,) = answer(
            cache, {"model": {"key": "k", "dir": str(folder)}, "requests": [{"image": base64.b64encode(files[0].read_bytes()).decode(), "threshold": 1e9}]}
        )
        assert (got["predicted"], got["threshold"], "heatmap_png" in got) == ("OK", 1e9, False)
        (again,) = answer(
            cache, {"model": {"key": "k", "dir": str(folder)}, "requests": [{"image": base64.b64encode(files[0].read_bytes()).decode(), "threshold": None}]}
        )
        assert again["threshold"] == 3.0  # no threshold given: the trained one, not the last request's


def test_refuses_what_is_not_an_image(models):
    bad = serve(models / "pc", b"GIF89a not really")
    assert (bad["status"], bad["code"], bad["params"]["name"]) == (422, "image_unreadable", "image")
    (nb,) = answer(ModelCache(), {"model": {"key": "x", "dir": str(models / "pc")}, "requests": [{"image": "***"}]})
    assert nb["code"] == "image_unreadable"
    b = io.BytesIO()
    Image.new("L", (8000, 6000)).save(b, "PNG")
    big = serve(models / "pc", b.getvalue())
    assert (big["status"], big["code"]) == (413, "serve_image_pixels")
