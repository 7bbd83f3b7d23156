"""Issue 9 benchmark (run by tsad.bench.mjs): SKAB protocol, Tennessee Eastman missed/false-alarm rates, scoring speed.
Peers in the same run: PyOD IsolationForest with its defaults and a plain scikit-learn PCA T²+Q."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
from mitate_engine.timeseries import metrics as MET  # noqa: E402
from mitate_engine.timeseries.detectors import make  # noqa: E402
from mitate_engine.timeseries.features import window_features  # noqa: E402
from mitate_engine.timeseries.model import TsadModel  # noqa: E402

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or ROOT.parent / "shared" / "data")  # a worktree may set it
QUICK = "--quick" in sys.argv
SKAB_FILES = ["valve1/0.csv", "valve1/1.csv", "valve2/0.csv", "other/9.csv", "other/13.csv"]
SIGNALS = ["Accelerometer1RMS", "Accelerometer2RMS", "Current", "Pressure", "Temperature", "Thermocouple", "Voltage", "Volume Flow RateRMS"]
# The first rule, fixed in advance for every file (not chosen per file): PCA-MSPC at 99 % limits on the raw signals and
# their trailing 5-row mean, trained on the first 400 rows (SKAB's protocol), alarm 1 of 1. Kept as "ours_v1_w5_mean".
OURS_V1 = {"algorithm": "pca_mspc", "params": {"confidence": 0.99, "explained_variance": 0.9}, "windows": [5], "stats": ("mean",)}
# "ours" since the drifting-signals setting (brief tsadrift): the configuration declared in advance as
# C2_dslow45_c995_10of20 in tsad_skab_candidates.json, expressed as the product's training settings and trained through
# the product's own functions (trainer.prepare, trainer.fit_model), the same settings for every file. Not retuned here.
OURS = {
    "algorithm": "pca_mspc",
    "params": {"confidence": 0.995, "explained_variance": 0.9, "alarm_k": 10, "alarm_n": 20},
    "windows": [5],
    "window_stats": ["mean"],
    "drift_signals": ["Temperature", "Thermocouple"],
    "drift_rows": 45,
    "normal_rows": 400,
    "declared_as": "bench/tsad_skab_candidates.json: C2_dslow45_c995_10of20",
}
VARIANTS = {
    "pca_mspc_raw": {"algorithm": "pca_mspc", "params": {"confidence": 0.99, "explained_variance": 0.9}, "windows": [], "stats": ("mean",)},
    "isolation_forest_w5": {"algorithm": "isolation_forest", "params": {}, "windows": [5], "stats": ("mean",)},
    "robust_z_w5": {"algorithm": "robust_z", "params": {}, "windows": [5], "stats": ("mean",)},
    "autoencoder_w5": {"algorithm": "autoencoder", "params": {"epochs": 40}, "windows": [5], "stats": ("mean",)},
}


def in_sample_threshold(det, train_scores=None) -> float:
    """The default threshold as it was before issue 30, read on the training rows themselves (these studies were run
    and reported with it): PCA-MSPC's textbook limits (1), a percentile detector's percentile of its training scores,
    the sequence autoencoder's quantile of its training windows' errors times its factor. The product now sets its
    thresholds on held-back normal rows (trainer.fit_model, detectors.held_back_quantile)."""
    inner = getattr(det, "det", det)
    if hasattr(inner, "train_errors_"):
        return float(np.quantile(inner.train_errors_, inner.p["quantile"]) * inner.p["factor"])
    if hasattr(inner, "m") and hasattr(inner.m, "t2_limit_"):
        return 1.0
    s = np.asarray(train_scores, dtype=float)
    return float(np.percentile(s[~np.isnan(s)], inner.p["percentile"]))


def pooled(rows):
    tp, fp, fn, tn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn", "tn"))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "f1": 2 * p * r / (p + r) if p + r else 0.0,
        "far": fp / (fp + tn) if fp + tn else 0.0,
        "mar": fn / (fn + tp) if fn + tp else 0.0,
        "precision": p,
        "recall": r,
    }


def ours_on(df, cfg):
    F = window_features(df, SIGNALS, [], cfg["windows"], stats=cfg["stats"])
    X = F.bfill().to_numpy(float)  # the first rows' trailing windows are incomplete; their own values stand in
    det, _ = make(cfg["algorithm"], cfg["params"])
    det.fit(X[:400])
    s = det.score(X)
    thr = in_sample_threshold(det, s[:400])
    return s[400:] > thr


def ours_product(df: pd.DataFrame, cfg: dict = OURS) -> np.ndarray:
    """Every row's alarm from the product's detector: the file written as the dataset the product reads (datetime
    parsed), prepared and trained by the training job's own functions with the settings a person would give in the
    wizard (signals, 5-row window with its mean only, Temperature and Thermocouple drifting over 45 rows, the first
    400 rows as the normal period, PCA-MSPC 99.5 %, 90 % variance, alarm 10 of the last 20 rows); alarm = score over
    the trained threshold. The warm-up rows (the first 45) have no score, as in the product."""
    import tempfile

    from mitate_engine.timeseries.trainer import UNSUPERVISED, fit_model, prepare

    data = df.assign(datetime=pd.to_datetime(df["datetime"]))
    with tempfile.TemporaryDirectory() as d:
        data.to_parquet(Path(d) / "data.parquet", index=False)
        spec = {
            "project_type": UNSUPERVISED,
            "parquet": str(Path(d) / "data.parquet"),
            "time_column": "datetime",
            "features": SIGNALS,
            "target": "anomaly" if "anomaly" in df.columns else None,
            "lags": [],
            "windows": cfg["windows"],
            "window_stats": cfg["window_stats"],
            "drift_signals": cfg["drift_signals"],
            "drift_rows": cfg["drift_rows"],
            "normal": {"mode": "rows", "rows": cfg["normal_rows"]},
        }
        prep = prepare(spec)
        model, score, _ = fit_model(prep, spec, cfg["algorithm"], cfg["params"])
    return np.nan_to_num(score, nan=-np.inf) > model.threshold


def plain_t2q(train, test, a=None, conf=0.99):
    from sklearn.decomposition import PCA

    mu, sd = train.mean(0), train.std(0, ddof=1)
    sd[sd == 0] = 1
    Z, Zt = (train - mu) / sd, (test - mu) / sd
    pca = PCA().fit(Z)
    if a is None:
        a = int(np.searchsorted(np.cumsum(pca.explained_variance_ratio_), 0.9) + 1)
    n = len(Z)
    P, lam = pca.components_[:a].T, pca.explained_variance_[:a]
    T = Zt @ P
    t2 = (T**2 / lam).sum(1)
    q = ((Zt - T @ P.T) ** 2).sum(1)
    t2lim = a * (n - 1) * (n + 1) / (n * (n - a)) * stats.f.ppf(conf, a, n - a)
    rest = pca.explained_variance_[a:]
    th1, th2, th3 = (np.sum(rest**i) for i in (1, 2, 3))
    h0 = 1 - 2 * th1 * th3 / (3 * th2**2)
    c = stats.norm.ppf(conf)
    qlim = th1 * (c * np.sqrt(2 * th2 * h0**2) / th1 + 1 + th2 * h0 * (h0 - 1) / th1**2) ** (1 / h0)
    return t2 > t2lim, q > qlim


def skab_reference_t2q(train, test, explained=0.85, p=0.999, median_rows=5):
    """The SKAB leaderboard's own T²+Q settings (waico/SKAB notebooks/t2_with_q_SKAB.ipynb with core/t2.py), written
    here from their description: constant training columns dropped, standardised on the training rows, PCA keeping
    85 % of the variance, limits at p = 0.999 (the F quantile and the normal quantile read off a 0..15 grid of
    10,000 points, as there), the Q limit's θ_i taken as (Σ residual eigenvalues)^i as there (not Σ λ^i), the
    residual eigenvalues taken in numpy.linalg.eig's order, T² and Q each smoothed by a trailing 5-row median; an
    alarm when either exceeds its limit (rows whose median is incomplete are not alarms)."""
    keep = np.ptp(train, axis=0) > 0
    train, test = train[:, keep], test[:, keep]
    mu, sd = train.mean(0), train.std(0)
    Z, Zt = (train - mu) / sd, (test - mu) / sd
    cov = np.cov(Z.T)
    lam, vec = np.linalg.eigh(cov)
    order = np.argsort(lam)[::-1]
    lam, vec = lam[order], vec[:, order]
    a = int(np.searchsorted(np.cumsum(lam) / lam.sum(), explained, side="right") + 1)
    n = len(Z)
    grid = np.linspace(0, 15, 10000)
    t2lim = a * (n - 1) * (n + 1) / (n * (n - a)) * grid[stats.f.cdf(grid, a, n - a) < p][-1]
    w = np.linalg.eig(cov)[0].real
    s = float(np.sum(w[a:]))
    th1, th2, th3 = s, s**2, s**3
    h0 = 1 - 2 * th1 * th3 / (3 * th2**2)
    c = grid[stats.norm.cdf(grid) < p][-1]
    qlim = th1 * (1 + c * h0 * np.sqrt(2 * th2) / th1 + th2 * h0 * (h0 - 1) / th1**2) ** (1 / h0)
    P = vec[:, :a]
    T = Zt @ P
    t2 = pd.Series((T**2 / lam[:a]).sum(1)).rolling(median_rows).median().to_numpy()
    q = pd.Series(((Zt - T @ P.T) ** 2).sum(1)).rolling(median_rows).median().to_numpy()
    return (np.nan_to_num(t2) > t2lim) | (np.nan_to_num(q) > qlim)


def sequence_ae_on(df):
    """The sequence autoencoder with the SKAB leaderboard's Conv-AE settings (window 60, threshold = 4/3 x the
    99.9 % quantile of the training windows' errors), trained once per file on the first 400 rows, read three ways:
    causal with every row on its own; causal needing 59 consecutive windows over the line (the leaderboard's "all
    59 windows" rule turned to look back only); and the leaderboard's rule itself, which labels row i from the
    windows that start at i-59..i-1 (so it sees 58 rows after i) and can never alarm on the first 59 or the last
    118 scored rows."""
    from mitate_engine.timeseries.detectors import persist

    X = df[SIGNALS].to_numpy(float)
    det, _ = make("sequence_autoencoder", {"window": 60, "quantile": 0.999, "factor": 4 / 3, "persistence": 1})
    det.fit(X[:400])
    thr = in_sample_threshold(det)
    raw = det.score(X)  # row t: the window ending at t
    causal = np.nan_to_num(raw, nan=-np.inf)[400:] > thr
    causal59 = np.nan_to_num(persist(raw, 59), nan=-np.inf)[400:] > thr
    # the leaderboard's reading: windows of the scored part only, window k = rows k..k+59 of it
    w = 60
    over = det.window_errors(X[400:]).sum(axis=1)[w - 1 :] > thr  # by first row of the window
    n = len(X) - 400
    board = np.zeros(n, dtype=bool)
    for i in range(w - 1, len(over) - w + 1):
        board[i] = bool(np.all(over[i - w + 1 : i]))
    return {"sequence_ae": causal, "sequence_ae_persist59": causal59, "sequence_ae_leaderboard_rule_uses_later_rows": board}, det.epochs_run_


def where_false_alarms(alarm, y):
    """False-alarm rate in the normal rows before the file's anomaly and in those after it."""
    i0 = int(np.argmax(y))
    i1 = len(y) - int(np.argmax(y[::-1]))
    return {
        "before_anomaly": float(alarm[:i0].mean()) if i0 else None,
        "after_anomaly": float(alarm[i1:].mean()) if i1 < len(y) else None,
        "rows_before": i0,
        "rows_after": len(y) - i1,
    }


def skab():
    from pyod.models.iforest import IForest

    out = {
        "files": SKAB_FILES,
        "protocol": "first 400 rows train, the rest scored; point-wise metrics pooled over all files",
        "ours_rule": OURS,
        "ours_v1_w5_mean_rule": {**OURS_V1, "stats": list(OURS_V1["stats"])},
        "ours_note": (
            "ours = the product's detector (trainer.prepare + fit_model) with the settings of C2_dslow45_c995_10of20;"
            " ours_v1_w5_mean = the earlier rule (raw signals + 5-row mean, PCA-MSPC 99 %, alarm 1 of 1)."
        ),
        "per_file": {},
    }
    seq_keys = ["sequence_ae", "sequence_ae_persist59", "sequence_ae_leaderboard_rule_uses_later_rows"]
    rows = {k: [] for k in ["ours", "ours_v1_w5_mean", "pyod_iforest_defaults", "plain_t2_q", "skab_reference_t2q", *VARIANTS, *seq_keys]}
    out["sequence_ae_epochs"] = {}
    for f in SKAB_FILES:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        y = df["anomaly"].to_numpy()[400:] > 0
        X = df[SIGNALS].to_numpy(float)
        res = {"ours": ours_product(df)[400:], "ours_v1_w5_mean": ours_on(df, OURS_V1)}
        for k, cfg in VARIANTS.items():
            res[k] = ours_on(df, cfg)
        pyod = IForest(random_state=0).fit(X[:400])
        res["pyod_iforest_defaults"] = pyod.predict(X[400:]) > 0
        t2, q = plain_t2q(X[:400], X[400:])
        res["plain_t2_q"] = t2 | q
        res["skab_reference_t2q"] = skab_reference_t2q(X[:400], X[400:])
        seq, epochs = sequence_ae_on(df)
        res.update(seq)
        out["sequence_ae_epochs"][f] = epochs
        out["per_file"][f] = {}
        for k, alarm in res.items():
            m = MET.pointwise(alarm, y)
            rows[k].append(m)
            out["per_file"][f][k] = {"f1": m["f1"], "far": m["far"], "mar": m["mar"], "false_alarms": where_false_alarms(np.asarray(alarm, bool), y)}
    out["pooled"] = {k: pooled(v) for k, v in rows.items()}
    # The anomaly-free recording under the same protocol (first 400 rows train, the other 9,005 scored): every alarm
    # is false.
    free = pd.read_csv(DATA / "skab_subset" / "anomaly-free" / "anomaly-free.csv", sep=";")
    Xf = free[SIGNALS].to_numpy(float)
    t2, q = plain_t2q(Xf[:400], Xf[400:])
    out["anomaly_free_far"] = {
        "ours": float(np.mean(ours_product(free)[400:])),
        "ours_v1_w5_mean": float(np.mean(ours_on(free, OURS_V1))),
        "plain_t2_q": float(np.mean(t2 | q)),
        "skab_reference_t2q": float(np.mean(skab_reference_t2q(Xf[:400], Xf[400:]))),
    }
    fa = {}
    for k in rows:
        b = [(v[k]["false_alarms"]["before_anomaly"], v[k]["false_alarms"]["rows_before"]) for v in out["per_file"].values()]
        c = [(v[k]["false_alarms"]["after_anomaly"], v[k]["false_alarms"]["rows_after"]) for v in out["per_file"].values()]
        fa[k] = {
            "far_before_anomaly": sum(r * n for r, n in b if r is not None) / sum(n for _, n in b),
            "far_after_anomaly": sum(r * n for r, n in c if r is not None) / sum(n for _, n in c),
        }
    out["false_alarms_before_after"] = fa
    out["ours_finding"] = (
        "ours is now the product's own detector (trainer.prepare + fit_model, as a training job runs it) with the"
        " settings declared in advance as C2_dslow45_c995_10of20: Temperature and Thermocouple enter as their change"
        " over 45 rows only, the other six signals as value + trailing 5-row mean, PCA-MSPC at 99.5 % with 90 % of the"
        " variance, alarm 10 of the last 20 rows; the same for every file, nothing tuned on these figures. It differs"
        " from the research script (bench/tsad_skab_design.py, 0.792 / 14.2 % / 26.4 %) only at the start of each file:"
        " the product has a 45-row warm-up (no score, counted as not over the line by the alarm rule) and fits on the"
        " 355 rows 45..399 of the normal period, where the script filled the first 45 changes with 0 (and the first"
        " rows' means with fewer rows) and fitted on all 400. The normal rows after each anomaly are what the change"
        " features fix (far_after_anomaly 82 % -> 28 %); the anomaly-free recording is still alarmed almost everywhere"
        " (anomaly_free_far): its fast signals also move away from the first 400 rows."
    )
    out["finding"] = (
        "(Written for the earlier rule, now ours_v1_w5_mean.) About half of each file's scored normal rows (~170) come after its anomaly, and there the rig does not return"
        " to the state of the first 400 rows: every PCA detector here (ours, plain T²+Q, the leaderboard's own T²+Q"
        " settings) alarms on 82-100 % of them in 4 of the 5 files (false_alarms_before_after; per_file.*.false_alarms),"
        " while the leaderboard's T²+Q settings raise no alarm at all in the normal rows before the anomaly. So the"
        " 40-50 % FAR is the protocol on these 5 files, not our T²+Q: the leaderboard's own settings get F1 0.60 /"
        " FAR 40 % here (26.6 % is its figure pooled over all 34 files). The anomaly-free recording under the same"
        " protocol is alarmed almost everywhere (anomaly_free_far): 400 rows (under 7 min) do not cover the rig's"
        " normal drift. The leaderboard's Conv-AE (window 60, limit 4/3 x the 99.9 % quantile, alarm only after 59"
        " windows over it) and MSET (a centred 60-row moving mean) also use rows after t to decide row t; our rules"
        " are causal. Not met, and not tuned on these files. The sequence autoencoder (the leaderboard's Conv-AE"
        " architecture and threshold, 4/3 x the 99.9 % quantile of the training windows' errors) shows where the"
        " leaderboard's 13.6 % FAR comes from: read by the leaderboard's own rule (row i alarmed when the 59 windows"
        " starting at i-59..i-1 are all over the limit, i.e. using 58 rows after i, and the first 59 and last 118"
        " scored rows never alarmed, which removes most of the ~170 normal rows after each anomaly) the same trained"
        " network gives sequence_ae_leaderboard_rule_uses_later_rows; read causally (the window ending at t, alone or"
        " 59 in a row) it gives sequence_ae / sequence_ae_persist59, with the after-anomaly rows alarmed as every"
        " other detector here. The pre-declared rule (ours) is unchanged."
    )
    out["goal"] = "F1 above 0.78 (leaderboard best, Conv-AE / MSET) with FAR under 15 %"
    return out


def causal_variants(with_sequence_ae: bool = True):
    """Brief tsad9 item 5: causal post-processing of the scores on SKAB (first 400 rows train, the rest scored),
    each threshold chosen on the training period's own (post-processed) scores, nothing looking at a later row:
    - base: the detector's score against its own default threshold (PCA-MSPC: the 99 % control limits);
    - ewma{k}: the score smoothed by an exponentially weighted mean over ~k rows (span k, causal), threshold the
      99th percentile (q99) or the maximum (max) of the smoothed training scores;
    - {k}of{n}: an alarm at t when at least k of the rows t-n+1..t are over the detector's threshold (SKAB's own
      rules are of this kind, but theirs look at later rows);
    - ewma{k}_{j}of{n}: both.
    Point-wise F1 / FAR / MAR pooled over the files; detection delay = rows from each event's start to its first
    alarm (mean over detected events); FAR split into the normal rows before and after each file's anomaly."""

    def ewma(x, k):
        return pd.Series(x).ewm(span=k, adjust=False, ignore_na=True).mean().to_numpy()

    def k_of_n(over, k, n):
        return pd.Series(over.astype(float)).rolling(n, min_periods=n).sum().fillna(0).to_numpy() >= k

    def scores(df, det_key):
        X_raw = df[SIGNALS].to_numpy(float)
        if det_key == "sequence_ae":
            det, _ = make("sequence_autoencoder", {"window": 60, "quantile": 0.999, "factor": 4 / 3, "persistence": 1})
            det.fit(X_raw[:400])
            s = det.score(X_raw)
            return s, in_sample_threshold(det)
        cfg = {"pca_mspc_raw": VARIANTS["pca_mspc_raw"], "pca_mspc_w5": OURS_V1}[det_key]
        F = window_features(df, SIGNALS, [], cfg["windows"], stats=cfg["stats"])
        X = F.bfill().to_numpy(float)
        det, _ = make(cfg["algorithm"], cfg["params"])
        det.fit(X[:400])
        s = det.score(X)
        return s, in_sample_threshold(det, s[:400])

    rules = ["base"]
    rules += [f"ewma{k}_{t}" for k in (5, 10, 20, 40) for t in ("q99", "max")]
    rules += [f"{k}of{n}" for k, n in ((3, 5), (5, 10), (8, 10), (15, 20), (30, 40))]
    rules += [f"ewma{k}_max_{j}of{n}" for k in (10, 20) for j, n in ((5, 10), (15, 20))]

    def apply(rule, s, thr):
        if rule == "base":
            return np.nan_to_num(s, nan=-np.inf) > thr
        if rule.startswith("ewma"):
            parts = rule.split("_")
            k = int(parts[0][4:])
            e = ewma(s, k)
            et = e[:400][~np.isnan(e[:400])]
            t = float(np.max(et)) if parts[1] == "max" else float(np.percentile(et, 99))
            over = np.nan_to_num(e, nan=-np.inf) > t
            if len(parts) == 3:
                j, n = (int(v) for v in parts[2].split("of"))
                return k_of_n(over, j, n)
            return over
        j, n = (int(v) for v in rule.split("of"))
        return k_of_n(np.nan_to_num(s, nan=-np.inf) > thr, j, n)

    dets = ["pca_mspc_raw", "pca_mspc_w5", *(["sequence_ae"] if with_sequence_ae else [])]
    rows = {d: {r: [] for r in rules} for d in dets}
    delays = {d: {r: [] for r in rules} for d in dets}
    events = {d: {r: [0, 0] for r in rules} for d in dets}
    before_after = {d: {r: [0, 0, 0, 0] for r in rules} for d in dets}
    for f in SKAB_FILES:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        y = df["anomaly"].to_numpy()[400:] > 0
        i0 = int(np.argmax(y))
        i1 = len(y) - int(np.argmax(y[::-1]))
        for d in dets:
            s, thr = scores(df, d)
            for r in rules:
                alarm = apply(r, s, thr)[400:]
                rows[d][r].append(MET.pointwise(alarm, y))
                ev = MET.event_level(alarm, y)
                events[d][r][0] += ev["events_detected"]
                events[d][r][1] += ev["events"]
                delays[d][r] += [e["delay_rows"] for e in ev["per_event"] if e["detected"]]
                ba = before_after[d][r]
                ba[0] += int(alarm[:i0].sum())
                ba[1] += i0
                ba[2] += int(alarm[i1:].sum())
                ba[3] += len(y) - i1
    out = {}
    for d in dets:
        out[d] = {}
        for r in rules:
            m = pooled(rows[d][r])
            ba = before_after[d][r]
            out[d][r] = {
                "f1": round(m["f1"], 4),
                "far": round(m["far"], 4),
                "mar": round(m["mar"], 4),
                "events_detected": f"{events[d][r][0]}/{events[d][r][1]}",
                "mean_delay_rows": round(float(np.mean(delays[d][r])), 1) if delays[d][r] else None,
                "far_before_anomaly": round(ba[0] / ba[1], 4) if ba[1] else None,
                "far_after_anomaly": round(ba[2] / ba[3], 4) if ba[3] else None,
            }
    return {"files": SKAB_FILES, "rules": rules, "by_detector": out}


# Brief tsad (drift): one time-boxed attempt at a causal detector that may cope with the rig's drift after each anomaly.
# Declared here, and committed, before any of these variants was run on the scored rows; not tuned afterwards.
DRIFT_DECLARATION = {
    "declared_before_scoring": True,
    "primary": "dynamics_mspc",
    "ship_rule": (
        "Only the primary variant can be shipped, and only if its pooled point-wise F1 > 0.78 and FAR < 0.15 on the 5"
        " SKAB files (first 400 rows train, the rest scored). The other two are reported for information: if one of"
        " them met the goal and the primary did not, it would not be shipped (picking it would be choosing on the"
        " scored rows)."
    ),
    "variants": {
        "dynamics_mspc": (
            "Dynamics rather than level: per signal the first difference x_t - x_(t-1) and the trailing 10-row standard"
            " deviation (rows <= t); PCA-MSPC (90 % explained variance, 99 % T² and Q limits) fitted on the first 400"
            " rows (incomplete first rows take the first complete value, as the main rule); alarm when T² or Q is over"
            " its limit (score > 1)."
        ),
        "gated_adaptive_mspc": (
            "The main rule's features (raw signals and their trailing 5-row mean) and its PCA-MSPC (loadings,"
            " eigenvalues, 99 % limits from the first 400 rows); after training, the standardisation mean and variance"
            " follow the data with a forgetting factor 0.99 (about 100 rows of memory), updated with row t only when row"
            " t raised no alarm (row t is scored with the state from rows < t)."
        ),
        "gated_adaptive_level_and_dynamics": ("Both feature sets together (raw, 5-row mean, first difference, 10-row std) with the gated adaptation above."),
    },
}


def _dynamics(df):
    base = df[SIGNALS].astype(float)
    cols = {f"{c}__diff": base[c].diff() for c in SIGNALS}
    cols.update({f"{c}__std10": base[c].rolling(10, min_periods=10).std() for c in SIGNALS})
    return pd.DataFrame(cols, index=df.index)


def _level(df):
    return window_features(df, SIGNALS, [], OURS_V1["windows"], stats=OURS_V1["stats"])


def _gated_adaptive_alarms(X, lam=0.99):
    """PCA-MSPC from X[:400]; then mean/variance of the standardisation follow rows with no alarm (forgetting
    factor lam). Row t is scored with the state built from rows < t. Returns the alarms of every row."""
    det, _ = make("pca_mspc", OURS_V1["params"])
    det.fit(X[:400])
    m = det.m
    mean, var = m.mean_.copy(), m.scale_.copy() ** 2
    alarm = np.zeros(len(X), dtype=bool)
    for t in range(len(X)):
        z = (X[t] - mean) / np.sqrt(np.where(var > 0, var, 1.0))
        tt = z @ m.P_
        t2 = float(np.sum(tt**2 / m.lam_))
        q = float(np.sum((z - tt @ m.P_.T) ** 2))
        over = t2 > m.t2_limit_ or (m.q_limit_ > 0 and q > m.q_limit_)
        alarm[t] = over
        if t >= 400 and not over:
            d = X[t] - mean
            mean = mean + (1 - lam) * d
            var = lam * var + (1 - lam) * d**2
    return alarm


def drift_variants():
    """The declared variants (DRIFT_DECLARATION) on the 5 SKAB files and the anomaly-free recording."""

    def run(df):
        dyn = _dynamics(df).bfill().to_numpy(float)
        lev = _level(df).bfill().to_numpy(float)
        det, _ = make("pca_mspc", OURS_V1["params"])
        det.fit(dyn[:400])
        return {
            "dynamics_mspc": det.score(dyn) > in_sample_threshold(det),
            "gated_adaptive_mspc": _gated_adaptive_alarms(lev),
            "gated_adaptive_level_and_dynamics": _gated_adaptive_alarms(np.hstack([lev, dyn])),
        }

    keys = list(DRIFT_DECLARATION["variants"])
    rows = {k: [] for k in keys}
    per_file = {}
    ba = {k: [0, 0, 0, 0] for k in keys}
    events = {k: [0, 0, []] for k in keys}
    for f in SKAB_FILES:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        y = df["anomaly"].to_numpy()[400:] > 0
        i0 = int(np.argmax(y))
        i1 = len(y) - int(np.argmax(y[::-1]))
        per_file[f] = {}
        for k, a in run(df).items():
            alarm = np.asarray(a, bool)[400:]
            m = MET.pointwise(alarm, y)
            rows[k].append(m)
            per_file[f][k] = {"f1": m["f1"], "far": m["far"], "mar": m["mar"], "false_alarms": where_false_alarms(alarm, y)}
            ba[k][0] += int(alarm[:i0].sum())
            ba[k][1] += i0
            ba[k][2] += int(alarm[i1:].sum())
            ba[k][3] += len(y) - i1
            ev = MET.event_level(alarm, y)
            events[k][0] += ev["events_detected"]
            events[k][1] += ev["events"]
            events[k][2] += [e["delay_rows"] for e in ev["per_event"] if e["detected"]]
    free = pd.read_csv(DATA / "skab_subset" / "anomaly-free" / "anomaly-free.csv", sep=";")
    free_far = {k: float(np.mean(np.asarray(a, bool)[400:])) for k, a in run(free).items()}
    pooled_out = {}
    for k in keys:
        m = pooled(rows[k])
        pooled_out[k] = {
            **{x: round(m[x], 4) for x in ("f1", "far", "mar", "precision", "recall")},
            "events_detected": f"{events[k][0]}/{events[k][1]}",
            "mean_delay_rows": round(float(np.mean(events[k][2])), 1) if events[k][2] else None,
            "far_before_anomaly": round(ba[k][0] / ba[k][1], 4) if ba[k][1] else None,
            "far_after_anomaly": round(ba[k][2] / ba[k][3], 4) if ba[k][3] else None,
            "anomaly_free_far": round(free_far[k], 4),
        }
    primary = pooled_out[DRIFT_DECLARATION["primary"]]
    return {
        "files": SKAB_FILES,
        "protocol": "first 400 rows train, the rest scored; point-wise metrics pooled over the files; every rule causal",
        "declaration": DRIFT_DECLARATION,
        "goal": "F1 > 0.78 with FAR < 0.15",
        "pooled": pooled_out,
        "primary_meets_goal": bool(primary["f1"] > 0.78 and primary["far"] < 0.15),
        "per_file": per_file,
    }


def tep():
    d00 = pd.read_csv(DATA / "tep_braatz_subset" / "d00.csv")
    cols = [c for c in d00.columns if c.startswith("XM")]
    train = d00[cols].to_numpy(float)
    det, _ = make("pca_mspc", {"n_components": 9, "confidence": 0.99})
    det.fit(train)
    out = {"train": "d00.csv (500 rows), 9 components, 99 % limits; faults from sample 161 of dXX_te.csv", "ours": {}, "plain_sklearn_pca": {}}
    for name in ["d01_te", "d04_te", "d06_te", "d00_te"]:
        te = pd.read_csv(DATA / "tep_braatz_subset" / f"{name}.csv")[cols].to_numpy(float)
        t2, q = det.m.t2_q(te)
        ours = (t2 > det.m.t2_limit_, q > det.m.q_limit_)
        plain = plain_t2q(train, te, a=9)
        for key, (a2, aq) in (("ours", ours), ("plain_sklearn_pca", plain)):
            if name == "d00_te":
                out[key]["far_d00_te"] = {"t2": float(a2.mean()), "q": float(aq.mean())}
            else:
                out[key][f"missed_{name}"] = {
                    "t2": float(1 - a2[160:].mean()),
                    "q": float(1 - aq[160:].mean()),
                    "far_first_160": {"t2": float(a2[:160].mean()), "q": float(aq[:160].mean())},
                }
    out["reference_in_issue"] = {"t2_missed": [0.007, 0.901, 0.009], "q_missed": [0.003, 0.005, 0.0], "far": [0.021, 0.052]}
    return out


def speed():
    n = 100_000 if QUICK else 1_000_000
    rng = np.random.default_rng(0)
    sig = [f"s{i}" for i in range(10)]
    base = rng.normal(size=(n, 3))
    X = base @ rng.normal(size=(3, 10)) + 0.3 * rng.normal(size=(n, 10))
    df = pd.DataFrame(X, columns=sig)
    df.insert(0, "t", np.arange(n))
    det, p = make("pca_mspc", {})
    det.fit(X[:10_000])
    model = TsadModel("time_series_anomaly_detection_unsupervised", "pca_mspc", None, sig, "t", [], [], det, sig, np.median(X[:10_000], 0), 1.0, p)
    t0 = time.perf_counter()
    out = model.predict(df)
    sec = time.perf_counter() - t0
    return {"rows": n, "signals": 10, "seconds_predict_with_contributions": sec, "alarms": int(np.nansum(out["alarm"])), "goal_seconds": 10}


if __name__ == "__main__":
    if "--skab-only" in sys.argv:
        print(json.dumps({"skab": skab()}))
    elif "--drift-variants" in sys.argv:
        print(json.dumps({"skab_drift_variants": drift_variants()}))
    elif "--causal-variants" in sys.argv:
        print(json.dumps({"skab_causal_variants": causal_variants(with_sequence_ae="--no-sequence-ae" not in sys.argv)}))
    else:
        print(json.dumps({"skab": skab(), "tep": tep(), "speed": speed()}))
