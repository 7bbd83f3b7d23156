"""Point-wise and event-level metrics of alarms against labels. An event is a run of consecutive anomalous
labels; an alarm span overlapping it counts once."""

from __future__ import annotations

import numpy as np


def runs(flags: np.ndarray, limit: int | None = None) -> list[tuple[int, int]]:
    """[start, end] (inclusive) row positions of consecutive True values; the first `limit` of them when given."""
    f = np.asarray(flags, dtype=bool).astype(np.int8)
    if not len(f):
        return []
    d = np.diff(np.concatenate([[0], f, [0]]))
    starts = np.flatnonzero(d == 1)[:limit]
    ends = np.flatnonzero(d == -1)[:limit] - 1
    return list(zip(starts.tolist(), ends.tolist()))


def run_count(flags: np.ndarray) -> int:
    """len(runs(flags)), counted without listing them: the rows that are True after a False one (or first)."""
    f = np.asarray(flags, dtype=bool)
    if not len(f):
        return 0
    return int(f[0]) + int(np.count_nonzero(f[1:] & ~f[:-1]))


def _ratio(a: float, b: float) -> float | None:
    return float(a / b) if b else None


def pointwise(alarm: np.ndarray, label: np.ndarray) -> dict:
    a = np.asarray(alarm, dtype=bool)
    y = np.asarray(label, dtype=bool)
    tp = int(np.sum(a & y))
    fp = int(np.sum(a & ~y))
    fn = int(np.sum(~a & y))
    tn = int(np.sum(~a & ~y))
    p = _ratio(tp, tp + fp)
    r = _ratio(tp, tp + fn)
    # without an anomalous row there is nothing to detect: F1 (and recall) cannot be computed, so null, never 0
    f1 = None if tp + fn == 0 else (2 * p * r / (p + r) if (p is not None and p + r > 0) else 0.0)
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": p, "recall": r, "f1": f1, "far": _ratio(fp, fp + tn), "mar": _ratio(fn, fn + tp)}


def event_level(alarm: np.ndarray, label: np.ndarray, times: np.ndarray | None = None) -> dict:
    """Events detected (any alarm inside), alarm spans that hit an event, and time to detect per event
    (rows, and seconds when `times` are datetimes)."""
    a = np.asarray(alarm, dtype=bool)
    events = runs(np.asarray(label, dtype=bool))
    spans = runs(a)
    detected, delays = 0, []
    for s, e in events:
        hit = np.flatnonzero(a[s : e + 1])
        item = {"start": s, "end": e, "detected": bool(len(hit)), "delay_rows": int(hit[0]) if len(hit) else None}
        if len(hit) and times is not None and np.issubdtype(np.asarray(times).dtype, np.datetime64):
            item["delay_seconds"] = float((times[s + hit[0]] - times[s]) / np.timedelta64(1, "s"))
        detected += bool(len(hit))
        delays.append(item)
    y = np.asarray(label, dtype=bool)
    true_spans = sum(1 for s, e in spans if y[s : e + 1].any())
    p = _ratio(true_spans, len(spans))
    r = _ratio(detected, len(events))
    # no labelled event: nothing to detect, F1 null (not 0); events but no hit (or no alarm): 0
    f1 = None if r is None else (2 * p * r / (p + r) if (p and r) else 0.0)
    return {
        "events": len(events),
        "events_detected": detected,
        "alarm_spans": len(spans),
        "alarm_spans_true": true_spans,
        "precision": p,
        "recall": r,
        "f1": f1,
        "per_event": delays,
    }


def alarms_per_day(alarm: np.ndarray, times: np.ndarray | None) -> float | None:
    if times is None or not np.issubdtype(np.asarray(times).dtype, np.datetime64) or len(times) < 2:
        return None
    days = float((times[-1] - times[0]) / np.timedelta64(1, "D"))
    return run_count(alarm) / days if days > 0 else None
