"""Time-series anomaly detectors on the hosted APIs: a block of rows, or the next rows of a stream, scored exactly as
the batch prediction (tasks/predict.py → TsadModel.predict) scores them.

Two ways in (the serving process calls `answer` for a request that carries "tsad"):

- rows: a block of rows with the time column. It goes through the batch path itself (ml/model_io.predict_frame),
  with the threshold in force; each row's answer is the batch prediction's row (same score, same alarm).
- stream: the rows the server kept for a client's series id ("history", oldest first) and the new rows. The server
  (server/src/features/platform/timeseries-serving.ts) keeps the rows and a small state between calls; this module
  is stateless. Only the last rows a new row's score depends on are kept: the warm-up of the lags, windows and
  drifting signals (`warmup_rows`), plus the rows the detector reads back (a sequence window and its persistence, or
  the k-of-n alarm rule), plus, for time-span windows, the rows of that span. On a window that starts inside the
  series, the first rows' features are incomplete; they are blanked and the gap filling starts from the value the
  whole series would have carried there (`carry`), so every row answered equals the same row scored in the whole
  block (tests: server/test/platform-timeseries.test.ts).

Each row's answer: its time as sent, a status, the anomaly score, the alarm (score above the threshold in force; the
score already reads the alarm rule), the signal contributing most and each signal's contribution. Status:
`warming_up` (no score: fewer rows before it than the lags and windows need), `partial_history` (a score, the batch
path's, but fewer than `history_rows` rows before it, so the alarm rule or sequence window saw a shorter past than an
unbroken series gives), `scored`, or `history_exceeds_limit` (a stream whose time-span window needed more rows than a
series keeps: no score rather than a different one).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np
import pandas as pd

from ..ml.model_io import predict_frame
from ..task import EngineError
from ..timeseries.detectors import AlarmRule, SequenceAutoencoder
from ..timeseries.features import _window_arg, warmup, window_features

MAX_KEEP = int(os.environ.get("MITATE_TSAD_STREAM_MAX_ROWS", "10000"))
# A series is kept whole up to this many rows: its answers are then the whole block's to the last bit. Past it, only
# the rows the next score needs are kept; the rolling statistics (pandas' running sums) then start from fewer rows
# than in the whole block and differ from it by their rounding (about 1e-8 on SKAB's near-constant signals).
EXACT_ROWS = int(os.environ.get("MITATE_TSAD_STREAM_EXACT_ROWS", "1000"))
MAX_ROWS = int(os.environ.get("MITATE_SERVE_MAX_ROWS", "10000"))
# steps of a preprocessing condition that read their own row only (with fitted values), so a stream may use them
ROW_LOCAL = {"scaling": None, "computed": None, "outliers": None, "missing": {"mean", "median", "mode", "constant"}}


def is_tsad(model) -> bool:
    return str(getattr(model, "project_type", "")).startswith("time_series_anomaly_detection")


def shape(model) -> dict:
    """What a caller must know to send rows: the warm-up of the features, the rows the detector reads back, their
    sum (`history_rows`), the longest time span of a window, and the alarm rule (k of the last n rows)."""
    det = model.detector
    k, n, back = 1, 1, 0
    if isinstance(det, AlarmRule):
        k, n = int(det.k), int(det.n)
        back += n - 1
        det = det.det
    if isinstance(det, SequenceAutoencoder):
        w, p = int(det.p["window"]), int(det.p["persistence"])
        back += (w - 1) + (p - 1)
        k = n = max(1, p)  # p consecutive windows over the line
    f = warmup(model.lags, model.windows, model.drift_rows if model.drift_signals else 0)
    spans = [pd.Timedelta(w) for w in model.windows if isinstance(_window_arg(w), str)]
    return {
        "warmup_rows": int(f),
        "detector_rows": int(back),
        "history_rows": int(f + back),
        "span": max(spans) if spans else None,
        "alarm_rule": {"k": k, "n": n},
    }


@contextmanager
def _threshold(model, value):
    old = model.threshold
    if value is not None:
        model.threshold = float(value)
    try:
        yield float(model.threshold)
    finally:
        model.threshold = old


def read_time(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """The time column as the batch path has it: numbers stay numbers (a sample number), text becomes date-times
    (ISO 8601, e.g. 2020-03-09 10:14:33; with a zone, turned to UTC without one)."""
    if column not in df.columns:
        return df  # the model's own check names it
    s = df[column]
    if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_datetime64_any_dtype(s):
        return df
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().sum() == s.notna().sum():
        out = num
    else:
        try:
            out = pd.to_datetime(s, format="ISO8601", utc=s.astype(str).str.contains(r"(?:Z|[+-]\d\d:?\d\d)$", regex=True).any())
        except (ValueError, TypeError) as exc:
            bad = next((v for v in s.dropna() if _unreadable(v)), str(exc))
            raise EngineError("tsad_time_unreadable", column=column, value=str(bad)[:80]) from exc
        if getattr(out.dt, "tz", None) is not None:
            out = out.dt.tz_convert("UTC").dt.tz_localize(None)
    df = df.copy()
    df[column] = out
    return df


def _unreadable(v) -> bool:
    try:
        pd.Timestamp(v)
        return False
    except (ValueError, TypeError):
        return True


def _frame(request: dict) -> pd.DataFrame:
    from .serve import to_frame

    return to_frame(request)


def _records(out: pd.DataFrame, times: list, status: list[str], features: list[str]) -> tuple[list[str], list[dict]]:
    names = ["time", "status", "anomaly_score", "alarm", "top_signal", *[f"contribution_{s}" for s in features]]
    score = out["anomaly_score"].to_numpy(dtype=float)
    alarm = out["alarm"].to_numpy(dtype=float)
    top = out["top_signal"].to_numpy(dtype=object) if "top_signal" in out else np.full(len(out), None, dtype=object)
    contrib = {s: out[f"contribution_{s}"].to_numpy(dtype=float) if f"contribution_{s}" in out else np.full(len(out), np.nan) for s in features}
    rows = []
    for i in range(len(out)):
        blank = status[i] in ("warming_up", "history_exceeds_limit") or not np.isfinite(score[i])
        row = {
            "time": times[i],
            "status": status[i],
            "anomaly_score": None if blank else float(score[i]),
            "alarm": None if blank or not np.isfinite(alarm[i]) else bool(alarm[i] > 0),
            "top_signal": None if blank or top[i] is None or (isinstance(top[i], float) and np.isnan(top[i])) else str(top[i]),
        }
        for s in features:
            v = contrib[s][i]
            row[f"contribution_{s}"] = None if blank or not np.isfinite(v) else float(v)
        rows.append(row)
    return names, rows


def _status(score: np.ndarray, position: np.ndarray, history: int) -> list[str]:
    return ["warming_up" if not np.isfinite(s) else ("partial_history" if p < history else "scored") for s, p in zip(score, position)]


def _sent_times(request: dict, df: pd.DataFrame, column: str) -> list:
    if isinstance(request.get("rows"), list):
        return [r.get(column) if isinstance(r, dict) else None for r in request["rows"]]
    return (
        [None if (isinstance(v, float) and np.isnan(v)) else (v.item() if hasattr(v, "item") else v) for v in df[column].tolist()]
        if column in df
        else [None] * len(df)
    )


def info(model, threshold: float, sh: dict, series: str | None = None) -> dict:
    return {
        "time_column": model.time_column,
        "signals": list(model.features),
        "threshold": threshold,
        "alarm_rule": sh["alarm_rule"],
        "history_rows": sh["history_rows"],
        "warmup_rows": sh["warmup_rows"],
        "series": series,
    }


def answer(model, condition: dict | None, request: dict) -> dict:
    """One request: {"rows" | "csv", "threshold", "stream": {"series", "history", "state"} or absent}."""
    spec = request.get("tsad") or {}
    stream = spec.get("stream")
    trained = float(model.threshold)
    with _threshold(model, spec.get("threshold")) as threshold:
        sh = shape(model)
        if stream is None:
            out = _block(model, condition, request, sh)
        else:
            out = _stream(model, condition, request, stream, sh)
        meta = info(model, threshold, sh, stream.get("series") if stream else None)
        meta["trained_threshold"] = trained
        out["time_series"] = meta
        return out


def _block(model, condition, request: dict, sh: dict) -> dict:
    df = _frame(request)
    df = read_time(df, model.time_column)
    out = predict_frame(model, df, condition)
    # each row's place in time order (periods, when the model resamples), for its status
    if model.time_column in df.columns and not model.resample_rule:
        position = df[model.time_column].rank(method="first").to_numpy(dtype=float) - 1
    elif model.time_column in df.columns:
        from ..timeseries.model import resample

        _, position = resample(df, model.time_column, model.resample_rule, model.features)
    else:
        position = np.arange(len(df))
    status = _status(out["anomaly_score"].to_numpy(dtype=float), np.asarray(position), sh["history_rows"])
    names, rows = _records(out, _sent_times(request, df, model.time_column), status, list(model.features))
    return {"outputs": names, "predictions": rows}


def _check_condition(condition: dict | None) -> None:
    for step in (condition or {}).get("steps") or []:
        kind, method = step.get("process_type"), step.get("method")
        allowed = ROW_LOCAL.get(kind, False)
        if allowed is False or (allowed and method not in allowed) or (kind == "outliers" and (step.get("params") or {}).get("action") == "remove"):
            raise EngineError("tsad_stream_condition", step=f"{kind}/{method}")


def _stream(model, condition, request: dict, stream: dict, sh: dict) -> dict:
    series = str(stream.get("series") or "")
    if model.resample_rule:
        raise EngineError("tsad_stream_resampled", rule=model.resample_rule)
    cond = model.condition or condition
    _check_condition(cond)
    new = request.get("rows")
    history = stream.get("history") or []
    if not isinstance(new, list) or not all(isinstance(r, dict) for r in new) or not isinstance(history, list):
        raise EngineError("serve_bad_body")
    if not new:
        raise EngineError("serve_no_rows")
    if len(new) > MAX_ROWS:
        raise EngineError("serve_too_many_rows", max=MAX_ROWS, rows=len(new))
    state = stream.get("state") or {}
    start, p0 = int(state.get("start") or 0), int(state.get("p0") or 0)
    carry = state.get("carry")
    df = pd.DataFrame.from_records([*history, *new])
    if cond and cond.get("steps"):
        from ..preprocessing.condition import apply_condition

        df = apply_condition(df, cond, skip_missing_columns=True, keep_index=True)
    model.check(df)
    df = read_time(df, model.time_column).reset_index(drop=True)
    t = df[model.time_column]
    if t.isna().any():
        raise EngineError("tsad_time_empty", column=model.time_column, count=int(t.isna().sum()))
    L, m = len(df), len(new)
    tv = t.to_numpy()
    back = np.flatnonzero(~(tv[1:] > tv[:-1]))
    bad = [i + 1 for i in back if i + 1 >= L - m]
    if bad:
        i = bad[0]
        raise EngineError("tsad_stream_order", series=series, row=i - (L - m) + 1, time=str(t.iloc[i]), last=str(t.iloc[i - 1]))
    is_dt = pd.api.types.is_datetime64_any_dtype(t)
    if sh["span"] is not None and not is_dt:
        raise EngineError("tsad_span_needs_datetime", window=str(sh["span"]))
    F = window_features(
        df,
        model.features,
        model.lags,
        model.windows,
        stats=tuple(model.window_stats),
        time=t if is_dt else None,
        drift=model.drift_signals or [],
        drift_rows=model.drift_rows,
    )[model.feature_columns]
    Fv = np.array(F.to_numpy(dtype=float), copy=True)
    if start > 0:
        # the first p0 rows read rows no longer kept: blanked; gaps start from what the whole series carried there
        Fv[: min(p0, L)] = np.nan
        seed = np.array([np.nan if v is None else float(v) for v in (carry or [])], dtype=float)
        if seed.shape != (Fv.shape[1],):
            seed = np.full(Fv.shape[1], np.nan)
        filled = pd.DataFrame(np.vstack([seed, Fv])).ffill().to_numpy()[1:]
    else:
        filled = pd.DataFrame(Fv).ffill().to_numpy()
    # the detector scores only the new rows and the rows it reads back (the alarm rule, a sequence window): the same
    # numbers for the new rows as scoring every kept row, at the cost of the new rows
    lo = max(0, L - m - sh["detector_rows"])
    X = np.where(np.isnan(filled[lo:]), model.medians, filled[lo:])
    warm = (start + np.arange(lo, L)) < sh["warmup_rows"]
    det = model.detector
    both = hasattr(det, "score_and_contributions")
    score, c = det.score_and_contributions(X) if both else (det.score(X), None)
    score = np.asarray(score, dtype=float)
    score[warm] = np.nan
    contrib = None
    if hasattr(det, "contributions"):
        if c is None:
            c = det.contributions(X)
        if c is not None:
            contrib = model.per_signal(np.asarray(c, dtype=float))
            contrib[warm] = np.nan
    out = model._answer(score, contrib).iloc[L - m - lo :]
    positions = np.arange(L - m, L)
    status = _status(out["anomaly_score"].to_numpy(dtype=float), start + positions, sh["history_rows"])
    if start > 0:
        status = [s if p - sh["detector_rows"] >= p0 else "history_exceeds_limit" for s, p in zip(status, positions)]
    names, rows = _records(out, [r.get(model.time_column) for r in new], status, list(model.features))
    return {"outputs": names, "predictions": rows, "state": _next_state(tv, filled, start, p0, carry, sh, L)}


def _first_at_or_after(tv: np.ndarray, k: int, span) -> int:
    """The first position q >= 0 (counted from k) whose time is at least time[k] + span; len - k when none is."""
    if span is None:
        return 0
    return int(np.searchsorted(tv, tv[k] + span.to_timedelta64(), side="left")) - k


def _next_state(tv: np.ndarray, filled: np.ndarray, start: int, p0: int, carry, sh: dict, L: int) -> dict:
    """How many of the kept rows the next call may do without (`drop`), and the state of the window that then
    starts: where its rows become complete (p0) and the gap-filling value just before that (carry). The rows kept are
    the fewest that leave the next row's score unchanged; at most MAX_KEEP."""
    f, back, span = sh["warmup_rows"], sh["detector_rows"], sh["span"]
    if start == 0 and L <= min(EXACT_ROWS, MAX_KEEP):
        return {"drop": 0, "start": 0, "p0": 0, "carry": None}
    k = L - sh["history_rows"]
    if span is not None and k > 0:
        # every row within the span before the oldest row the next score reads must stay
        ref = tv[min(L - back, L - 1)]
        k = min(k, int(np.searchsorted(tv, ref - span.to_timedelta64(), side="right")) - 1)
    k = max(k, L - MAX_KEEP, 0)
    if k == 0:
        return {"drop": 0, "start": start, "p0": p0, "carry": carry}
    q = _first_at_or_after(tv, k, span)
    p0n = min(max(f, q), L - k)
    at = k + p0n - 1
    vec = filled[at] if at >= 0 else np.full(filled.shape[1], np.nan)
    return {"drop": int(k), "start": start + int(k), "p0": int(p0n), "carry": [None if not np.isfinite(v) else float(v) for v in vec]}
