"""Issue 10 benchmark body: PatchCore (OK only), fine-tuned classifier and compact CNN vs logistic regression on pixels.

Same fixed split for all (the platform's own 85/15 stratified split with seed 0, validation taken from train); each
threshold is chosen on validation by the same rule and scored on test. Prints one JSON line.

Issue 30: the threshold is the product's default (metrics.default_threshold: midway between the classes when the
validation scores separate, the middle of the best-F1 plateau when they overlap); each model also reports its miss
and over-detection rates at the rule it replaced (best F1 keeping the lowest of tied thresholds, i.e. on a score),
measured in the same run. PatchCore never sees NG images, so its miss rate is also given on every NG image outside
validation (train + test), a steadier figure than the 15 test NG images.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from images_split import tile_split  # noqa: E402
from mitate_engine.images import metrics, trainer  # noqa: E402

QUICK = "--quick" in sys.argv
# --part NAME runs one model (the .mjs runs the parts side by side on a loaded machine and merges them); default: all.
PART = sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else None
torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
manifest, splits = tile_split("mitate-img-bench-")
counts = manifest["counts"]


def lowest_tied_best_f1(labels, scores):
    """The rule the default replaced (issue 30), kept here as the peer: the best-F1 threshold taken on a validation
    score, the lowest of the ties."""
    y = np.array([l == "NG" for l in labels])
    sc = np.asarray(scores)
    best, key = None, None
    for t in sorted(set(scores)):
        p = sc >= t
        k = (2 * int((p & y).sum()) / (p.sum() + y.sum()), -int((p & ~y).sum()))
        if key is None or k > key:
            best, key = t, k
    return float(best)


def scored(model, s, unseen_ng=None):
    val, test = splits["validation"], splits["test"]
    vs = [r["score"] for r in model.predict(val.paths, 16)]
    ts = [r["score"] for r in model.predict(test.paths, 16)]
    t, rule, params = metrics.default_threshold(val.labels, vs, float(s["ok_percentile"]))
    b = metrics.binary(test.labels, ts, t)
    old_t = lowest_tied_best_f1(val.labels, vs)
    old = metrics.binary(test.labels, ts, old_t)
    out = {
        "auroc": b["roc_auc"],
        "f1": b["f1"],
        "miss_rate": b["miss_rate"],
        "over_detection_rate": b["over_detection_rate"],
        "default_threshold": {"threshold": t, "rule": rule, "params": params, "validation_separates": rule == "midway_separated"},
        "previous_rule": {"threshold": old_t, "f1": old["f1"], "miss_rate": old["miss_rate"], "over_detection_rate": old["over_detection_rate"]},
    }
    if unseen_ng:
        us = [r["score"] for r in model.predict(unseen_ng, 16)]
        out["unseen_ng"] = {
            "images": len(us),
            "miss_rate_default": sum(x < t for x in us) / len(us),
            "miss_rate_previous_rule": sum(x < old_t for x in us) / len(us),
        }
    return out


def latency(model, n=20):
    paths = splits["test"].paths[:n]
    model.predict(paths[:1], 1)  # warm-up
    times = []
    for p in paths:
        t0 = time.perf_counter()
        model.predict([p], 1)
        times.append((time.perf_counter() - t0) * 1000)
    return {"median_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95)), "load_average": list(os.getloadavg())}


def heldout_all_ng(model):
    """PatchCore never sees NG images: the OK images of validation+test against all 100 NG images (train NG included)
    is a steadier AUROC than the 15/15 test split alone."""
    ok = [p for k in ("validation", "test") for p, l in zip(splits[k].paths, splits[k].labels) if l == "OK"]
    ng = [p for k in ("train", "validation", "test") for p, l in zip(splits[k].paths, splits[k].labels) if l == "NG"]
    sc = [r["score"] for r in model.predict(ok + ng, 16)]
    return {"heldout_auroc": roc_auc_score([0] * len(ok) + [1] * len(ng), sc), "heldout_ok": len(ok), "heldout_ng": len(ng)}


hooks = trainer.Hooks()
out = {"quick": QUICK, "threads": torch.get_num_threads(), "load_average_start": list(os.getloadavg()), "split": counts, "models": {}}


def wanted(name):
    return PART is None or PART == name


if wanted("patchcore"):
    size_pc = int(trainer.SETTINGS["image_size"])  # the platform's default setting
    s = {**trainer.SETTINGS, "batch_size": 16}
    model, info = trainer.train_patchcore("analysis", ["OK", "NG"], splits, s, hooks)
    out["models"]["patchcore"] = {
        "image_size": size_pc,
        "backbone": model.extra["backbone"],  # trainer.SETTINGS["patchcore_backbone"], chosen by images_patchcore_selection.py
        "coreset_ratio": s["coreset_ratio"],
        "ok_images": sum(1 for l in splits["train"].labels if l == "OK"),
        **scored(model, s, [p for k in ("train", "test") for p, l in zip(splits[k].paths, splits[k].labels) if l == "NG"]),
        **({} if QUICK else heldout_all_ng(model)),
        "train_images_per_s": info["images_per_second"],
        "latency": latency(model),
        "bank": model.extra["bank_size"],
        "bank_views": model.extra["bank_views"],  # the shipped PatchCore (patchcore.BANK_VIEWS), chosen by images_patchcore_selection.py
    }

for algo, epochs, size in (("finetune", 3 if QUICK else 8, 96 if QUICK else 128), ("compact_cnn", 3 if QUICK else 10, 64)):
    if not wanted(algo):
        continue
    s = {
        **trainer.SETTINGS,
        "image_size": size,
        "epochs": epochs,
        "batch_size": 16,
        "learning_rate": 0.001 if algo == "finetune" else 0.003,
        "early_stopping": 0,
        "augmentation": {"hflip": True, "vflip": True},
    }
    model, info = trainer.train_classifier(algo, "analysis", ["OK", "NG"], splits, s, hooks, {"width": 32})
    out["models"][algo] = {
        "image_size": size,
        "epochs": epochs,
        "best_epoch": info["best_epoch"],
        **scored(model, s),
        "train_images_per_s": info["images_per_second"],
        "latency": latency(model),
    }


# Baseline: logistic regression on 32×32 grayscale pixels, C chosen on validation AUROC.
def pixels(paths):
    return np.stack([np.asarray(Image.open(p).convert("L").resize((32, 32), Image.BILINEAR), dtype=np.float32).ravel() / 255 for p in paths])


if not wanted("logreg_pixels"):
    out["load_average_end"] = list(os.getloadavg())
    print(json.dumps(out))
    sys.exit(0)
t0 = time.perf_counter()
Xtr, Xva, Xte = (pixels(splits[k].paths) for k in ("train", "validation", "test"))
ytr, yva, yte = ([1 if l == "NG" else 0 for l in splits[k].labels] for k in ("train", "validation", "test"))
best = None
for C in (0.01, 0.1, 1, 10):
    clf = LogisticRegression(C=C, max_iter=2000).fit(Xtr, ytr)
    auc = roc_auc_score(yva, clf.predict_proba(Xva)[:, 1])
    if best is None or auc > best[0]:
        best = (auc, C, clf)
clf = best[2]
vs, ts = clf.predict_proba(Xva)[:, 1].tolist(), clf.predict_proba(Xte)[:, 1].tolist()
th, _, _ = metrics.default_threshold(["NG" if y else "OK" for y in yva], vs, 99.0)
tb = metrics.binary(["NG" if y else "OK" for y in yte], ts, th)
out["models"]["logreg_pixels"] = {
    "image_size": 32,
    "C": best[1],
    "auroc": roc_auc_score(yte, ts),
    "f1": f1_score(yte, [int(v >= th) for v in ts], zero_division=0),
    "miss_rate": tb["miss_rate"],
    "over_detection_rate": tb["over_detection_rate"],
    "seconds": time.perf_counter() - t0,
}
out["load_average_end"] = list(os.getloadavg())
print(json.dumps(out))
