"""Image pre-processing (SPEC §7 'Image'): one fixed pipeline of operations applied to every image of a dataset.

The order is fixed so a setting always means the same thing whatever else is on: crop → rotate → flip → resize →
grayscale → brightness → contrast → normalise. Crops are fractions of each side, so one setting fits images of
mixed sizes. A processed dataset keeps the labels and the train/validation/test split of its source.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath

from PIL import Image, ImageEnhance, ImageOps

from ..task import EngineError
from .zipsafe import THUMB, skip_entry

RESIZE_MODES = ("stretch", "fit", "pad")
NORMALIZE = ("none", "autocontrast", "equalize")
ZIP_NAME = "dataset.zip"

DEFAULTS: dict = {
    "crop": {"left": 0.0, "top": 0.0, "right": 0.0, "bottom": 0.0},
    "rotate": 0.0,
    "hflip": False,
    "vflip": False,
    "resize": None,  # {"width", "height", "mode"}
    "grayscale": False,
    "brightness": 1.0,
    "contrast": 1.0,
    "normalize": "none",
}


def settings(ops: dict | None) -> dict:
    """The operations with defaults filled in and checked (the server validates first; this guards direct calls)."""
    s = {**DEFAULTS, **(ops or {})}
    crop = {**DEFAULTS["crop"], **(s.get("crop") or {})}
    for k, v in crop.items():
        if not 0 <= float(v) < 0.5:
            raise EngineError("image_crop_range", side=str(k))
    s["crop"] = {k: float(v) for k, v in crop.items()}
    if not -360 <= float(s["rotate"]) <= 360:
        raise EngineError("image_rotate_range")
    r = s.get("resize")
    if r:
        w, h = int(r["width"]), int(r["height"])
        if not (1 <= w <= 8192 and 1 <= h <= 8192):
            raise EngineError("image_resize_range")
        mode = r.get("mode", "stretch")
        if mode not in RESIZE_MODES:
            raise EngineError("image_resize_mode", allowed=str(RESIZE_MODES))
        s["resize"] = {"width": w, "height": h, "mode": mode}
    for k in ("brightness", "contrast"):
        if not 0 <= float(s[k]) <= 5:
            raise EngineError("image_factor_range", name=k)
    if s["normalize"] not in NORMALIZE:
        raise EngineError("image_normalize", allowed=str(NORMALIZE))
    return s


def to_8bit(im: Image.Image) -> Image.Image:
    """16-bit and float images (common in TIFF) stretched to 8-bit grey; palettes and alpha flattened to RGB."""
    if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        im = im.convert("F") if im.mode != "F" else im
        lo, hi = im.getextrema()
        scale = 255.0 / (hi - lo) if hi > lo else 0.0
        return im.point(lambda v: (v - lo) * scale).convert("L")
    if im.mode in ("L", "RGB"):
        return im
    if im.mode in ("1", "LA"):
        return im.convert("L")
    return im.convert("RGB")


def apply(im: Image.Image, ops: dict) -> Image.Image:
    """`ops` as returned by `settings`."""
    im = to_8bit(im)
    c = ops["crop"]
    if any(c.values()):
        w, h = im.size
        box = (round(w * c["left"]), round(h * c["top"]), w - round(w * c["right"]), h - round(h * c["bottom"]))
        if box[2] - box[0] >= 1 and box[3] - box[1] >= 1:
            im = im.crop(box)
    angle = float(ops["rotate"]) % 360
    if angle:
        if angle in (90.0, 180.0, 270.0):  # lossless quarter turns (PIL turns counter-clockwise; ours are clockwise)
            im = im.transpose({90.0: Image.Transpose.ROTATE_270, 180.0: Image.Transpose.ROTATE_180, 270.0: Image.Transpose.ROTATE_90}[angle])
        else:
            im = im.rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True)
    if ops["hflip"]:
        im = ImageOps.mirror(im)
    if ops["vflip"]:
        im = ImageOps.flip(im)
    r = ops.get("resize")
    if r:
        size = (r["width"], r["height"])
        if r["mode"] == "stretch":
            im = im.resize(size, Image.Resampling.LANCZOS)
        elif r["mode"] == "fit":
            im = ImageOps.contain(im, size, Image.Resampling.LANCZOS)
        else:
            im = ImageOps.pad(im, size, Image.Resampling.LANCZOS, color=0)
    if ops["grayscale"]:
        im = im.convert("L")
    if float(ops["brightness"]) != 1:
        im = ImageEnhance.Brightness(im).enhance(float(ops["brightness"]))
    if float(ops["contrast"]) != 1:
        im = ImageEnhance.Contrast(im).enhance(float(ops["contrast"]))
    if ops["normalize"] == "autocontrast":
        im = ImageOps.autocontrast(im, cutoff=1)
    elif ops["normalize"] == "equalize":
        im = ImageOps.equalize(im)
    return im


def output_name(iid: str, source_file: str) -> str:
    """JPEG stays JPEG (re-encoded at high quality); everything else becomes lossless PNG, which every browser shows."""
    ext = Path(source_file).suffix.lower()
    return f"{iid}.jpg" if ext in (".jpg", ".jpeg") else f"{iid}.png"


def save(im: Image.Image, path: Path) -> None:
    if path.suffix == ".jpg":
        im.save(path, quality=95)
    else:
        im.save(path)


def thumbnail(im: Image.Image, size: int = THUMB) -> Image.Image:
    t = im.copy()
    t.thumbnail((size, size))
    return t


def process_dataset(source_dir: str | Path, dest: str | Path, ops: dict, progress=None) -> dict:
    """Every image of the source dataset through `ops` into dest (images/, thumbs/, manifest.json).

    An image that cannot be processed is skipped and named in the manifest; labels and splits are kept.
    """
    source_dir, dest = Path(source_dir), Path(dest)
    manifest = json.loads((source_dir / "manifest.json").read_text())
    s = settings(ops)
    (dest / "images").mkdir(parents=True, exist_ok=True)
    (dest / "thumbs").mkdir(parents=True, exist_ok=True)
    items, skipped = [], []
    n = len(manifest["items"])
    for i, it in enumerate(manifest["items"]):
        if progress and i % 10 == 0:
            progress(i / max(1, n))
        try:
            with Image.open(source_dir / it["file"]) as src:
                src.load()
                out = apply(src, s)
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
            skipped.append(skip_entry(it["name"], "unprocessable"))
            continue
        name = output_name(it["id"], it["file"])
        save(out, dest / "images" / name)
        thumb = thumbnail(out)
        thumb.save(dest / "thumbs" / f"{it['id']}.jpg", quality=85)
        items.append({**it, "file": f"images/{name}", "thumb": f"thumbs/{it['id']}.jpg", "width": out.width, "height": out.height, "mode": out.mode})
    counts: dict = {}
    for it in items:
        bucket = counts.setdefault(it["split"], {})
        key = it["label"] if it["label"] is not None else ""
        bucket[key] = bucket.get(key, 0) + 1
    result = {
        "kind": manifest["kind"],
        "classes": manifest["classes"],
        "presplit": manifest.get("presplit", False),
        "items": items,
        "skipped": skipped,
        "counts": counts,
        "total": len(items),
        "preprocess": s,
    }
    (dest / "manifest.json").write_text(json.dumps(result))
    write_zip(dest, result)
    return result


def write_zip(dest: Path, manifest: dict) -> None:
    """The processed images as a ZIP in the upload layout (split/class/name), the new dataset's "original file"."""
    seen: set[str] = set()
    with zipfile.ZipFile(dest / ZIP_NAME, "w", zipfile.ZIP_STORED) as z:  # images are compressed already
        for it in manifest["items"]:
            stem = PurePosixPath(it["name"]).stem
            name = f"{it['split']}/{it['label'] or 'images'}/{stem}{Path(it['file']).suffix}"
            if name in seen:  # two source folders may hold the same file name
                name = f"{it['split']}/{it['label'] or 'images'}/{stem}_{it['id']}{Path(it['file']).suffix}"
            seen.add(name)
            z.write(dest / it["file"], name)


