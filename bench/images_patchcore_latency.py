"""Issue 10: single-image PatchCore prediction latency per backbone and input size, through ImageModel.predict.

The bank is random rows of the size the 72 OK tiles x 8 views give at a 5 % coreset (latency does not depend on its
values); the images are the first 20 test tiles. Each configuration is timed twice, interleaved, so a burst of load
from other users of the machine shows as a disagreement between the two rounds.

    T=1 .venv/bin/python bench/images_patchcore_latency.py   (T: torch threads, default 2)

Writes bench/results/images-patchcore-latency-T<threads>.json and prints it.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
from images_split import tile_split  # noqa: E402
from mitate_engine.images.backbone import BACKBONE_PATCH_BLOCKS, load_backbone, patch_features  # noqa: E402
from mitate_engine.images.model import ImageModel  # noqa: E402

torch.set_num_threads(int(os.environ.get("T", "2")))
_, sp = tile_split("mitate-pc-lat-")
paths = sp["test"].paths[:20]
rows = []
for net, size in [("lite0", 128), ("lite2", 128), ("lite2", 160)] * 2:
    backbone = load_backbone(name=net).eval()
    with torch.no_grad():
        channels = patch_features(backbone, torch.zeros(1, 3, 32, 32), BACKBONE_PATCH_BLOCKS[net]).shape[1]
    bank_n = int(np.ceil(72 * 8 * (size // 8) ** 2 * 0.05))
    m = ImageModel("patchcore", "analysis", ["OK", "NG"], size, threshold=1.0, bank=torch.randn(bank_n, channels), net=backbone, extra={"backbone": net})
    m.predict(paths[:1], 1)  # warm-up
    t = []
    for p in paths:
        t0 = time.perf_counter()
        m.predict([p], 1)
        t.append((time.perf_counter() - t0) * 1000)
    rows.append(
        {
            "net": net,
            "image_size": size,
            "bank": bank_n,
            "median_ms": round(statistics.median(t), 1),
            "p95_ms": round(float(np.percentile(t, 95)), 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
    )
    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
out = {
    "name": "images-patchcore-latency",
    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "threads": torch.get_num_threads(),
    "cpus": os.cpu_count(),
    "rows": rows,
}
(ROOT / "bench" / "results" / f"images-patchcore-latency-T{torch.get_num_threads()}.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out, indent=1))
