"""Issue 10: OK-only methods that learn on the OK images (SimpleNet-style discriminator, synthetic defects), chosen
on selection sets that hold no test image. The candidates and the rule are declared in
bench/images_okonly_candidates.json (committed before any score).

    BENCH_THREADS=1 .venv/bin/python bench/images_okonly_selection.py [--cache DIR] [--only ID,...] [--test]
        [--candidates bench/images_okonly_candidates_r2.json]

--candidates: round 2's declared candidates (OK jitter, patch-level fusion with PatchCore), written to
bench/results/images-okonly-selection-r2.json; its test look happens only if its best beats round 1's criterion.
--only none --test: no candidate scored again, only the test look for the chosen one (from the results file).

Selection sets as bench/images_patchcore_selection.py: select = 13 validation OK vs 85 train+validation NG (trained
on the 72 train OK); cv = the 72 train OK out of 4 folds (trained on the other 3) vs the same NG (mean over folds).
--test: after the selection, the chosen candidate (declared rule) is trained on the 72 train OK and scored on the
test split (15 OK / 15 NG) once; training seconds and latency per image are measured too.
Writes bench/results/images-okonly-selection.json (keeps the rows of earlier runs for candidates not run again).
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from sklearn.metrics import roc_auc_score
from torch import nn
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "bench"))
from images_split import selection_sets  # noqa: E402
from mitate_engine.images import patchcore  # noqa: E402
from mitate_engine.images.backbone import BACKBONE_PATCH_BLOCKS, load_backbone  # noqa: E402

torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
ARGS = sys.argv[1:]
CACHE = Path(ARGS[ARGS.index("--cache") + 1]) if "--cache" in ARGS else Path(tempfile.mkdtemp(prefix="okonly-cache-"))
CACHE.mkdir(parents=True, exist_ok=True)
ONLY = set(ARGS[ARGS.index("--only") + 1].split(",")) if "--only" in ARGS else None
TEST = "--test" in ARGS
DECL_FILE = ARGS[ARGS.index("--candidates") + 1] if "--candidates" in ARGS else "bench/images_okonly_candidates.json"
DECL = json.loads((ROOT / DECL_FILE).read_text())
ROUND2 = "r2" in Path(DECL_FILE).stem
RESULT = ROOT / "bench" / "results" / ("images-okonly-selection-r2.json" if ROUND2 else "images-okonly-selection.json")
ROUND1_BEST = 0.8829  # SN_SYN_s0.1 in images-okonly-selection.json (round 2's test look only if beaten)
SIZE, FOLDS, N_SYN, SEED = 128, 4, 4, 0
STEPS, BATCH, HIDDEN, MARGIN = 2000, 512, 256, 0.5
PATCHCORE_REF = {"criterion": 0.8774, "select_auc": 0.8516, "cv_auc": 0.9033, "test_auroc": 0.742}

splits, train_ok, val_ok, sel_ng = selection_sets("mitate-okonly-")
va, te = splits["validation"], splits["test"]
NETS: dict = {}


def net_for(name):
    if name not in NETS:
        NETS[name] = load_backbone(name=name).eval()
    return NETS[name]


def grey(path) -> np.ndarray:
    """The engine's input (RGB, squashed to SIZE x SIZE, bilinear) as one grey channel in [0, 1]."""
    im = Image.open(path).convert("RGB").resize((SIZE, SIZE), Image.BILINEAR)
    return np.asarray(im, dtype=np.float32).mean(axis=2) / 255.0


def feats(g: np.ndarray, net: str) -> torch.Tensor:
    """(C, 16, 16) patch features of a grey image, as patchcore.embed (3 equal channels scaled to [-1, 1])."""
    x = torch.from_numpy(((np.repeat(g[None], 3, 0) - 0.5) / 0.5).astype(np.float32))[None]
    return patchcore.embed(net_for(net), x, BACKBONE_PATCH_BLOCKS[net])[0]


def np_view(g: np.ndarray, v: str) -> np.ndarray:
    return patchcore.view(torch.from_numpy(g)[None, None], v)[0, 0].numpy().copy()


# ---- synthetic defects (declared in images_okonly_candidates.json) ----------------------------------------------


