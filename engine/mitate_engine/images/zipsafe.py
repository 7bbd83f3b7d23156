"""Safe unpacking of an image ZIP into a dataset folder, with thumbnails made once and a report of every skip.

Nothing is written outside `dest`: names are never used as paths (each image gets a generated file name), entries
are read through a counting stream so a lying header cannot exceed the byte budget, and memory stays bounded
(one entry at a time, capped in size).
"""

from __future__ import annotations

import io
import json
import random
import stat
import zipfile
from collections import Counter, defaultdict
from pathlib import Path, PurePosixPath

from PIL import Image, UnidentifiedImageError

from ..task import EngineError, fill, messages

IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff"}
SPLITS = {"train": "train", "training": "train", "val": "validation", "valid": "validation", "validation": "validation", "test": "test"}
LIMITS = {"max_entries": 50_000, "max_total_mb": 2048, "max_entry_mb": 64, "max_ratio": 200, "max_pixels": 40_000_000}
THUMB = 160

Image.MAX_IMAGE_PIXELS = LIMITS["max_pixels"]


def _read_capped(zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes | None:
    """The entry's bytes, or None when it inflates past `cap` (the header's size is not trusted)."""
    buf = io.BytesIO()
    with zf.open(info) as f:
        while True:
            chunk = f.read(1 << 16)
            if not chunk:
                break
            buf.write(chunk)
            if buf.tell() > cap:
                return None
    return buf.getvalue()


UTF8_FLAG = 0x800  # general purpose bit 11: the name is UTF-8


def entry_name(info: zipfile.ZipInfo) -> str:
    """An entry's name as its author's tool meant it. With bit 11 set it is UTF-8 (zipfile decoded it so); without,
    zipfile read the raw bytes as CP437, which turns the CP932 (Shift_JIS) names Windows Explorer writes on a
    Japanese system into mojibake (不良 → `òsù╟`). The raw bytes are tried as UTF-8 (tools that omit the flag), then
    CP932, then CP437 (the ZIP standard's default)."""
    if info.flag_bits & UTF8_FLAG:
        return info.filename
    try:
        raw = info.filename.encode("cp437")  # zipfile's decoding, undone: CP437 maps every byte
    except UnicodeEncodeError:
        return info.filename
    for enc in ("utf-8", "cp932"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            continue
    return info.filename


# Why an entry was left out: a code of the engine catalogue (image_skip_<code>, en and ja, said by the server in the
# reader's language) with its parameters; "reason" keeps the English words for readers of the manifest.
def skip_entry(entry: str, code: str, **params) -> dict:
    c = f"image_skip_{code}"
    return {"entry": entry, "code": c, "params": params, "reason": fill(messages()[c]["en"], params)}


def _classify_path(name: str) -> tuple[str | None, str | None, str | None]:
    """(split, class, problem) from an entry name: [root/][split/]class/file."""
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if len(parts) < 2:
        return None, None, "not_in_class_folder"
    dirs = parts[:-1]
    # A single wrapping folder (the archive's own name) is tolerated.
    for start in range(len(dirs)):
        rest = dirs[start:]
        if len(rest) == 2 and rest[0].lower() in SPLITS:
            return SPLITS[rest[0].lower()], rest[1], None
        if len(rest) == 1 and rest[0].lower() not in SPLITS:
            return None, rest[0], None
        if start >= 1:
            break
    return None, None, "layout"


def unpack(
    zip_path: str | Path,
    dest: str | Path,
    kind: str,
    seed: int = 0,
    test_share: float = 0.15,
    val_share: float = 0.15,
    limits: dict | None = None,
    progress=None,
) -> dict:
    lim = {**LIMITS, **(limits or {})}
    dest = Path(dest)
    (dest / "images").mkdir(parents=True, exist_ok=True)
    (dest / "thumbs").mkdir(parents=True, exist_ok=True)
    try:
        zf = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError):
        raise EngineError("zip_unreadable") from None
    skipped: list[dict] = []
    items: list[dict] = []
    folders: set[tuple[str | None, str]] = set()
    with zf:
        infos = zf.infolist()
        if len(infos) > lim["max_entries"]:
            raise EngineError("zip_too_many_entries", count=len(infos), limit=lim["max_entries"])
        total = 0
        budget = lim["max_total_mb"] * 1024 * 1024
        entry_cap = lim["max_entry_mb"] * 1024 * 1024
        for n, info in enumerate(infos):
            if progress and n % 20 == 0:
                progress(n / max(1, len(infos)))
            name = entry_name(info)
            skip = lambda code, name=name, **params: skipped.append(skip_entry(name, code, **params))  # noqa: E731
            mode = info.external_attr >> 16
            if info.is_dir():
                split, cls, _ = _classify_path(name.rstrip("/") + "/x")
                if cls:
                    folders.add((split, cls))
                continue
            if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
                skip("absolute_path")
                continue
            if ".." in PurePosixPath(name.replace("\\", "/")).parts:
                skip("zip_slip")
                continue
            if stat.S_ISLNK(mode):
                skip("symlink")
                continue
            base = PurePosixPath(name).name
            split, cls, problem = _classify_path(name)
            if not problem and cls and not name.startswith("__MACOSX/"):
                folders.add((split, cls))  # a class folder counts even when none of its files is usable
            if name.startswith("__MACOSX/") or base.startswith("._") or base in (".DS_Store", "Thumbs.db"):
                skip("system_file")
                continue
            ext = PurePosixPath(base).suffix.lower()
            if ext == ".zip":
                skip("nested_zip")
                continue
            if ext not in IMAGE_EXT:
                skip("not_image")
                continue
            if info.file_size > entry_cap:
                skip("too_large", limit_mb=lim["max_entry_mb"])
                continue
            if info.compress_size and info.file_size / info.compress_size > lim["max_ratio"]:
                skip("compression_ratio")
                continue
            if total + info.file_size > budget:
                raise EngineError("zip_too_large", limit_mb=lim["max_total_mb"])
            if problem and kind == "inference":  # images to predict need no class folders
                split, cls, problem = None, None, None
            if problem:
                skip(problem)  # not_in_class_folder | layout
                continue
            try:
                data = _read_capped(zf, info, min(entry_cap, budget - total))
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError):
                skip("corrupt_entry")
                continue
            if data is None:
                skip("inflates")
                continue
            total += len(data)
            try:
                with Image.open(io.BytesIO(data)) as im:
                    im.load()  # decodes fully: truncated files fail here
                    w, h, mode_ = im.width, im.height, im.mode
                    thumb = im.convert("L" if im.mode in ("L", "I;16", "I", "1") else "RGB")
                    thumb.thumbnail((THUMB, THUMB))
            except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
                skip("corrupt_image")
                continue
            iid = f"{len(items):06d}"
            fname = f"{iid}{'.jpg' if ext == '.jpeg' else ext}"
            (dest / "images" / fname).write_bytes(data)
            thumb.save(dest / "thumbs" / f"{iid}.jpg", quality=85)
            items.append(
                {
                    "id": iid,
                    "file": f"images/{fname}",
                    "thumb": f"thumbs/{iid}.jpg",
                    "name": name,
                    "label": cls,
                    "split": split,
                    "width": w,
                    "height": h,
                    "mode": mode_,
                }
            )
    return _finish(dest, kind, items, skipped, folders, seed, test_share, val_share)