def preview(source_dir: str | Path, dest: str | Path, ops: dict, ids: list[str], size: int = 320) -> list[dict]:
    """Before and after of a few images (bounded to `size` pixels) as PNG files in dest, with their sizes."""
    source_dir, dest = Path(source_dir), Path(dest)
    manifest = json.loads((source_dir / "manifest.json").read_text())
    by_id = {it["id"]: it for it in manifest["items"]}
    s = settings(ops)
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for iid in ids:
        it = by_id.get(iid)
        if it is None:
            continue
        with Image.open(source_dir / it["file"]) as src:
            src.load()
            before = to_8bit(src)
            after = apply(src, s)
        thumbnail(before, size).save(dest / f"{iid}-before.png")
        thumbnail(after, size).save(dest / f"{iid}-after.png")
        out.append(
            {
                "id": iid,
                "name": it["name"],
                "label": it["label"],
                "before": [before.width, before.height],
                "after": [after.width, after.height],
                "mode": after.mode,
            }
        )
    return out


def display_png(source: str | Path, dest: str | Path) -> None:
    """A PNG a browser can show, for originals it cannot (TIFF): 16-bit stretched to 8-bit, nothing else changed."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as src:
        src.load()
        tmp = dest.with_suffix(".tmp.png")
        to_8bit(src).save(tmp, format="PNG")
    tmp.replace(dest)  # whole or absent: a reader never sees half a file
