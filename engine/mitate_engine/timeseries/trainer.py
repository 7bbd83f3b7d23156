"""Training of one project: read and order the series, build windowed features, fit each detector on the
normal period (unsupervised: its first part, the threshold set on its last, held-back part) or the earlier part
(supervised, time-ordered), score everything, write files."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter

import joblib
import numpy as np
import pandas as pd

from ..encoding import dumps
from ..ml.data import parquet_columns
from ..task import EngineError
from . import detectors as DET
from . import metrics as MET
from . import report_html
from .drift import MIN_ROWS as MIN_DRIFT_ROWS
from .drift import suggest_drift
from .features import STATS, check_drift, check_stats, warmup, window_matrix
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
    signal_sd: dict[str, float] = field(default_factory=dict)  # each signal's standard deviation (report overview)
    profile: dict[str, float] = field(default_factory=dict)  # seconds of each step (read, order, features, ...)


# The parts of the series, in this order: a categorical (one byte a row) rather than one Python string a row, so that
# `split == "train"` on 10 M rows is a comparison of codes and series.parquet stores it as a dictionary.
PARTS = ["warmup", "train", "validation", "test"]


def parts_of(n: int) -> pd.Categorical:
    """n rows, every one in the test part (prepare marks the others)."""
    return pd.Categorical.from_codes(np.full(n, PARTS.index("test"), dtype=np.int8), categories=PARTS)


class Steps:
    """Seconds of each step of a job, in order; `step(name)` closes the step running and names the next one, and
    says it (`say(name)`) to whoever follows the job."""

    def __init__(self, say=None):
        self.profile: dict[str, float] = {}
        self.say = say
        self._name, self._t = None, perf_counter()

    def step(self, name: str | None) -> None:
        now = perf_counter()
        if self._name:
            self.profile[self._name] = round(self.profile.get(self._name, 0.0) + now - self._t, 3)
        self._name, self._t = name, now
        if name and self.say:
            self.say(name)


def prepare(spec: dict, on_step=None) -> Prepared:
    """`on_step(name)` is told as each step starts (read, order, features, normal_period, fill)."""
    steps = Steps(on_step)
    steps.step("read")
    signals = list(spec.get("features") or [])
    time_col = spec.get("time_column")
    label_col = spec.get("target")
    if not time_col:
        raise EngineError("tsad_no_time_column")
    if not signals:
        raise EngineError("no_features")
    cols = [time_col, *signals, *([label_col] if label_col else [])]
    df = read_series(spec["parquet"], cols)
    steps.step("order")
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
    steps.step("features")
    names, X = window_matrix(df, signals, lags, windows, stats=stats, time=time, drift=drift, drift_rows=drift_rows)
    steps.step("normal_period")
    warm = warmup(lags, windows, drift_rows)
    n = len(df)
    split = parts_of(n)
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
        need = max(10, len(names) // 10 + 2)
        if len(fit_rows) < need or len(held) < MIN_HELD_BACK:
            raise EngineError("tsad_normal_too_short", count=int(mask.sum()), warm=warm, needed=rows_needed(need))
        split[fit_rows] = "train"
        split[held] = "validation"
        if not drift:
            notes.extend(drifting_levels(df, signals, np.flatnonzero(mask)))
    steps.step("fill")
    tr = split == "train"
    medians = fill_gaps(X, tr)
    signal_sd = {c: _sd(df[c]) for c in signals}
    steps.step(None)
    said = [say(code, lang_of(spec), **p) for code, p in notes]
    return Prepared(df[[time_col]], df[time_col].to_numpy(), X, names, medians, label, split, said, notes, drift, drift_rows, stats, signal_sd, steps.profile)


def fill_gaps(X: np.ndarray, tr: np.ndarray) -> np.ndarray:
    """The training rows' median of each column of X; the gaps left after carrying forward take it, in place. The
    medians come first, column by column (the training rows' copy partitioned in place, not copied again); then, when
    one pass over X (a NaN anywhere makes its column's sum NaN) found a gap, the gaps are filled a block of rows at a
    time, every column at once, rather than a pass over the strided matrix per column."""
    medians = np.zeros(X.shape[1])
    for j in range(X.shape[1]):
        m = np.nanmedian(X[:, j][tr], overwrite_input=True) if tr.any() else np.nan
        medians[j] = 0.0 if np.isnan(m) else m
    if np.isnan(X.sum(axis=0)).any():
        for a in range(0, len(X), FILL_ROWS):
            block = X[a : a + FILL_ROWS]
            np.copyto(block, medians, where=np.isnan(block))
    if not any(X[:, j][tr].std() > 0 for j in range(X.shape[1])):
        raise EngineError("tsad_all_constant")
    return medians


FILL_ROWS = 65_536  # rows of the feature matrix filled at a time (a few MB, whatever the series' length)


def _sd(s: pd.Series) -> float:
    """The sample standard deviation of the values that are not NaN, as pandas' Series.std (the same sums in the same
    order, so the same figure), without pandas' copies of a column without gaps."""
    v = s.to_numpy()
    if v.dtype.kind in "biu":
        v = v.astype(np.float64)
    elif v.dtype != np.float64:  # float32 (pandas gives its own precision), nullable types: pandas itself
        return float(s.std())
    ok = ~np.isnan(v)
    count = int(ok.sum())
    if count < 2:
        return float("nan")
    if count < len(v):
        v = np.where(ok, v, 0.0)
    avg = v.sum() / count
    d = avg - v
    if count < len(v):
        d[~ok] = 0.0
    np.square(d, out=d)
    return float(np.sqrt(d.sum() / (count - 1)))


def read_series(path: str, columns: list[str]) -> pd.DataFrame:
    """The Parquet file's `columns` (the time column, the signals, the label) as a frame, converted from Arrow one
    column at a time (each column's Arrow buffers freed as it is converted, and Arrow's pool handed back after), so
    the read costs the frame and one column, not the frame twice."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet_columns(path, columns)  # the catalogued errors for a missing or unreadable file, a missing column
    table = pq.read_table(path, columns=list(dict.fromkeys(columns)))
    df = table.to_pandas(self_destruct=True, split_blocks=True)
    del table
    pa.default_memory_pool().release_unused()
    return df


def drifting_levels(df: pd.DataFrame, signals: list[str], rows: np.ndarray) -> list[tuple[str, dict]]:
    """A note when signals left as levels drift within the normal period (its positions `rows`, in time order; the
    wizard's drift rule, timeseries/drift.py): their level will be out of the period's range once they drift on, so
    the model alarms then whatever the process does (SKAB: the thermal signals, most of the false alarms of the
    default monitor). Nothing is changed; the note says which and the change the suggestion would use. The period is
    read from the frame in place (no copy) when its rows are consecutive, as they are in a time-ordered frame."""
    if len(rows) < MIN_DRIFT_ROWS:
        return []
    whole = rows[-1] - rows[0] + 1 == len(rows)
    normal = df[signals].iloc[rows[0] : rows[-1] + 1] if whole else df[signals].take(rows)
    s = suggest_drift(normal, signals, decision_only=True)  # the note needs no more
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
        "alarms": MET.run_count(alarm[ev]),
        "alarms_per_day": MET.alarms_per_day(alarm[ev], times[ev]),
        "alarms_per_1000_rows": MET.run_count(alarm[ev]) * 1000 / int(ev.sum()) if ev.any() else None,
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


# The most rows a detector whose fit grows faster than its rows is fitted on (LOF's neighbour search, the one-class
# SVM's kernel): a seeded random sample of the normal period's fitting rows, kept in time order, stated on the report
# (detector.fit_rows of fit_sample_of). The others (PCA-MSPC, the isolation forest, which samples itself, robust z,
# the autoencoders) are fitted on every row. Every row is scored whatever the sample.
FIT_SAMPLE_ROWS = {"lof": 100_000, "ocsvm": 50_000}


def fit_sample(rows: np.ndarray, algorithm: str) -> np.ndarray:
    """The positions the detector is fitted on: `rows`, or FIT_SAMPLE_ROWS of them (seeded, in time order)."""
    cap = FIT_SAMPLE_ROWS.get(algorithm)
    if cap is None or len(rows) <= cap:
        return rows
    return np.sort(np.random.default_rng(0).choice(rows, cap, replace=False))


# Rows scored at a time by a detector that scores each row on its own: its temporaries (standardised rows,
# projections, per-feature contributions) are bounded by this, not by the length of the series.
SCORE_ROWS = 250_000


def score_rows(det, X: np.ndarray, per_signal=None, check=None, on_rows=None) -> tuple[np.ndarray, np.ndarray | None]:
    """The score of every row of X and, with `per_signal` (feature contributions -> per-signal ones), the detector's
    contributions per signal (None when it has none). A row-wise detector (`rowwise`) is run SCORE_ROWS rows at a
    time, `check()` (the job's cancel check) and `on_rows(done, total)` called between chunks; an alarm rule k of n is
    read over the whole score afterwards (it looks at the rows before each row)."""
    inner, rule = (det.det, det) if isinstance(det, DET.AlarmRule) else (det, None)
    has_c = per_signal is not None and hasattr(inner, "contributions")

    def one(part):
        if has_c and hasattr(inner, "score_and_contributions"):
            s, c = inner.score_and_contributions(part)
        else:
            s, c = inner.score(part), (inner.contributions(part) if has_c else None)
        return np.asarray(s, dtype=float), (per_signal(np.asarray(c, dtype=float)) if c is not None else None)

    n = len(X)
    if not getattr(inner, "rowwise", False) or n <= SCORE_ROWS:
        score, contrib = one(X)
    else:
        score, contrib = np.empty(n), None
        for a in range(0, n, SCORE_ROWS):
            s, c = one(X[a : a + SCORE_ROWS])
            score[a : a + len(s)] = s
            if c is not None:
                contrib = np.empty((n, c.shape[1])) if contrib is None else contrib
                contrib[a : a + len(c)] = c
            if on_rows:
                on_rows(a + len(s), n)
            if check:
                check()
    if rule is not None:
        score = DET.k_of_n(score, rule.k, rule.n)
    return score, contrib


def fit_model(
    prep: Prepared, spec: dict, algorithm: str, params: dict, check=None, on_step=None, on_rows=None, profile: dict | None = None
) -> tuple[TsadModel, np.ndarray, np.ndarray | None]:
    """`check` (the job's cancel check) is called between the epochs of the neural detectors and between chunks of
    rows scored; `on_step(name)` is told as each step starts (fit, score, threshold), `on_rows(done, total)` as rows
    are scored; `profile` receives the seconds of each step."""
    steps = Steps(on_step)
    steps.step("fit")
    det, p = DET.make(algorithm, params, check)
    tr = prep.split == "train"
    supervised = algorithm in DET.SUPERVISED
    if supervised:
        det.fit(prep.X[tr], prep.label[tr])
    else:
        rows = fit_sample(np.flatnonzero(tr), algorithm)
        det.fit(prep.X[rows])
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
    if not supervised and len(rows) < int(tr.sum()):
        # stated on the report: the rows it was fitted on, a sample of the normal period's fitting rows
        model.info = {**model.info, "fit_rows": len(rows), "fit_sample_of": int(tr.sum())}
    warm = prep.split == "warmup"
    va = prep.split == "validation"
    if supervised:
        # the threshold is chosen on the validation part (the end of the training period), never on the test part
        steps.step("threshold")
        score, _ = score_rows(det, prep.X, check=check)
        score[warm] = np.nan
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
        steps.step("fit")
        both = tr | va
        det.fit(prep.X[both], prep.label[both])
    steps.step("score")
    score, contrib = score_rows(det, prep.X, model.per_signal, check, on_rows)
    score[warm] = np.nan
    if not supervised:
        # fitted on the normal period's first part; the threshold (through the alarm rule) set on its held-back part
        steps.step("threshold")
        model.threshold = float(det.threshold_from(score[va]))
        normal = va & ~prep.label if prep.label is not None else va
        model.info = {**model.info, "far_cross_checked": cross_checked_far(det, score[normal])}
    steps.step(None)
    if profile is not None:
        profile.update(steps.profile)
    return model, score, contrib


def alarm_list(score: np.ndarray, threshold: float, contrib: np.ndarray | None, signals: list[str], times: np.ndarray, split: np.ndarray) -> list[dict]:
    alarm = np.nan_to_num(score, nan=-np.inf) > threshold
    items = []
    for s, e in MET.runs(alarm, MAX_ALARMS):
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


# Rows of series.parquet written at a time (one row group each): the file is written from the arrays as they are,
# a row group at a time, never as one more copy of the whole series.
SERIES_ROWS = 1_000_000


def write_series(path: Path, prep: Prepared, score: np.ndarray, contrib: np.ndarray | None, time_column: str) -> None:
    """pos, time, score, label (-1 without one), split (a dictionary of the part names) and c_<i> (each signal's
    contribution) per row, in time order, as the server's threshold page and the series views read them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(score)
    label = prep.label.astype(np.int8) if prep.label is not None else np.full(n, -1, np.int8)
    times = prep.df[time_column].to_numpy()
    codes = np.asarray(prep.split.codes)
    names = pa.array(list(prep.split.categories), pa.string())
    writer = None
    try:
        for a in range(0, max(n, 1), SERIES_ROWS):
            b = min(n, a + SERIES_ROWS)
            cols = {
                "pos": pa.array(np.arange(a, b, dtype=np.int64)),
                "time": pa.array(times[a:b]),
                "score": pa.array(score[a:b]),
                "label": pa.array(label[a:b]),
                "split": pa.DictionaryArray.from_arrays(pa.array(codes[a:b]), names),
            }
            for i in range(contrib.shape[1] if contrib is not None else 0):
                cols[f"c_{i}"] = pa.array(np.ascontiguousarray(contrib[a:b, i]))
            table = pa.table(cols)
            # only the parts are a dictionary: the other columns (positions, times, scores, contributions) are
            # nearly all distinct, and trying a dictionary for each of them first doubled the write's time
            writer = writer or pq.ParquetWriter(path, table.schema, use_dictionary=["split"])
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def write_model(
    mdir: Path, model: TsadModel, prep: Prepared, score: np.ndarray, contrib: np.ndarray | None, spec: dict, label: str, profile: dict | None = None
) -> dict:
    """The model's files (series.parquet, model.joblib, manifest, model.zip, report.json and report.html). `profile`:
    the seconds of the steps before (read, features, fit, score, ...), written in the report with those of this one."""
    steps = Steps()
    steps.step("evaluate")
    mdir.mkdir(parents=True, exist_ok=True)
    metrics = evaluate(score, model.threshold, prep.label, prep.split, prep.times, model.project_type == SUPERVISED)
    steps.step("write_scores")
    write_series(mdir / "series.parquet", prep, score, contrib, spec["time_column"])
    steps.step("write_model")
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
    sig_std = {s: (prep.signal_sd.get(s) or 1.0) for s in model.features}
    steps.step("report")
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
    steps.step(None)
    # seconds of each step of this model's training (the series' read and features are shared by the project's models)
    report["profile"] = {**prep.profile, **(profile or {}), **steps.profile}
    # strict JSON: the warm-up rows' NaN scores (and any non-finite figure) become null, as the server's schema says
    text = dumps(report)
    (mdir / "report.json").write_text(text, encoding="utf-8")
    report_html.write(mdir, json.loads(text), str(spec.get("project_name") or ""), lang_of(spec), prep.note_codes)
    return {"metrics": summary, "report": report}