def _soft(mask: np.ndarray, rng) -> np.ndarray:
    k = np.array([1, 2, 1], np.float32) / 4
    m = mask.astype(np.float32)
    for _ in range(int(rng.integers(1, 3))):
        m = np.apply_along_axis(lambda r: np.convolve(r, k, "same"), 0, m)
        m = np.apply_along_axis(lambda r: np.convolve(r, k, "same"), 1, m)
    return np.maximum(m, mask.astype(np.float32))


def defect(g: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray, str]:
    """(image with one synthetic defect, boolean mask, kind)."""
    n = g.shape[0]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    kind = ["blob", "crack", "cutpaste", "edge", "uneven"][int(rng.integers(5))]
    out = g.copy()
    if kind == "blob":
        cy, cx = rng.uniform(8, n - 8, 2)
        ry, rx = rng.uniform(2, 8, 2)
        t = rng.uniform(0, np.pi)
        dy, dx = yy - cy, xx - cx
        u, w = dy * np.cos(t) + dx * np.sin(t), -dy * np.sin(t) + dx * np.cos(t)
        mask = (u / ry) ** 2 + (w / rx) ** 2 <= 1
        out = g * (1 - _soft(mask, rng) * (1 - rng.uniform(0.2, 0.6)))
    elif kind == "crack":
        mask = np.zeros((n, n), bool)
        y, x = rng.uniform(10, n - 10, 2)
        ang = rng.uniform(0, 2 * np.pi)
        width = int(rng.integers(1, 3))
        for _ in range(int(rng.integers(15, 61))):
            ang += rng.normal(0, 0.35)
            y, x = y + np.sin(ang), x + np.cos(ang)
            iy, ix = int(round(y)), int(round(x))
            mask[max(0, iy) : max(0, iy + width), max(0, ix) : max(0, ix + width)] = True
        out = g * (1 - mask * (1 - rng.uniform(0.3, 0.6)))
    elif kind == "cutpaste":
        h, w = rng.integers(8, 25, 2)
        sy, sx = rng.integers(0, n - h), rng.integers(0, n - w)
        patch = g[sy : sy + h, sx : sx + w]
        r = int(rng.integers(4))
        patch = np.rot90(patch, r) if r else patch[::-1]
        patch = np.clip(patch * rng.uniform(0.8, 1.2), 0, 1)
        ph, pw = patch.shape
        ty, tx = rng.integers(0, n - ph), rng.integers(0, n - pw)
        out[ty : ty + ph, tx : tx + pw] = patch
        mask = np.zeros((n, n), bool)
        mask[ty : ty + ph, tx : tx + pw] = True
    elif kind == "edge":
        side = int(rng.integers(4))
        a, b = sorted(rng.uniform(0, n, 2))
        b = min(n, max(b, a + 8))
        depth = rng.uniform(4, 20)
        along, across = (xx, yy) if side in (0, 1) else (yy, xx)
        across = across if side in (0, 2) else (n - 1 - across)
        mid, half = (a + b) / 2, (b - a) / 2
        mask = (along >= a) & (along <= b) & (across <= depth * (1 - np.abs(along - mid) / max(half, 1)))
        dark = float(np.percentile(g, 2))
        out = np.where(mask, np.clip(dark + rng.normal(0, 0.02, g.shape), 0, 1), g)
    else:  # uneven
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(10, 30)
        f = rng.uniform(0.6, 0.8) if rng.random() < 0.5 else rng.uniform(1.25, 1.5)
        bump = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        gain = 1 + (f - 1) * bump
        out = np.clip(g * gain, 0, 1)
        mask = np.abs(gain - 1) > 0.1
    return np.clip(out, 0, 1).astype(np.float32), mask, kind


def patch_labels(mask: np.ndarray) -> np.ndarray:
    """1 for feature cells (8 x 8 px) at least 5 % under the mask."""
    n = mask.shape[0] // 8
    return mask.reshape(n, 8, n, 8).mean(axis=(1, 3)).reshape(-1) >= 0.05


# ---- features, cached -----------------------------------------------------------------------------------------------


