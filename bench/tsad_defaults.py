"""Issue 30 benchmark (run by tsad-defaults.bench.mjs): the product's time-series defaults on data nobody tuned to.

Everything "product" is trained by the training job's own functions (trainer.prepare + fit_model) with the wizard's
defaults and read back through the saved model's own predict (TsadModel.predict): alarm = score over the trained
threshold. Nothing is tuned per file. The wizard's defaults: every numeric signal, the detector's catalogue
parameters, the normal period as given, no lags or windows; and when signals drift within the normal period (the
rule of timeseries/drift.py, the same answer the wizard gets from its suggestion), those signals by their change over L
rows, 5-row windows and the 3-of-5 alarm rule (timeseries/drift.py DEFAULTS, default_options). The defaults before that
change are measured beside it (previous_product_default_levels*).

- Tennessee Eastman (Braatz runs in ../shared/data): trained on d00 (500 normal rows); false alarms on the new normal
  run d00_te and on the 160 pre-fault rows of each fault run; detection rate on each fault's rows 161-960. Beside it
  in the same run, the textbook monitor (Chiang, Russell & Braatz 2001: 9 components, T² and Q at 99 %, fitted on all
  of d00, alarm when either is over its limit) and the previous product default (90 % of the variance, the textbook
  limits, fitted on all of d00). Goal: d00_te FAR <= 5 % with each fault's detection rate >= the textbook's.
- SKAB: every labelled file there is (the 5 in ../shared/data, or SKAB's 34 when MITATE_SKAB_DIR points at its data
  folder), first 400 rows the normal period. Pooled over the files (sums of TP/FP/FN/TN) on the leaderboard's basis:
  the rows after the first 400 of each file (waico/SKAB's current notebooks, train_test_split(train_size=400,
  shuffle=False), core/metrics.py chp_score metric="binary"; its figures are on its 34 files, and its own T²+Q is
  reproduced here on this basis as the check); also every row of each file, the older SKAB v0.9 scoring, where FAR
  reads about half. Goal: F1 >= 0.80 and FAR <= 13.5 % on the leaderboard's basis (its best, Conv-AE: 0.78 at
  13.55 %; T²+Q 0.76 at 26.62 %). With the 34 files, also pooled over the 5 files of ../shared/data the default was
  designed on and over the 29 others. Beside it: the textbook monitors, the product's Conv-AE (sequence_autoencoder),
  parts of the default alone (option_*), and the default's threshold raised by a factor (its F1/FAR frontier).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
from mitate_engine.timeseries import metrics as MET  # noqa: E402
from mitate_engine.timeseries.drift import default_options, suggest_drift  # noqa: E402
from mitate_engine.timeseries.mspc import PcaMspc  # noqa: E402
from mitate_engine.timeseries.trainer import UNSUPERVISED, fit_model, prepare  # noqa: E402
from tsad_bench import skab_reference_t2q  # noqa: E402  (this folder: the script's own)

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or ROOT.parent / "shared" / "data")
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
SKAB_DIR = os.environ.get("MITATE_SKAB_DIR")
SKAB_SIGNALS = ["Accelerometer1RMS", "Accelerometer2RMS", "Current", "Pressure", "Temperature", "Thermocouple", "Voltage", "Volume Flow RateRMS"]
DETECTORS = ["pca_mspc", "isolation_forest", "lof", "autoencoder"]  # every unsupervised detector with its defaults


def product(df: pd.DataFrame, time_col: str, signals: list[str], normal_rows: int, algorithm: str = "pca_mspc", params: dict | None = None, **options):
    """The product trained as a person would with the wizard's defaults (or with the wizard `options` and detector
    `params` a person sets, for the peers that say so); the saved model object."""
    with tempfile.TemporaryDirectory() as d:
        df.to_parquet(Path(d) / "data.parquet", index=False)
        spec = {
            "project_type": UNSUPERVISED,
            "parquet": str(Path(d) / "data.parquet"),
            "time_column": time_col,
            "features": signals,
            "lags": [],
            "windows": [],
            "normal": {"mode": "rows", "rows": normal_rows},
            **options,
        }
        prep = prepare(spec)
        model, score, _ = fit_model(prep, spec, algorithm, params or {})
    return model, score, prep


def wizard_default(df: pd.DataFrame, signals: list[str], normal_rows: int) -> tuple[dict, dict]:
    """What the wizard fills in by default (timeseries/drift.py default_options): when signals drift in the normal period,
    their change over L rows, 5-row windows and the 3-of-5 alarm rule; nothing when none drifts."""
    return default_options(suggest_drift(df.iloc[:normal_rows], signals))


def product_default(df: pd.DataFrame, time_col: str, signals: list[str], normal_rows: int, algorithm: str = "pca_mspc"):
    """The product as a person gets it from the wizard without changing anything."""
    opts, params = wizard_default(df[signals], signals, normal_rows)
    return product(df, time_col, signals, normal_rows, algorithm, params, **opts)


def calibration(prep, level: float = 0.99) -> dict:
    """How the default threshold was read: held-back rows and which of their sorted scores (held_back_quantile)."""
    n = int((prep.split == "validation").sum())
    k = min(max(int(np.ceil((n + 1) * level)), 1), n)
    return {"held_back_rows": n, "rank": k, "is_largest": k == n}


def alarms_of(model, df: pd.DataFrame) -> np.ndarray:
    out = model.predict(df)
    return out["alarm"].to_numpy() > 0


def textbook(train: np.ndarray, a: int | None = 9, share: float | None = None) -> PcaMspc:
    return PcaMspc(n_components=a, explained_variance=share, confidence=0.99).fit(train)


def rate(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else float("nan")


def tep() -> dict:
    T = DATA / "tep_braatz_subset"
    d00 = pd.read_csv(T / "d00.csv")
    signals = [c for c in d00.columns if c.startswith("XM")]
    runs = {f: pd.read_csv(T / f"{f}.csv") for f in ("d00_te", "d01_te", "d04_te", "d06_te")}
    monitors = {}
    t0 = time.time()
    for alg in DETECTORS:
        model, _, prep = product_default(d00, "sample", signals, len(d00), alg)
        monitors[f"product_{alg}"] = (
            lambda df, m=model: alarms_of(m, df),
            {"threshold": model.threshold, **{k: v for k, v in model.info.items() if k in ("components", "components_rule", "far_cross_checked")}},
        )
    seconds = time.time() - t0
    # the alarm rule a person can set (3 of the last 5 rows over the line), calibrated on the held-back rows as the
    # default: measured here because it was tried as a default (issue 30) and raised d00_te's false alarms
    model, _, _ = product(d00, "sample", signals, len(d00), "pca_mspc", {"alarm_k": 3, "alarm_n": 5})
    monitors["option_pca_mspc_alarm_3_of_5"] = (
        lambda df, m=model: alarms_of(m, df),
        {"threshold": model.threshold, "components": model.info.get("components")},
    )
    X = d00[signals].to_numpy(float)
    tb = textbook(X, 9)
    old = textbook(X, None, 0.9)
    monitors["textbook_9pc_t2q_99"] = (lambda df: tb.score(df[signals].to_numpy(float)) > 1.0, {"components": tb.a_})
    monitors["previous_default_90pct_variance"] = (lambda df: old.score(df[signals].to_numpy(float)) > 1.0, {"components": old.a_})
    out = {
        "train": "d00.csv (500 rows, every row the normal period)",
        "drift_suggestion_on_d00": suggest_drift(d00, signals)["drift_signals"],
        "wizard_default_on_d00": wizard_default(d00, signals, len(d00)),
        "monitors": {},
    }
    for name, (alarm_fn, info) in monitors.items():
        r = {"info": info}
        for f, df in runs.items():
            a = alarm_fn(df)
            y = df["fault"].to_numpy() > 0
            if f == "d00_te":
                r["far_d00_te"] = rate(a)
            else:
                r[f"detection_{f}"] = rate(a[y])
                r[f"far_prefault_{f}"] = rate(a[~y])
        out["monitors"][name] = r
    p, t = out["monitors"]["product_pca_mspc"], out["monitors"]["textbook_9pc_t2q_99"]
    faults = ("d01_te", "d04_te", "d06_te")
    out["goal"] = "product default: d00_te FAR <= 5 % and each fault's detection rate >= the 9-component textbook monitor's (same run)"
    out["goal_far_met"] = p["far_d00_te"] <= 0.05
    out["goal_detection_met"] = {f: p[f"detection_{f}"] >= t[f"detection_{f}"] for f in faults}
    out["goal_met"] = out["goal_far_met"] and all(out["goal_detection_met"].values())
    out["training_seconds_4_detectors"] = round(seconds, 2)
    return out


def skab_files() -> tuple[Path, list[str]]:
    if SKAB_DIR and Path(SKAB_DIR, "valve1").is_dir():
        base = Path(SKAB_DIR)
    else:
        base = DATA / "skab_subset"
    files = sorted(str(p.relative_to(base)) for d in ("valve1", "valve2", "other") for p in Path(base, d).glob("*.csv"))
    return base, files


def pooled(rows: list[dict]) -> dict:
    tp, fp, fn, tn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn", "tn"))
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    return {
        "f1": 2 * p * r / (p + r) if p and r else None,
        "far": fp / (fp + tn) if fp + tn else None,
        "mar": fn / (fn + tp) if fn + tp else None,
        "precision": p,
        "recall": r,
    }


DESIGN_FILES = {"valve1/0.csv", "valve1/1.csv", "valve2/0.csv", "other/9.csv", "other/13.csv"}  # ../shared/data's 5


def skab() -> dict:
    base, files = skab_files()
    rows: dict[str, list] = {}  # the leaderboard's basis (and the issue's): the rows after the 400 training rows
    whole: dict[str, list] = {}  # SKAB v0.9's older scoring: every row of the file, the 400 training rows too
    factors = (1.0, 1.25, 1.5, 2.0, 3.0)  # the default's threshold times these: its F1/FAR frontier on the test rows
    frontier: dict[float, list] = {}
    per_file: dict[str, dict] = {}
    sides: dict[str, list] = {}  # false alarms / normal rows before the file's anomaly, and after it
    shown: dict[str, list] = {}  # the headline false-alarm rate each file's model shows (held-back rows, cross-checked)
    notes: dict[str, list] = {}
    calib: dict[str, dict] = {}
    full = len(files) > len(DESIGN_FILES)
    for f in files:
        df = pd.read_csv(base / f, sep=";")
        df["datetime"] = pd.to_datetime(df["datetime"])
        y_all = df["anomaly"].to_numpy() > 0
        y = y_all[400:]
        X = df[SKAB_SIGNALS].to_numpy(float)
        data = df[["datetime", *SKAB_SIGNALS]]
        opts, params = wizard_default(data[SKAB_SIGNALS], SKAB_SIGNALS, 400)
        res = {}
        for alg in DETECTORS:
            model, score, prep = product(data, "datetime", SKAB_SIGNALS, 400, alg, params, **opts)
            res[f"product_{alg}"] = np.nan_to_num(score, nan=-np.inf) > model.threshold
            shown.setdefault(f"product_{alg}", []).append(model.info.get("far_cross_checked"))
            if alg == "pca_mspc":
                for x in factors:
                    frontier.setdefault(x, []).append(MET.pointwise((np.nan_to_num(score, nan=-np.inf) > model.threshold * x)[400:], y))
                notes[f] = [c for c, _ in prep.note_codes]
                calib[f] = {**calibration(prep), "threshold": model.threshold, "components": model.info.get("components")}
            else:  # the same detector as it was by default before (every signal by its level, 1 of 1)
                model, score, _ = product(data, "datetime", SKAB_SIGNALS, 400, alg)
                res[f"previous_product_default_levels_{alg}"] = np.nan_to_num(score, nan=-np.inf) > model.threshold
        # the defaults before this change (every signal by its level, no windows, 1 of 1), and parts of the new one
        drift = {k: opts[k] for k in ("drift_signals", "drift_rows")} if opts else {}
        before = {
            "previous_product_default_levels": ({}, {}),
            "option_pca_mspc_alarm_3_of_5": ({"alarm_k": 3, "alarm_n": 5}, {}),
            "option_pca_mspc_drift_only": ({}, drift),
            "option_pca_mspc_drift_windows5": ({}, {**drift, "windows": [5]} if drift else {}),
        }
        for name, (p, o) in before.items():
            model, score, _ = product(data, "datetime", SKAB_SIGNALS, 400, "pca_mspc", p, **o)
            res[name] = np.nan_to_num(score, nan=-np.inf) > model.threshold
        # the product's Conv-AE (the leaderboard's best method) with its catalogue defaults and the wizard's (its
        # persistence rule is its own: the alarm rule is not among its parameters)
        model, score, _ = product(data, "datetime", SKAB_SIGNALS, 400, "sequence_autoencoder", params, **opts)
        res["product_sequence_autoencoder"] = np.nan_to_num(score, nan=-np.inf) > model.threshold
        share, nine = textbook(X[:400], None, 0.9), textbook(X[:400], 9)
        res["previous_default_90pct_variance"] = share.score(X) > 1.0
        res["textbook_9pc_t2q_99"] = nine.score(X) > 1.0
        # the leaderboard's own T²+Q (0.76 at 26.62 % there), reproduced: the check that the basis here is the leaderboard's
        res["skab_leaderboard_t2q_reproduced"] = skab_reference_t2q(X[:400], X)
        per_file[f] = {"wizard_default": {**opts, **params}}
        i0, i1 = int(np.argmax(y)), len(y) - int(np.argmax(y[::-1]))
        for k, a_all in res.items():
            a = a_all[400:]
            c = sides.setdefault(k, [0, 0, 0, 0])
            c[0] += int(a[:i0].sum())
            c[1] += i0
            c[2] += int(a[i1:].sum())
            c[3] += len(y) - i1
            m = MET.pointwise(a, y)
            w = MET.pointwise(a_all, y_all)
            rows.setdefault(k, []).append((f, m))
            whole.setdefault(k, []).append((f, w))
            per_file[f][k] = {
                "every_row": {"f1": w["f1"], "far": w["far"], "false_alarms": w["fp"], "normal_rows": w["fp"] + w["tn"], "tp": w["tp"], "fn": w["fn"]},
                "test_rows": {
                    "f1": m["f1"],
                    "far": m["far"],
                    "false_alarms": m["fp"],
                    "normal_rows": m["fp"] + m["tn"],
                    "tp": m["tp"],
                    "fn": m["fn"],
                },
            }

    def pools(per: dict[str, list], keep) -> dict:
        return {k: pooled([m for f, m in v if keep(f)]) for k, v in per.items()}

    out = {
        "data": f"{base} ({len(files)} labelled files)",
        "basis": {
            "training": "first 400 rows of each file the normal period (the product fits on its first 280 and sets the threshold on the last 120, held back); the textbook monitors fit on all 400",
            "test_rows_as_skab_leaderboard": (
                "SKAB's leaderboard (waico/SKAB README 'Proposed Leaderboard': 'performance of algorithms on test set, unlike leaderboard "
                "for SKAB v0.9 which evaluates both training and testing data all together'; notebooks/Conv_AE.ipynb, t2_with_q_SKAB.ipynb "
                "with core/utils.py preprocess_skab = train_test_split(train_size=400, shuffle=False), scored by core/metrics.py chp_score "
                "metric='binary'): the rows after the first 400 of each of its 34 labelled files, TP/FP/FN/TN summed over the files, "
                "F1 = TP / (TP + (FP + FN) / 2), FAR = FP / (FP + TN). Checked here: the leaderboard's own T²+Q, reproduced "
                "(skab_leaderboard_t2q_reproduced), reads 0.758 at 26.6 % on this basis against its published 0.76 at 26.62 %"
            ),
            "every_row_skab_v09_style": "every row of each file, the 400 training rows included (SKAB v0.9's older notebooks): FAR reads about half",
            "rows_without_score": "warm-up rows (windows, changes over L rows) have no score and count as no alarm, as the leaderboard counts rows its methods leave unpredicted",
        },
        "pooled_test_rows_as_skab_leaderboard": pools(rows, lambda f: True),
        "pooled_every_row_skab_v09_style": pools(whole, lambda f: True),
        # the default with its threshold raised (a person's choice on the threshold page), test rows: F1 and FAR trade
        "frontier_product_pca_mspc_threshold_factor": {str(x): pooled(v) for x, v in frontier.items()},
        "per_file": per_file,
        # where the false alarms are: the normal rows before each file's anomaly, and those after it, where the rig
        # does not come back to the state of the first 400 rows
        "far_before_after_anomaly": {k: {"before": c[0] / c[1] if c[1] else None, "after": c[2] / c[3] if c[3] else None} for k, c in sides.items()},
        "headline_far_shown_mean": {k: float(np.mean([v for v in vs if v is not None])) for k, vs in shown.items()},
        "default_threshold_calibration": calib,
        "training_notes_product_pca_mspc": notes,
        "leaderboard": {
            "conv_ae": {"f1": 0.78, "far": 0.1355},
            "t2_q": {"f1": 0.76, "far": 0.2662},
            "basis": "rows after the first 400, 34 files (waico/SKAB README)",
        },
    }
    if full:
        out["pooled_test_rows_design_5_files"] = pools(rows, lambda f: f in DESIGN_FILES)
        out["pooled_test_rows_held_out_29_files"] = pools(rows, lambda f: f not in DESIGN_FILES)
        out["pooled_every_row_held_out_29_files"] = pools(whole, lambda f: f not in DESIGN_FILES)
    p = out["pooled_test_rows_as_skab_leaderboard"]["product_pca_mspc"]
    q = out["pooled_every_row_skab_v09_style"]["product_pca_mspc"]
    out["goal"] = "product default: pooled F1 >= 0.80 and FAR <= 13.5 % on the leaderboard's basis (test rows of its 34 files)"
    out["goal_f1_met"] = bool(p["f1"] is not None and p["f1"] >= 0.80)
    out["goal_far_met"] = bool(p["far"] is not None and p["far"] <= 0.135)
    out["goal_met_every_row_v09_style"] = bool(q["f1"] is not None and q["f1"] >= 0.80 and q["far"] <= 0.135)
    out["goal_met"] = out["goal_f1_met"] and out["goal_far_met"] and full
    return out


def normal_period_rules() -> dict:
    """Issue 30 asks whether the default normal period with a label should be every row labelled normal rather than the
    rows before the first anomaly. Measured on the SKAB files with the product's rules (PCA-MSPC, parallel analysis,
    fitted on the first 70 % of the period's rows in time order, threshold from the held-back last 30 %) applied
    directly, since the product fits a contiguous period: where the held-back rows fall, the threshold, recall on the
    anomalous rows and the normal rows left to measure false alarms on."""
    from mitate_engine.timeseries.detectors import held_back_quantile

    base, files = skab_files()
    out = {}
    for f in files:
        df = pd.read_csv(base / f, sep=";")
        y = df["anomaly"].to_numpy() > 0
        X = df[SKAB_SIGNALS].to_numpy(float)
        last = int(np.flatnonzero(y).max()) if y.any() else -1
        out[f] = {}
        for name, normal in (("before_first_anomaly", np.arange(len(y)) < int(np.argmax(y))), ("all_normal_rows", ~y)):
            idx = np.flatnonzero(normal)
            k = int(np.floor(len(idx) * 0.3 + 0.5))
            fit, held = idx[: len(idx) - k], idx[len(idx) - k :]
            m = PcaMspc(confidence=0.99).fit(X[fit])
            score = m.score(X)
            thr = held_back_quantile(score[held], 0.99)
            a, test = score > thr, ~normal
            out[f][name] = {
                "fit_rows": len(fit),
                "held_back_rows": len(held),
                "held_back_rows_after_the_anomaly": int((held > last).sum()),
                "threshold": thr,
                "recall": float(a[y].mean()),
                "normal_rows_left_to_test": int((test & ~y).sum()),
            }
    return out


def main() -> None:
    t0 = time.time()
    result = {"tep": tep(), "skab": skab(), "normal_period_rules": normal_period_rules(), "seconds": round(time.time() - t0, 1)}
    print(json.dumps(result, default=float))


if __name__ == "__main__":
    main()
