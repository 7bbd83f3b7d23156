"""Issue 10: choosing PatchCore's configuration on magnetic_tile_okng without looking at the test split.

The platform's split (seed 0, as bench/images_bench.py): the bank comes from the 72 OK images of train. Each candidate
is scored on two selection sets that hold no test image (PatchCore never trains on NG, so train NG may be used):
- select: the 13 OK images of validation vs the 85 NG images of train + validation (bank from all 72 train OK);
- cv: the 72 train OK images out of fold (4 folds, bank from the other 3) vs the same 85 NG (mean score over folds).
The candidate with the best mean of the two is chosen; only then, and only if it is what the engine ships, the test
AUROC (15 OK / 15 NG) is measured once, by the engine's own trainer.train_patchcore and ImageModel.predict.

    .venv/bin/python bench/images_patchcore_selection.py [--quick] [--cache DIR]

--quick: only the previous default and the shipped configuration. --cache: keep patch features between runs.
--reuse-selection: take the candidates' figures from the results file (after the engine's default was set to the
chosen configuration) and run only the test part.
--candidates FILE: the candidates declared in FILE (bench/images_patchcore_lite_candidates.json: stage 1, then stage 2
applied to the best of stage 1), written to bench/results/images-patchcore-lite-selection.json.
Writes bench/results/images-patchcore-selection.json and prints it.
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image, ImageOps
from sklearn.metrics import roc_auc_score
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
from images_split import selection_sets  # noqa: E402
from mitate_engine.images import metrics, patchcore, trainer  # noqa: E402
from mitate_engine.images.backbone import BACKBONE_PATCH_BLOCKS, load_backbone, patch_features  # noqa: E402

QUICK = "--quick" in sys.argv
REUSE = "--reuse-selection" in sys.argv
CACHE = Path(sys.argv[sys.argv.index("--cache") + 1]) if "--cache" in sys.argv else Path(tempfile.mkdtemp(prefix="pc-sel-cache-"))
CACHE.mkdir(parents=True, exist_ok=True)
DECLARED = json.loads(Path(sys.argv[sys.argv.index("--candidates") + 1]).read_text()) if "--candidates" in sys.argv else None
torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
FOLDS = 4
# A declaration may choose on the cv set alone ("criterion": "cv"): 72 OK images instead of the 13 of validation.
CRITERION = (DECLARED or {}).get("criterion", "mean")

splits, train_ok, val_ok, sel_ng = selection_sets("mitate-pc-sel-")
va, te = splits["validation"], splits["test"]
NETS: dict = {}


def net_for(name: str):
    if name not in NETS:
        NETS[name] = load_backbone(name=name).eval()
    return NETS[name]


VIEWS = {
    "id": lambda im: im,
    "h": ImageOps.mirror,
    "v": ImageOps.flip,
    "hv": lambda im: im.rotate(180),
    "r90": lambda im: im.transpose(Image.ROTATE_90),
    "r270": lambda im: im.transpose(Image.ROTATE_270),
    "t": lambda im: im.transpose(Image.TRANSPOSE),
    "tv": lambda im: im.transpose(Image.TRANSVERSE),
}


def feats(img: Image.Image, blocks, net="lite0", agg=3) -> torch.Tensor:
    """As patchcore.embed (the engine's features and agg x agg average), for any net, blocks and image size."""
    x = torch.from_numpy(((np.asarray(img, dtype=np.float32) / 255 - 0.5) / 0.5).transpose(2, 0, 1).copy())[None]
    with torch.no_grad():
        f = patch_features(net_for(net), x, tuple(blocks))
        return (F.avg_pool2d(f, agg, stride=1, padding=agg // 2) if agg > 1 else f)[0]


def prep(path, mode, s):
    """squash: s x s (the engine's resize); native: s % of the original pixels; short: short side s (aspect kept)."""
    im = Image.open(path).convert("RGB")
    if mode == "squash":
        return im.resize((s, s), Image.BILINEAR)
    w, h = im.size
    f = s / 100 if mode == "native" else s / min(w, h)
    return im.resize((max(16, round(w * f)), max(16, round(h * f))), Image.BILINEAR)


def extract(mode, s, blocks, views, net="lite0", agg=3):
    out = {"bank": {}, "eval": None}
    tag = ("" if net == "lite0" else f"{net}_") + f"{mode}{s}_{'-'.join(map(str, blocks))}" + ("" if agg == 3 else f"_agg{agg}")
    for v in views:
        key = CACHE / f"{tag}_{v}.pt"
        if not key.exists():
            torch.save([feats(VIEWS[v](prep(p, mode, s)), blocks, net, agg) for p in train_ok], key)
        out["bank"][v] = torch.load(key)
    key = CACHE / f"{tag}_eval.pt"
    if not key.exists():
        torch.save({Path(p).name: feats(prep(p, mode, s), blocks, net, agg) for p in val_ok + sel_ng}, key)
    out["eval"] = torch.load(key)
    return out


BANKS: dict = {}


def build_bank(maps, ratio, sub, seed=0, key=None):
    if key is not None and key in BANKS:
        return BANKS[key]
    BANKS[key] = _build_bank(maps, ratio, sub, seed)
    return BANKS[key]


def _build_bank(maps, ratio, sub, seed=0):
    allf = torch.cat([f.permute(1, 2, 0).reshape(-1, f.shape[0]) for f in maps])
    n = max(1, int(np.ceil(allf.shape[0] * ratio)))
    if n >= allf.shape[0]:
        return allf
    if sub == "random":
        return allf[torch.randperm(allf.shape[0], generator=torch.Generator().manual_seed(seed))[:n]]
    return allf[patchcore.coreset(allf, n, seed=seed)].contiguous()


def img_score(f, bank, score):
    patches = f.permute(1, 2, 0).reshape(-1, f.shape[0])
    d = patchcore.nearest_distance(patches, bank)
    if score == "max":
        return float(d.max())
    if score.startswith("rw"):  # PatchCore's reweighting (Roth et al. 2022 eq. 7; anomalib's compute_anomaly_score)
        i = int(d.argmax())
        star = int(torch.cdist(patches[i : i + 1], bank).argmin())  # m*: the nearest bank patch
        support = torch.cdist(bank[star : star + 1], bank)[0].topk(int(score[2:]), largest=False).indices  # m* first
        w = 1 - torch.softmax(torch.cdist(patches[i : i + 1], bank[support])[0], 0)[0]
        return float(w * d[i])
    k = max(1, int(len(d) * float(score[3:]) / 100))  # topP: mean of the top P % of patches
    return float(d.topk(k).values.mean())


def evaluate(c):
    net, agg = c.get("net", "lite0"), c.get("agg", 3)
    t0 = time.perf_counter()
    data = extract(c["mode"], c["s"], tuple(c["blocks"]), c["views"], net, agg)
    extract_seconds = time.perf_counter() - t0
    sc = c.get("score", "max")
    t0 = time.perf_counter()
    bkey = (net, agg, c["mode"], c["s"], tuple(c["blocks"]), tuple(c["views"]), c["ratio"], c.get("sub", "coreset"))
    bank = build_bank([m for v in c["views"] for m in data["bank"][v]], c["ratio"], c.get("sub", "coreset"), key=bkey + ("all",))
    ok = [img_score(data["eval"][Path(p).name], bank, sc) for p in val_ok]
    ng = [img_score(data["eval"][Path(p).name], bank, sc) for p in sel_ng]
    select = roc_auc_score([0] * len(ok) + [1] * len(ng), ok + ng)
    oof, ngf = [], []
    for k in range(FOLDS):
        keep = [i for i in range(len(train_ok)) if i % FOLDS != k]
        b = build_bank([data["bank"][v][i] for v in c["views"] for i in keep], c["ratio"], c.get("sub", "coreset"), key=bkey + (k,))
        oof += [img_score(data["bank"]["id"][i], b, sc) for i in range(len(train_ok)) if i % FOLDS == k]
        ngf.append([img_score(data["eval"][Path(p).name], b, sc) for p in sel_ng])
    cv = roc_auc_score([0] * len(oof) + [1] * len(sel_ng), oof + list(np.mean(ngf, axis=0)))
    return {
        **c,
        "bank": int(bank.shape[0]),
        "select_auc": round(select, 4),
        "cv_auc": round(cv, 4),
        "criterion": round(cv if CRITERION == "cv" else (select + cv) / 2, 4),
        "seconds": round(time.perf_counter() - t0, 1),
        "extract_seconds": round(extract_seconds, 1),
        "load_average": round(os.getloadavg()[0], 2),
    }


def pick(rows):
    """The highest criterion; within 0.002 of it, the cheapest (smaller net, then smaller input)."""
    top = max(r["criterion"] for r in rows)
    return min((r for r in rows if r["criterion"] >= top - 0.002), key=lambda r: (r.get("net", "lite0"), r["s"]))


F4 = ["id", "h", "v", "hv"]
D8 = F4 + ["r90", "r270", "t", "tv"]
PREVIOUS = {"mode": "squash", "s": 128, "blocks": [4, 10], "views": ["id"], "ratio": 0.1}
SHIPPED = {
    "net": str(trainer.SETTINGS["patchcore_backbone"]),
    "mode": "squash",
    "s": int(trainer.SETTINGS["image_size"]),
    "blocks": list(BACKBONE_PATCH_BLOCKS[str(trainer.SETTINGS["patchcore_backbone"])]),
    "views": list(patchcore.BANK_VIEWS),
    "ratio": float(trainer.SETTINGS["coreset_ratio"]),
}
CANDIDATES = [
    PREVIOUS,
    {**PREVIOUS, "views": F4},  # 1. flipped views in the bank
    {**PREVIOUS, "views": F4, "ratio": 0.05},
    {**PREVIOUS, "views": D8, "ratio": 0.05},  # 1. flips and quarter turns (bank as large as flips at 10 %)
    {**PREVIOUS, "ratio": 0.25},  # 4. larger bank
    {**PREVIOUS, "ratio": 1.0},  # 4. no coreset
    {**PREVIOUS, "views": F4, "ratio": 0.25, "sub": "random"},
    {**PREVIOUS, "views": F4, "score": "top1"},  # mean of the top 1 % patches
    {**PREVIOUS, "mode": "native", "s": 50, "ratio": 0.25, "sub": "random"},  # 2. aspect kept, one scale for all
    {**PREVIOUS, "mode": "native", "s": 50, "views": F4, "ratio": 0.1, "sub": "random"},
    {**PREVIOUS, "mode": "short", "s": 224, "ratio": 0.1, "sub": "random"},  # 2. short side 224, aspect kept
    {**PREVIOUS, "blocks": [2, 4, 10], "ratio": 0.25, "sub": "random"},  # 3. stride-4 block added
    {**PREVIOUS, "s": 224, "blocks": [7, 10], "ratio": 0.25, "sub": "random"},  # 3. stride 16 at 224
]
PREVIOUS = {"net": "lite0", **PREVIOUS}
CANDIDATES = [{"net": "lite0", **c} for c in CANDIDATES]
if QUICK:
    CANDIDATES = [PREVIOUS, SHIPPED] if SHIPPED != PREVIOUS else [PREVIOUS]

out = {
    "name": "images-patchcore-selection",
    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "quick": QUICK,
    "machine": {"cpus": os.cpu_count(), "threads": torch.get_num_threads(), "load_average_start": list(os.getloadavg())},
    "data": f"magnetic_tile_okng, platform split seed 0: bank from {len(train_ok)} train OK; select = {len(val_ok)} validation OK vs {len(sel_ng)} train+validation NG; cv = {len(train_ok)} train OK out of {FOLDS} folds vs the same NG; test ({te.labels.count('OK')} OK / {te.labels.count('NG')} NG) only for the shipped configuration",
    "legend": {
        "mode/s": "squash: s x s; native: s % of the original pixels, aspect kept; short: short side s, aspect kept",
        "views": "OK image views whose patches enter the bank (id, h mirror, v flip, hv 180 deg, r90/r270 quarter turns, t/tv transposes)",
        "ratio/sub": "bank size as a share of all patches, by greedy coreset (patchcore.coreset) or random",
        "criterion": "mean of select_auc and cv_auc; the highest is chosen",
    },
    "candidates": [],
}
DECLARED_FILE = sys.argv[sys.argv.index("--candidates") + 1] if DECLARED else None
RESULT = ROOT / "bench" / "results" / ((DECLARED.get("result") or "images-patchcore-lite-selection.json") if DECLARED else "images-patchcore-selection.json")
if DECLARED:  # the declared candidates: stage 1, then stage 2's changes applied to the best of stage 1
    out["declared"] = os.path.relpath(Path(DECLARED_FILE).resolve(), ROOT)
    if CRITERION == "cv":
        out["legend"]["criterion"] = "cv_auc (72 train OK out of fold vs 85 NG); the highest is chosen"
    out["legend"] |= {
        "net": "EfficientNet-Lite backbone",
        "agg": "neighbourhood average (agg x agg) of the patch features",
        "score": "max: largest patch distance; rw9: PatchCore's reweighted score with 9 support patches",
    }
    if REUSE:
        out["candidates"] = json.loads(RESULT.read_text())["candidates"]
    else:
        common = DECLARED["common"]
        for c in DECLARED["stage1"]:
            r = evaluate({**common, **{k: v for k, v in c.items() if k != "note"}})
            out["candidates"].append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
        best1 = pick(out["candidates"])
        base = {k: best1[k] for k in ("net", "mode", "s", "blocks", "views", "ratio", "agg", "score")}
        for c in DECLARED["stage2_on_best_of_stage1"]:
            r = evaluate({**base, **{k: v for k, v in c.items() if k not in ("note", "id")}, "id": f"{best1['id']}+{c['id']}"})
            out["candidates"].append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
elif REUSE:  # the candidates' selection figures of the last full run; only the test part runs again
    prev = json.loads(RESULT.read_text())
    out["candidates"], out["machine"]["selection_load_average_start"] = prev["candidates"], prev["machine"]["load_average_start"]
else:
    for c in CANDIDATES:
        r = evaluate(c)
        out["candidates"].append(r)
        print(json.dumps(r), file=sys.stderr, flush=True)
best = pick(out["candidates"]) if DECLARED else max(out["candidates"], key=lambda r: r["criterion"])
chosen = {k: best[k] for k in ("net", "mode", "s", "blocks", "views", "ratio") if k in best} | ({"sub": best["sub"]} if "sub" in best else {})
out["chosen"] = chosen
out["shipped"] = SHIPPED
out["shipped_is_chosen"] = chosen == SHIPPED and best.get("score", "max") == "max" and best.get("agg", 3) == 3
# With the declared candidates, the chosen one is tested as soon as the engine can train it from settings alone
# (its net's blocks, the engine's views, coreset ratio, 3x3 average and max score; any input size): the project's
# image size is also the classifiers', so it may be chosen here without being the engine's default.
TEST_SETTINGS = {**trainer.SETTINGS}
if DECLARED and (
    chosen.get("mode") == "squash"
    and chosen["blocks"] == list(BACKBONE_PATCH_BLOCKS[chosen["net"]])
    and chosen["views"] == list(patchcore.BANK_VIEWS)
    and chosen["ratio"] == float(trainer.SETTINGS["coreset_ratio"])
    and best.get("agg", 3) == 3
    and best.get("score", "max") == "max"
    and "sub" not in chosen
):
    TEST_SETTINGS |= {"patchcore_backbone": chosen["net"], "image_size": chosen["s"]}
    out["tested_settings"] = {"patchcore_backbone": chosen["net"], "image_size": chosen["s"]}
elif not out["shipped_is_chosen"]:
    # the test split is looked at only for the chosen configuration: make it the engine's default, then run again
    out["shipped_test"] = None
    out["machine"]["load_average_end"] = list(os.getloadavg())
    if not QUICK:
        RESULT.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
    sys.exit("the engine's default is not the chosen configuration: no test AUROC measured")

# The test split, once, for the chosen configuration (the engine's default settings, or with --candidates the chosen
# net and input size), through the engine's own code.
model, info = trainer.train_patchcore("analysis", ["OK", "NG"], splits, TEST_SETTINGS, trainer.Hooks())
vs = [r["score"] for r in model.predict(va.paths, 16)]
ts = [r["score"] for r in model.predict(te.paths, 16)]
th = metrics.best_f1_threshold(va.labels, vs)
b = metrics.binary(te.labels, ts, th)
lat = []
model.predict(te.paths[:1], 1)  # warm-up
for p in te.paths[:20]:
    t0 = time.perf_counter()
    model.predict([p], 1)
    lat.append((time.perf_counter() - t0) * 1000)
out["shipped_test"] = {
    "test_auroc": round(b["roc_auc"], 4),
    "test_f1": round(b["f1"], 4),
    "bank": model.extra["bank_size"],
    "train_seconds": round(info["seconds"], 1),
    "latency_median_ms": round(float(np.median(lat)), 1),
    "latency_p95_ms": round(float(np.percentile(lat, 95)), 1),
    "load_average": list(os.getloadavg()),
}
out["machine"]["load_average_end"] = list(os.getloadavg())
text = json.dumps(out, indent=1)
if not QUICK:
    RESULT.write_text(text + "\n")
print(text)