def _canonical(kind: str, label: str) -> str:
    return label.upper() if kind == "analysis" and label.upper() in ("OK", "NG") else label


def _finish(dest: Path, kind: str, items: list[dict], skipped: list[dict], folders, seed, test_share, val_share) -> dict:
    if not items:
        raise EngineError("zip_no_images")
    if kind == "inference":
        for it in items:
            it["split"] = "test"
        manifest = {
            "kind": kind,
            "classes": sorted({it["label"] for it in items if it["label"]}),
            "presplit": False,
            "items": items,
            "skipped": skipped,
            "counts": {"test": dict(Counter(it["label"] or "" for it in items))},
            "total": len(items),
        }
        (dest / "manifest.json").write_text(json.dumps(manifest))
        return manifest
    for it in items:
        it["label"] = _canonical(kind, it["label"])
    have = Counter(it["label"] for it in items)
    for _, cls in folders:
        c = _canonical(kind, cls)
        if have[c] == 0:
            raise EngineError("empty_class", name=cls)
    classes = sorted(have)
    if kind == "analysis":
        if "OK" not in have or set(classes) - {"OK", "NG"}:
            raise EngineError("analysis_classes", found=", ".join(classes))
        classes = [c for c in ("OK", "NG") if c in have]
    elif len(classes) < 2:
        raise EngineError("classification_classes", found=", ".join(classes))
    presplit = any(it["split"] for it in items)
    if presplit and any(not it["split"] for it in items):
        raise EngineError("zip_layout")
    rng = random.Random(seed)
    if not presplit:
        _assign(items, rng, "test", test_share, lambda it: True)
    if not any(it["split"] == "validation" for it in items):
        _assign(items, rng, "validation", val_share, lambda it: it["split"] in (None, "train"))
    for it in items:
        it["split"] = it["split"] or "train"
    counts: dict = defaultdict(lambda: defaultdict(int))
    for it in items:
        counts[it["split"]][it["label"]] += 1
    manifest = {
        "kind": kind,
        "classes": classes,
        "presplit": presplit,
        "items": items,
        "skipped": skipped,
        "counts": {s: dict(c) for s, c in counts.items()},
        "total": len(items),
    }
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def _assign(items: list[dict], rng: random.Random, split: str, share: float, eligible) -> None:
    """Stratified: `share` of each class's eligible items (at least one when a class has 3 or more)."""
    by: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        if eligible(it):
            by[it["label"]].append(it)
    for group in by.values():
        rng.shuffle(group)
        k = int(round(len(group) * share))
        if k == 0 and len(group) >= 3:
            k = 1
        for it in group[:k]:
            it["split"] = split
        for it in group[k:]:
            it["split"] = it["split"] or None
