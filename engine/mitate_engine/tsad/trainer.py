"""Training of one project: read and order the series, build windowed features, fit each detector on the
normal period (unsupervised: its first part, the threshold set on its last, held-back part) or the earlier part
(supervised, time-ordered), score everything, write files."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from ..encoding import dumps
from ..ml.data import read_table
from ..task import EngineError
from . import detectors as DET
from . import metrics as MET
from . import report_html
from .drift import MIN_ROWS as MIN_DRIFT_ROWS
from .drift import suggest_drift
from .features import STATS, check_drift, check_stats, warmup, window_features
from .lang import lang_of, say
from .model import TsadModel, binarize, order_by_time, resample

SUPERVISED = "time_series_anomaly_detection_supervised"
UNSUPERVISED = "time_series_anomaly_detection_unsupervised"
MAX_ALARMS = 200  # alarms listed with contributions in the report
# The last share of the normal period (in time) held back from fitting: the unsupervised detectors' thresholds and
# alarm rules are set on it and the first false-alarm figure is measured on it, so both hold on rows the detector has
# not seen. 30 %: on TEP's 500-row normal run, 150 rows (a 99 % limit needs about 100 to be read at all).
HOLD_BACK = 0.3
MIN_HELD_BACK = 10


@dataclass
class Prepared:
    df: pd.DataFrame
    times: np.ndarray
    X: np.ndarray
    feature_columns: list[str]
    medians: np.ndarray
    label: np.ndarray | None
    split: np.ndarray  # warmup | train | validation | test
    notes: list[str]  # in the job's language
    note_codes: list[tuple[str, dict]]  # the same as catalogue codes, for the reports in either language
    drift_signals: list[str] = field(default_factory=list)  # signals entering as their change over drift_rows rows
    drift_rows: int = 0
    window_stats: tuple[str, ...] = STATS


def prepare(spec: dict) -> Prepared:
    signals = list(spec.get("features") or [])
    time_col = spec.get("time_column")
    label_col = spec.get("target")
    if not time_col:
        raise EngineError("tsad_no_time_column")
    if not signals:
        raise EngineError("no_features")
    cols = [time_col, *signals, *([label_col] if label_col else [])]
    df = read_table(spec["parquet"], cols)
    for c in signals:
        if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
            raise EngineError("tsad_signal_not_numeric", column=c)
    rule = spec.get("resample") or None
    notes: list[tuple[str, dict]] = []
    if rule:
        before = len(df)
        df, _ = resample(df, time_col, rule, signals, label_col)
        notes.append(("tsad_note_resampled", {"rule": rule, "before": before, "after": len(df)}))
    df, order = order_by_time(df, time_col)
    df = df.reset_index(drop=True)
    if order["sorted"]:
        notes.append(("tsad_note_sorted", {}))
    lags, windows = list(spec.get("lags") or []), list(spec.get("windows") or [])
    drift, drift_rows = check_drift(signals, spec.get("drift_signals"), spec.get("drift_rows"))
    stats = check_stats(spec.get("window_stats"))
    time = df[time_col] if pd.api.types.is_datetime64_any_dtype(df[time_col]) else None
    F = window_features(df, signals, lags, windows, stats=stats, time=time, drift=drift, drift_rows=drift_rows)
    warm = warmup(lags, windows, drift_rows)
    n = len(df)
    split = np.full(n, "test", dtype=object)
    split[:warm] = "warmup"
    label = binarize(df[label_col]) if label_col else None
    if spec["project_type"] == SUPERVISED:
        if label is None:
            raise EngineError("no_target")
        _, train_end = training_rows(n, spec.get("split_ratio"), warm)
        n_train = int(round(n * float(spec.get("split_ratio") or 0.85)))
        n_val = n_train - train_end
        if n_train - n_val - warm < 10:  # the warm-up (windows, lags, drift changes) leaves too little to learn from
            raise EngineError("tsad_train_too_short", count=max(0, n_train - n_val - warm), warm=warm)
        split[warm : n_train - n_val] = "train"
        split[n_train - n_val : n_train] = "validation"
        tr = split == "train"
        if len(np.unique(label[tr])) < 2:
            raise EngineError("tsad_label_single_class", column=label_col)
    else:
        mask = normal_mask(df, time_col, spec.get("normal") or {"mode": "rows", "rows": max(warm + 10, n // 2)})
        if drift and drift_rows >= int(mask.sum()):
            # a change over L rows compares row t with row t-L: with L as long as the normal period, no row of the
            # period is compared with another row of it
            raise EngineError("tsad_drift_rows_too_long", rows=drift_rows, normal=int(mask.sum()))
        mask = mask & (np.arange(n) >= warm)  # to_numpy() of a pandas result may be read-only (copy-on-write)
        fit_rows, held = hold_back(np.flatnonzero(mask))
        need = max(10, len(F.columns) // 10 + 2)
        if len(fit_rows) < need or len(held) < MIN_HELD_BACK:
            raise EngineError("tsad_normal_too_short", count=int(mask.sum()), warm=warm, needed=rows_needed(need))
        split[fit_rows] = "train"
        split[held] = "validation"
        if not drift:
            notes.extend(drifting_levels(df.loc[mask, signals]))
    tr = split == "train"
    Xdf = F.ffill()
    medians = np.nanmedian(Xdf.to_numpy(dtype=float)[tr], axis=0)
    medians = np.where(np.isnan(medians), 0.0, medians)
    X = np.where(np.isnan(Xdf.to_numpy(dtype=float)), medians, Xdf.to_numpy(dtype=float))
    const = [c for c, sd in zip(F.columns, X[tr].std(axis=0)) if not sd > 0]
    if const and len(const) == len(F.columns):
        raise EngineError("tsad_all_constant")
    said = [say(code, lang_of(spec), **p) for code, p in notes]
    return Prepared(df, df[time_col].to_numpy(), X, list(F.columns), medians, label, split, said, notes, drift, drift_rows, stats)


def drifting_levels(normal: pd.DataFrame) -> list[tuple[str, dict]]:
    """A note when signals left as levels drift within the normal period (the wizard's drift rule, tsad/drift.py):
    their level will be out of the period's range once they drift on, so the model alarms then whatever the process
    does (SKAB: the thermal signals, most of the false alarms of the default monitor). Nothing is changed; the note
    says which and the change the suggestion would use."""
    if len(normal) < MIN_DRIFT_ROWS:
        return []
    s = suggest_drift(normal, list(normal.columns))
    if not s["drift_signals"]:
        return []
    return [("tsad_note_drifting_levels", {"signals": ", ".join(s["drift_signals"]), "rows": s["drift_rows"]})]


def normal_mask(df: pd.DataFrame, time_col: str, normal: dict) -> np.ndarray:
    """The rows of the normal period (time-ordered `df`): the first `rows` rows, or those from `start` to `end` of the
    time column (date-times or numbers, both ends included)."""
    if normal.get("mode") == "range":
        is_time = pd.api.types.is_datetime64_any_dtype(df[time_col])
        t = df[time_col]
        lo = pd.Timestamp(normal["start"]) if is_time else float(normal["start"])
        hi = pd.Timestamp(normal["end"]) if is_time else float(normal["end"])
        return ((t >= lo) & (t <= hi)).to_numpy()
    return np.arange(len(df)) < int(normal["rows"])


def hold_back(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The normal period's rows (positions, in time order) split into the earlier ones the detector is fitted on and
    the last HOLD_BACK share it is not, on which its threshold is set: time order kept, nothing shuffled."""
    k = int(np.floor(len(rows) * HOLD_BACK + 0.5))  # halves up, as the server's Math.round (timeseries/normal.ts)
    return rows[: len(rows) - k], rows[len(rows) - k :]


def rows_needed(fit: int) -> int:
    """The fewest usable normal-period rows that leave `fit` rows to fit on and MIN_HELD_BACK held back."""
    u = fit + MIN_HELD_BACK
    while len(hold_back(np.arange(u))[0]) < fit or len(hold_back(np.arange(u))[1]) < MIN_HELD_BACK:
        u += 1
    return u


def training_rows(n: int, split_ratio: float, warm: int = 0) -> tuple[int, int]:
    """The supervised training part [warm, end) of n time-ordered rows: the first split_ratio of them, less the fifth
    that validates."""
    n_train = int(round(n * float(split_ratio or 0.85)))
    n_val = max(1, int(round((n_train - warm) * 0.2)))
    return warm, n_train - n_val


def _downsample(values: np.ndarray, points: int = 2000) -> list:
    """[position, min, max] per bucket, so no spike is lost in the report's overview."""
    n = len(values)
    if n <= points:
        return [[i, v, v] for i, v in enumerate(values.tolist())]
    edges = np.linspace(0, n, points + 1).astype(int)
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        seg = values[a:b]
        ok = seg[~np.isnan(seg)]
        out.append([int(a), float(ok.min()) if len(ok) else None, float(ok.max()) if len(ok) else None])
    return out


def evaluated_part(split: np.ndarray) -> str:
    """Metrics are on the test part; when the normal period is the whole series, on its held-back last part (rows no
    detector was fitted on; the unsupervised thresholds were set there)."""
    return "test" if (split == "test").any() else "validation"


def evaluate(score: np.ndarray, threshold: float, label: np.ndarray | None, split: np.ndarray, times: np.ndarray, supervised: bool = False) -> dict:
    ev = (split == evaluated_part(split)) & ~np.isnan(score)
    alarm = np.nan_to_num(score, nan=-np.inf) > threshold
    out = {
        "threshold": threshold,
        "evaluated_part": evaluated_part(split),
        "evaluated_rows": int(ev.sum()),
        "alarms": len(MET.runs(alarm[ev])),
        "alarms_per_day": MET.alarms_per_day(alarm[ev], times[ev]),
        "alarms_per_1000_rows": len(MET.runs(alarm[ev])) * 1000 / int(ev.sum()) if ev.any() else None,
    }
    tr = (split == "train") & ~np.isnan(score)
    out["train_alarm_rate"] = float(alarm[tr].mean()) if tr.any() else None  # in sample: the rows it was fitted on
    # unsupervised: alarms on the held-back normal rows (those labelled anomalous left out), false alarms on rows the
    # detector was not fitted on; a supervised model is refitted on its validation period, so it has none
    held = (split == "validation") & ~np.isnan(score) & (~label if label is not None else True) & (not supervised)
    out["heldout_far"] = float(alarm[held].mean()) if held.any() else None
    out["heldout_rows"] = int(held.sum())
    if label is not None and ev.any():
        out["pointwise"] = MET.pointwise(alarm[ev], label[ev])
        out["event"] = MET.event_level(alarm[ev], label[ev], times[ev])
    return out


def headline(metrics: dict, supervised: bool, cross_checked: float | None = None) -> dict:
    """The false-alarm rate shown first, and what it was measured on: normal rows of the test part when they are
    labelled; else, unsupervised, the held-back block of the normal period, cross-checked (`cross_checked_far`: the
    threshold set on one half, counted on the other, since on the whole block it was set there). Never the rows a
    model was fitted on (the supervised validation period is refitted on, so it is not offered); null when none."""
    far = (metrics.get("pointwise") or {}).get("far")
    if far is not None and metrics["evaluated_part"] == "test":
        return {"far": far, "far_basis": "test"}
    if not supervised and cross_checked is not None:
        return {"far": cross_checked, "far_basis": "held_back_normal"}
    return {"far": None, "far_basis": None}


def cross_checked_far(det, held: np.ndarray) -> float | None:
    """What the threshold rule gives on normal rows it was not set on: the held-back scores split in time into two
    halves, the threshold set on each and the other's share over it, averaged. (On the whole block the trained
    threshold lets at most 1 - level of it over by construction, which says little about new rows.)"""
    s = np.asarray(held, dtype=float)
    s = s[~np.isnan(s)]
    h = len(s) // 2
    if h < MIN_HELD_BACK // 2:
        return None
    a, b = s[:h], s[h:]
    return float(np.mean([np.mean(b > det.threshold_from(a)), np.mean(a > det.threshold_from(b))]))


def fit_model(prep: Prepared, spec: dict, algorithm: str, params: dict, check=None) -> tuple[TsadModel, np.ndarray, np.ndarray | None]:
    """`check` (the job's cancel check) is called between the epochs of the neural detectors."""
    det, p = DET.make(algorithm, params, check)
    tr = prep.split == "train"
    supervised = algorithm in DET.SUPERVISED
    if supervised:
        det.fit(prep.X[tr], prep.label[tr])
    else:
        det.fit(prep.X[tr])
    model = TsadModel(
        project_type=spec["project_type"],
        algorithm=algorithm,
        target=spec.get("target"),
        features=list(spec["features"]),
        time_column=spec["time_column"],
        lags=list(spec.get("lags") or []),
        windows=list(spec.get("windows") or []),
        drift_signals=prep.drift_signals,
        drift_rows=prep.drift_rows,
        window_stats=prep.window_stats,
        detector=det,
        feature_columns=prep.feature_columns,
        medians=prep.medians,
        threshold=0.0,
        params=p,
        info=det.info(),
        resample_rule=spec.get("resample") or None,
    )
    score = np.asarray(det.score(prep.X), dtype=float)
    score[prep.split == "warmup"] = np.nan
    va = prep.split == "validation"
    if supervised:
        # the threshold is chosen on the validation part (the end of the training period), never on the test part
        best, best_f1 = 0.5, -1.0
        # without both classes in the validation part there is nothing to choose on: 0.5 stays
        candidates = np.unique(np.quantile(score[va], np.linspace(0.5, 0.999, 60))) if len(np.unique(prep.label[va])) == 2 else []
        for t in candidates:
            f1 = MET.pointwise(score[va] > t, prep.label[va])["f1"] or 0.0
            if f1 > best_f1:
                best, best_f1 = float(t), f1
        model.threshold = best
        model.info = {**model.info, "validation_f1": best_f1 if best_f1 >= 0 else None}
        # then refit on train + validation with the same settings, as the final model
        both = tr | va
        det.fit(prep.X[both], prep.label[both])
        score = np.asarray(det.score(prep.X), dtype=float)
        score[prep.split == "warmup"] = np.nan
    else:
        # fitted on the normal period's first part; the threshold (through the alarm rule) set on its held-back part
        model.threshold = float(det.threshold_from(score[va]))
        normal = va & ~prep.label if prep.label is not None else va
        model.info = {**model.info, "far_cross_checked": cross_checked_far(det, score[normal])}
    c = det.contributions(prep.X) if hasattr(det, "contributions") else None
    contrib = model.per_signal(np.asarray(c, dtype=float)) if c is not None else None
    return model, score, contrib


def alarm_list(score: np.ndarray, threshold: float, contrib: np.ndarray | None, signals: list[str], times: np.ndarray, split: np.ndarray) -> list[dict]:
    alarm = np.nan_to_num(score, nan=-np.inf) > threshold
    items = []
    for s, e in MET.runs(alarm)[:MAX_ALARMS]:
        peak = s + int(np.nanargmax(score[s : e + 1]))
        item = {
            "start": s,
            "end": e,
            "start_time": _t(times[s]),
            "end_time": _t(times[e]),
            "peak": peak,
            "peak_score": float(score[peak]),
            "part": str(split[s]),
        }
        if contrib is not None:
            mean = np.nanmean(contrib[s : e + 1], axis=0)
            order = np.argsort(-np.abs(mean))[:10]
            item["contributions"] = [{"signal": signals[i], "value": float(mean[i])} for i in order]
        items.append(item)
    return items


def _t(v):
    return str(pd.Timestamp(v)) if isinstance(v, (np.datetime64, pd.Timestamp)) else (v.item() if hasattr(v, "item") else v)


def write_model(mdir: Path, model: TsadModel, prep: Prepared, score: np.ndarray, contrib: np.ndarray | None, spec: dict, label: str) -> dict:
    mdir.mkdir(parents=True, exist_ok=True)
    metrics = evaluate(score, model.threshold, prep.label, prep.split, prep.times, model.project_type == SUPERVISED)
    series = pd.DataFrame(
        {
            "pos": np.arange(len(score)),
            "time": prep.df[spec["time_column"]].to_numpy(),
            "score": score,
            "label": prep.label.astype(np.int8) if prep.label is not None else np.full(len(score), -1, np.int8),
            "split": prep.split.astype(str),
        }
    )
    if contrib is not None:
        for i, _s in enumerate(model.features):
            series[f"c_{i}"] = contrib[:, i]
    series.to_parquet(mdir / "series.parquet", index=False)
    joblib.dump(model, mdir / "model.joblib")
    supervised = model.project_type == SUPERVISED
    summary = {
        "f1": (metrics.get("pointwise") or {}).get("f1"),
        **headline(metrics, supervised, model.info.get("far_cross_checked")),
        "heldout_far": metrics.get("heldout_far"),  # at the trained threshold, on the rows it was set on
        "train_alarm_rate": metrics.get("train_alarm_rate"),
        "validation_f1": model.info.get("validation_f1") if supervised else None,
        "mar": (metrics.get("pointwise") or {}).get("mar"),
        "precision": (metrics.get("pointwise") or {}).get("precision"),
        "recall": (metrics.get("pointwise") or {}).get("recall"),
        "event_f1": (metrics.get("event") or {}).get("f1"),
        "alarms": metrics["alarms"],
        "threshold": model.threshold,
    }
    manifest = model.manifest(summary)
    (mdir / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str), encoding="utf-8")
    with zipfile.ZipFile(mdir / "model.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.write(mdir / "model.joblib", "model.joblib")
        z.write(mdir / "manifest.json", "manifest.json")
    sig_std = prep.df[model.features].std().replace(0, 1)
    report = {
        "algorithm": model.algorithm,
        "label": label,
        "project_type": model.project_type,
        "threshold": model.threshold,
        "detector": model.info,
        "hyperparameters": model.params,
        "metrics": metrics,
        "notes": prep.notes,
        "signals": model.features,
        "time_column": model.time_column,
        "label_column": model.target,
        "features_settings": {
            **model.window_settings(),
            "warmup_rows": int((prep.split == "warmup").sum()),
        },
        "rows": len(score),
        "parts": {k: int((prep.split == k).sum()) for k in ("warmup", "train", "validation", "test")},
        "contributions": contrib is not None,
        "alarms": alarm_list(score, model.threshold, contrib, model.features, prep.times, prep.split),
        "overview": {"score": _downsample(score), "signals_scaled_std": {s: float(sig_std[s]) for s in model.features[:100]}},
    }
    # strict JSON: the warm-up rows' NaN scores (and any non-finite figure) become null, as the server's schema says
    text = dumps(report)
    (mdir / "report.json").write_text(text, encoding="utf-8")
    report_html.write(mdir, json.loads(text), str(spec.get("project_name") or ""), lang_of(spec), prep.note_codes)
    return {"metrics": summary, "report": report}