def extract(net: str) -> dict:
    key = CACHE / f"{net}.pt"
    if key.exists():
        return torch.load(key)
    t0 = time.perf_counter()
    rng = np.random.default_rng(SEED)
    views, syn, syn_img, kinds = [], [], [], []
    for i, p in enumerate(train_ok):
        g = grey(p)
        views.append(torch.stack([feats(np_view(g, v), net) for v in patchcore.BANK_VIEWS]))  # (8, C, 16, 16)
        for _ in range(N_SYN):
            v = patchcore.BANK_VIEWS[int(rng.integers(8))]
            d, m, k = defect(np_view(g, v), rng)
            lab = torch.from_numpy(patch_labels(m))
            f = feats(d, net)
            if lab.any():
                syn.append(f.permute(1, 2, 0).reshape(-1, f.shape[0])[lab])
                syn_img += [i] * int(lab.sum())
                kinds.append(k)
    ev = {Path(p).name: feats(grey(p), net) for p in val_ok + sel_ng}
    out = {
        "views": torch.stack(views),
        "syn": torch.cat(syn),
        "syn_img": torch.tensor(syn_img),
        "eval": ev,
        "kinds": kinds,
        "seconds": time.perf_counter() - t0,
    }
    torch.save(out, key)
    return out


def jitter_feats(net: str, copies: int) -> dict:
    """OK patches of `copies` more versions of each training OK image: a random view, brightness x0.8-1.2 and contrast
    x0.8-1.2 around the image mean (round 2)."""
    key = CACHE / f"{net}_jit{copies}.pt"
    if key.exists():
        return torch.load(key)
    rng = np.random.default_rng(SEED + 1)
    out, img = [], []
    for i, p in enumerate(train_ok):
        g = grey(p)
        for _ in range(copies):
            v = np_view(g, patchcore.BANK_VIEWS[int(rng.integers(8))])
            m = v.mean()
            v = np.clip((v - m) * rng.uniform(0.8, 1.2) + m * rng.uniform(0.8, 1.2), 0, 1).astype(np.float32)
            f = feats(v, net)
            out.append(f.permute(1, 2, 0).reshape(-1, f.shape[0]))
            img += [i] * f.shape[1] * f.shape[2]
    res = {"ok": torch.cat(out), "img": torch.tensor(img)}
    torch.save(res, key)
    return res


# ---- the learned model ----------------------------------------------------------------------------------------------


class Disc(nn.Module):
    def __init__(self, c: int, hidden: int):
        super().__init__()
        self.adaptor = nn.Linear(c, c)
        self.body = nn.Sequential(nn.Linear(c, hidden), nn.BatchNorm1d(hidden), nn.LeakyReLU(0.2))
        self.tail = nn.Linear(hidden, 1, bias=False)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)

    def d(self, a):
        return self.tail(self.body(a))[:, 0]


