"""Image pre-processing: each operation on small generated images, a whole dataset kept in its splits, previews,
TIFF (16-bit) originals converted for the browser, and refusals with a code."""

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from mitate_engine.images import preprocess as pp
from mitate_engine.images.zipsafe import unpack
from mitate_engine.task import Context, EngineError, get_task
from PIL import Image


def gradient(w=60, h=40, mode="RGB") -> Image.Image:
    a = np.zeros((h, w, 3), np.uint8)
    a[..., 0] = np.linspace(0, 255, w)[None, :]
    a[..., 1] = 100
    a[:10, :10, 2] = 255  # a blue mark top-left, to see where rotations and flips put it
    return Image.fromarray(a, "RGB").convert(mode)


def run(spec: dict, out: Path) -> dict:
    events: list[dict] = []
    return get_task("image_preprocess").run(spec, Context(events.append, out))


@pytest.fixture
def dataset(tmp_path) -> Path:
    entries = {}
    for i in range(8):
        for cls in ("OK", "NG"):
            b = io.BytesIO()
            img = gradient(60 + i, 40)
            if cls == "NG":
                img.putpixel((30, 20), (0, 0, 0))
            if i == 0 and cls == "OK":  # one 16-bit TIFF, as cameras write them
                Image.fromarray((np.arange(40 * 60).reshape(40, 60) * 20).astype(np.uint16)).save(b, "TIFF")
                entries[f"{cls}/{cls}_{i}.tif"] = b.getvalue()
                continue
            img.save(b, "JPEG" if i % 2 else "PNG")
            entries[f"{cls}/{cls}_{i}.{'jpg' if i % 2 else 'png'}"] = b.getvalue()
    z = tmp_path / "d.zip"
    with zipfile.ZipFile(z, "w") as f:
        for k, v in entries.items():
            f.writestr(k, v)
    dest = tmp_path / "ds"
    unpack(z, dest, "analysis")
    return dest


def test_each_operation():
    s = pp.settings({})
    im = gradient()
    assert pp.apply(im, s).size == (60, 40)  # nothing asked, nothing changed
    assert pp.apply(im, pp.settings({"crop": {"left": 0.25, "right": 0.25, "top": 0.1, "bottom": 0.1}})).size == (30, 32)
    turned = pp.apply(im, pp.settings({"rotate": 90}))
    assert turned.size == (40, 60)
    assert turned.getpixel((35, 2))[2] == 255  # clockwise: the top-left mark is now top-right
    assert pp.apply(im, pp.settings({"rotate": 30})).size[0] > 60  # expanded, nothing cut
    assert pp.apply(im, pp.settings({"hflip": True})).getpixel((55, 2))[2] == 255
    assert pp.apply(im, pp.settings({"vflip": True})).getpixel((2, 35))[2] == 255
    assert pp.apply(im, pp.settings({"resize": {"width": 32, "height": 32, "mode": "stretch"}})).size == (32, 32)
    assert pp.apply(im, pp.settings({"resize": {"width": 32, "height": 32, "mode": "fit"}})).size == (32, 21)
    assert pp.apply(im, pp.settings({"resize": {"width": 32, "height": 32, "mode": "pad"}})).size == (32, 32)
    assert pp.apply(im, pp.settings({"grayscale": True})).mode == "L"
    mean = lambda x: float(np.asarray(x.convert("L"), float).mean())  # noqa: E731
    assert mean(pp.apply(im, pp.settings({"brightness": 1.5}))) > mean(im) + 10
    std = lambda x: float(np.asarray(x.convert("L"), float).std())  # noqa: E731
    assert std(pp.apply(im, pp.settings({"contrast": 0.3}))) < std(im) / 2
    dull = Image.fromarray(np.tile(np.linspace(100, 140, 60, dtype=np.uint8), (40, 1)), "L")
    assert std(pp.apply(dull, pp.settings({"normalize": "autocontrast"}))) > std(dull) * 3
    assert std(pp.apply(dull, pp.settings({"normalize": "equalize"}))) > std(dull) * 3


