"""The fixed split of the image benchmarks: magnetic_tile_okng zipped as the platform receives it (OK/ and NG/) and
split by the platform's own unpacking (85/15 stratified, seed 0, validation taken from train)."""

import os
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from mitate_engine.images import trainer  # noqa: E402
from mitate_engine.images.zipsafe import unpack  # noqa: E402

# a worktree may set MITATE_SHARED_DATA
SHARED = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data") / "magnetic_tile_okng"


def tile_split(prefix: str) -> tuple[dict, dict]:
    """(manifest, splits) of the platform's split of the tiles, unpacked in a new temporary folder."""
    if not SHARED.is_dir():
        sys.exit(f"no data at {SHARED}: set MITATE_SHARED_DATA to the shared data folder")
    work = Path(tempfile.mkdtemp(prefix=prefix))
    zp = work / "tiles.zip"
    with zipfile.ZipFile(zp, "w") as z:
        for p in sorted(SHARED.glob("*/*.jpg")):
            z.write(p, f"{p.parent.name}/{p.name}")
    unpack(zp, work / "data", "analysis", seed=0)
    return trainer.read_dataset(work / "data")


def selection_sets(prefix: str):
    """The split's sets for choosing an OK-only model without the test images (bench/images_patchcore_selection.py):
    the split itself, train OK (the bank), validation OK, and the NG images of train + validation."""
    _, splits = tile_split(prefix)
    tr, va = splits["train"], splits["validation"]
    train_ok = [p for p, lab in zip(tr.paths, tr.labels) if lab == "OK"]
    val_ok = [p for p, lab in zip(va.paths, va.labels) if lab == "OK"]
    sel_ng = [p for s in (tr, va) for p, lab in zip(s.paths, s.labels) if lab == "NG"]
    return splits, train_ok, val_ok, sel_ng