def train(ok: torch.Tensor, syn: torch.Tensor | None, method: str, sigma: float, seed: int = SEED):
    """ok: (N, C) raw OK patches; syn: (M, C) raw synthetic-defect patches. Returns (model, mean, std)."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    mu, sd = ok.mean(0), ok.std(0).clamp_min(1e-6)
    okz = (ok - mu) / sd
    synz = (syn - mu) / sd if syn is not None else None
    m = Disc(ok.shape[1], HIDDEN)
    opt_d = torch.optim.Adam([*m.body.parameters(), *m.tail.parameters()], lr=2e-4, weight_decay=1e-5)
    opt_a = torch.optim.AdamW(m.adaptor.parameters(), lr=1e-4)
    m.train()
    for _ in range(STEPS):
        t = m.adaptor(okz[torch.randint(len(okz), (BATCH,), generator=g)])
        if method == "simplenet":
            fake = t + torch.randn(t.shape, generator=g) * sigma
        elif method == "synthetic":
            fake = m.adaptor(synz[torch.randint(len(synz), (BATCH,), generator=g)])
        else:  # simplenet+synthetic: half noise, half synthetic defects
            h = BATCH // 2
            fake = torch.cat([t[:h] + torch.randn(t[:h].shape, generator=g) * sigma, m.adaptor(synz[torch.randint(len(synz), (BATCH - h,), generator=g)])])
        s = m.d(torch.cat([t, fake]))
        loss = F.relu(MARGIN - s[:BATCH]).mean() + F.relu(MARGIN + s[BATCH:]).mean()
        opt_d.zero_grad()
        opt_a.zero_grad()
        loss.backward()
        opt_d.step()
        opt_a.step()
    m.eval()
    return m, mu, sd


def raw_scores(model, patches: torch.Tensor) -> torch.Tensor:
    m, mu, sd = model[:3]
    with torch.no_grad():
        return -m.d(m.adaptor((patches - mu) / sd))


def patch_scores(model, f: torch.Tensor) -> torch.Tensor:
    patches = f.permute(1, 2, 0).reshape(-1, f.shape[0])
    s = raw_scores(model, patches)
    if len(model) == 3:
        return s
    _, _, _, bank, (ms, ss, mp, sp) = model  # round 2's fusion with PatchCore
    return ((s - ms) / ss + (patchcore.nearest_distance(patches, bank) - mp) / sp) / 2


def fit(ok: torch.Tensor, syn, c: dict):
    """round 1: train(); round 2's ensemble: + the PatchCore bank and both scores' statistics on training OK patches."""
    model = train(ok, syn, c["method"], float(c.get("sigma", 0.0)))
    if not c.get("ensemble"):
        return model
    bank = ok[patchcore.coreset(ok, int(math.ceil(ok.shape[0] * 0.05)), seed=SEED)].contiguous()
    sample = ok[torch.randperm(ok.shape[0], generator=torch.Generator().manual_seed(SEED))[:20000]]
    s, d = raw_scores(model, sample), patchcore.nearest_distance(sample, bank)
    return (*model, bank, (float(s.mean()), float(s.std()), float(d.mean()), float(d.std())))


def img_score(model, f) -> float:
    return float(patch_scores(model, f).max())


def flat(views: torch.Tensor) -> torch.Tensor:
    """(n, 8, C, h, w) -> (n * 8 * h * w, C)"""
    return views.permute(0, 1, 3, 4, 2).reshape(-1, views.shape[2])


def evaluate(c: dict) -> dict:
    net = c.get("net", "lite0")
    t0 = time.perf_counter()
    data = extract(net)
    extract_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    jit = jitter_feats(net, int(c["jitter"])) if c.get("jitter") else None
    okall = torch.cat([flat(data["views"]), jit["ok"]]) if jit else flat(data["views"])
    model = fit(okall, data["syn"], c)
    train_seconds = time.perf_counter() - t0
    ok = [img_score(model, data["eval"][Path(p).name]) for p in val_ok]
    ng = [img_score(model, data["eval"][Path(p).name]) for p in sel_ng]
    select = roc_auc_score([0] * len(ok) + [1] * len(ng), ok + ng)
    oof, ngf = [], []
    for k in range(FOLDS):
        keep = [i for i in range(len(train_ok)) if i % FOLDS != k]
        sel = torch.isin(data["syn_img"], torch.tensor(keep))
        okk = flat(data["views"][keep])
        if jit:
            okk = torch.cat([okk, jit["ok"][torch.isin(jit["img"], torch.tensor(keep))]])
        mk = fit(okk, data["syn"][sel], c)
        oof += [img_score(mk, data["views"][i, 0]) for i in range(len(train_ok)) if i % FOLDS == k]
        ngf.append([img_score(mk, data["eval"][Path(p).name]) for p in sel_ng])
    cv = roc_auc_score([0] * len(oof) + [1] * len(sel_ng), oof + list(np.mean(ngf, axis=0)))
    return {
        **c,
        "select_auc": round(select, 4),
        "cv_auc": round(cv, 4),
        "criterion": round((select + cv) / 2, 4),
        "train_seconds_72ok": round(train_seconds, 1),
        "seconds": round(time.perf_counter() - t0, 1),
        "extract_seconds": round(extract_seconds, 1),
        "patches": {"ok": int(okall.shape[0]), "synthetic_defect": int(data["syn"].shape[0])},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def pick(rows):
    top = max(r["criterion"] for r in rows)
    order = [c["id"] for c in DECL["candidates"]]
    return min(
        (r for r in rows if r["criterion"] >= top - 0.002),
        key=lambda r: (r.get("net", "lite0") != "lite0", order.index(r["id"]) if r["id"] in order else len(order)),
    )


prev = json.loads(RESULT.read_text()) if RESULT.exists() else {}
rows = {r["id"]: r for r in prev.get("candidates", [])}
out = {
    "name": "images-okonly-selection" + ("-r2" if ROUND2 else ""),
    "declared": DECL_FILE,
    "machine": {"cpus": os.cpu_count(), "threads": torch.get_num_threads(), "load_average_start": list(os.getloadavg())},
    "data": f"magnetic_tile_okng, platform split seed 0: select = {len(val_ok)} validation OK vs {len(sel_ng)} train+validation NG (trained on {len(train_ok)} train OK); cv = {len(train_ok)} train OK out of {FOLDS} folds vs the same NG; test ({te.labels.count('OK')} OK / {te.labels.count('NG')} NG) only for the chosen candidate",
    "settings": {"image_size": SIZE, "steps": STEPS, "batch": BATCH, "hidden": HIDDEN, "margin": MARGIN, "synthetic_per_ok_image": N_SYN, "seed": SEED},
    "patchcore_reference": PATCHCORE_REF | {"source": "bench/results/images-patchcore-lite-selection.json (L0_4-10_128) and images-patchcore.json"},
}
candidates = [{k: v for k, v in c.items() if k != "note"} for c in DECL["candidates"]]
for c in candidates:
    if ONLY is None or c["id"] in ONLY:
        rows[c["id"]] = evaluate(c)
        print(json.dumps(rows[c["id"]]), file=sys.stderr, flush=True)
        RESULT.write_text(json.dumps(out | {"candidates": list(rows.values())}, indent=1) + "\n")
stage1 = [rows[c["id"]] for c in candidates if c["id"] in rows]
if len(stage1) == len(candidates) and DECL.get("stage2_on_best"):
    best1 = pick(stage1)
    for s2 in DECL["stage2_on_best"]:
        c = {k: v for k, v in best1.items() if k in ("method", "net", "sigma")} | {k: v for k, v in s2.items() if k not in ("note", "id")}
        c = {"id": best1["id"] + s2["id"], **c}
        if (ONLY is None or c["id"] in ONLY or s2["id"] in ONLY) and c["id"] not in rows:
            rows[c["id"]] = evaluate(c)
            print(json.dumps(rows[c["id"]]), file=sys.stderr, flush=True)
            RESULT.write_text(json.dumps(out | {"candidates": list(rows.values())}, indent=1) + "\n")
out["candidates"] = list(rows.values())
best = pick(out["candidates"])
out["chosen"] = best["id"]
out["beats_patchcore_on_criterion"] = best["criterion"] > PATCHCORE_REF["criterion"]
if ROUND2:
    out["beats_round1_best"] = best["criterion"] > ROUND1_BEST
    if TEST and not out["beats_round1_best"]:
        sys.exit("round 2's best does not beat round 1's: no test look (declared rule)")

if TEST:
    # once, for the chosen candidate: trained on the 72 train OK, scored on test (and on the validation split)
    c = best
    net = c.get("net", "lite0")
    data = extract(net)
    t0 = time.perf_counter()
    jit = jitter_feats(net, int(c["jitter"])) if c.get("jitter") else None
    model = fit(torch.cat([flat(data["views"]), jit["ok"]]) if jit else flat(data["views"]), data["syn"], c)
    fit_seconds = time.perf_counter() - t0
    ts = [img_score(model, feats(grey(p), net)) for p in te.paths]
    vs = [img_score(model, feats(grey(p), net)) for p in va.paths]
    lat = []
    for p in te.paths[:20]:
        t1 = time.perf_counter()
        img_score(model, feats(grey(p), net))
        lat.append((time.perf_counter() - t1) * 1000)
    thr = float(np.percentile([img_score(model, data["views"][i, 0]) for i in range(len(train_ok))], 99))
    out["test"] = {
        "candidate": c["id"],
        "test_auroc": round(roc_auc_score([l == "NG" for l in te.labels], ts), 4),
        "validation_auroc": round(roc_auc_score([l == "NG" for l in va.labels], vs), 4),
        "test_ng_flagged_at_train_ok_p99": int(sum(s > thr and l == "NG" for s, l in zip(ts, te.labels))),
        "test_ok_flagged_at_train_ok_p99": int(sum(s > thr and l == "OK" for s, l in zip(ts, te.labels))),
        "train_seconds": {"features_8_views_and_synthetic": round(data["seconds"], 1), "discriminator": round(fit_seconds, 1)},
        "latency_ms_per_image": {
            "median": round(float(np.median(lat)), 1),
            "p95": round(float(np.percentile(lat, 95)), 1),
            "what": "grey load + resize + backbone + adaptor + discriminator, one image, one thread",
        },
        "load_average": list(os.getloadavg()),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
out["machine"]["load_average_end"] = list(os.getloadavg())
RESULT.write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out, indent=1))