@pytest.mark.parametrize(
    "bad",
    [
        {"crop": {"left": 0.5}},
        {"rotate": 400},
        {"resize": {"width": 0, "height": 10}},
        {"resize": {"width": 10, "height": 10, "mode": "zoom"}},
        {"brightness": 9},
        {"normalize": "x"},
    ],
)
def test_bad_settings_refused_with_a_code(tmp_path, dataset, bad):
    with pytest.raises(EngineError) as e:
        run({"mode": "apply", "dataset_dir": str(dataset), "operations": bad}, tmp_path / "out")
    assert e.value.code == "image_preprocess_invalid"
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_whole_dataset_keeps_labels_and_splits(tmp_path, dataset):
    ops = {"crop": {"left": 0.1, "right": 0.1}, "resize": {"width": 32, "height": 32, "mode": "pad"}, "grayscale": True, "normalize": "autocontrast"}
    res = run({"mode": "apply", "dataset_dir": str(dataset), "operations": ops}, tmp_path / "out")
    src = json.loads((dataset / "manifest.json").read_text())
    out = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert res["total"] == out["total"] == src["total"] == 16
    assert out["counts"] == src["counts"] and out["classes"] == ["OK", "NG"] and out["kind"] == "analysis"
    assert [(i["id"], i["label"], i["split"]) for i in out["items"]] == [(i["id"], i["label"], i["split"]) for i in src["items"]]
    for it in out["items"]:
        with Image.open(tmp_path / "out" / it["file"]) as im:
            assert im.size == (32, 32) and im.mode == "L"
        assert (tmp_path / "out" / it["thumb"]).exists()
        assert Path(it["file"]).suffix in (".jpg", ".png")  # the TIFF became a PNG
    assert out["preprocess"]["grayscale"] is True
    with zipfile.ZipFile(tmp_path / "out" / "dataset.zip") as z:  # the new dataset's original file, in the upload layout
        names = z.namelist()
    assert len(names) == 16 and all(n.split("/")[0] in ("train", "validation", "test") and n.split("/")[1] in ("OK", "NG") for n in names)


def test_preview_before_and_after(tmp_path, dataset):
    res = run({"mode": "preview", "dataset_dir": str(dataset), "operations": {"rotate": 90}, "ids": ["000000", "000001", "999999"]}, tmp_path / "p")
    assert [i["id"] for i in res["items"]] == ["000000", "000001"]  # unknown ids are ignored
    first = res["items"][0]
    assert first["after"] == [first["before"][1], first["before"][0]]
    assert (tmp_path / "p" / "000000-after.png").exists() and (tmp_path / "p" / "000000-before.png").exists()
    assert not (tmp_path / "p" / "manifest.json").exists()


def test_tiff_original_converted_for_display(tmp_path, dataset):
    m = json.loads((dataset / "manifest.json").read_text())
    tif = next(i for i in m["items"] if i["file"].endswith(".tif"))
    dest = tmp_path / "display" / f"{tif['id']}.png"
    assert run({"mode": "display", "files": [{"source": str(dataset / tif["file"]), "dest": str(dest)}]}, tmp_path / "j") == {"converted": 1}
    with Image.open(dest) as im:
        assert im.format == "PNG" and im.mode == "L" and im.size == (60, 40)
        a = np.asarray(im)
        assert a.min() == 0 and a.max() == 255  # 16-bit range stretched, not clipped to black/white


def test_no_image_survives_refused(tmp_path, dataset):
    for f in (dataset / "images").iterdir():
        f.write_bytes(b"not an image")
    with pytest.raises(EngineError) as e:
        run({"mode": "apply", "dataset_dir": str(dataset), "operations": {}}, tmp_path / "out")
    assert e.value.code == "image_preprocess_no_images" and e.value.params["count"] == 16
