"""Windowed features that only look back: a value at row t is computed from rows <= t, never t+1."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..task import EngineError

STATS = ("mean", "std", "min", "max")


def _window_arg(w: int | str) -> int | str:
    return int(w) if isinstance(w, (int, np.integer)) or str(w).isdigit() else str(w)


def window_features(
    df: pd.DataFrame,
    signals: list[str],
    lags: list[int],
    windows: list[int | str],
    stats: tuple[str, ...] = STATS,
    time: pd.Series | None = None,
    drift: list[str] | None = None,
    drift_rows: int = 0,
) -> pd.DataFrame:
    """The raw signals, each lagged by `lags` rows and summarised over trailing `windows` (rows, or a time span
    such as '5min' when `time` is given). Rolling windows are right-aligned (pandas default): no look-ahead.

    A slowly drifting signal (in `drift`) enters only as its change over the last `drift_rows` rows,
    x[t] - x[t - drift_rows] (column `<signal>__change<L>`): its level, lags and windows are left out, so the model
    watches how fast it moves, not where it has wandered to. NaN for the first `drift_rows` rows (the warm-up)."""
    base = df[signals].apply(pd.to_numeric, errors="coerce").astype("float64")
    slow = set(drift or [])
    cols: dict[str, pd.Series] = {}
    for c in signals:
        s = base[c]
        if c in slow:
            cols[f"{c}__change{int(drift_rows)}"] = s - s.shift(int(drift_rows))
            continue
        cols[c] = s
        for k in lags:
            cols[f"{c}__lag{k}"] = s.shift(int(k))
        for w in windows:
            w = _window_arg(w)
            if isinstance(w, str):
                if time is None:
                    raise EngineError("tsad_span_needs_datetime", window=w)
                r = pd.Series(s.to_numpy(), index=pd.DatetimeIndex(time.to_numpy())).rolling(w, min_periods=1)
                for st in stats:
                    cols[f"{c}__{st}{w}"] = pd.Series(getattr(r, st)().to_numpy(), index=s.index)
            else:
                r = s.rolling(w, min_periods=w)
                for st in stats:
                    cols[f"{c}__{st}{w}"] = getattr(r, st)()
    return pd.DataFrame(cols, index=df.index)


def warmup(lags: list[int], windows: list[int | str], drift_rows: int = 0) -> int:
    """Rows at the start whose features are incomplete (time-span windows start at once; a change over L rows needs
    L rows before it). One rule for every signal: the longest of them, even where a setting applies to some only."""
    rows = [int(w) - 1 for w in windows if isinstance(_window_arg(w), int)]
    return max([0, *map(int, lags), *rows, int(drift_rows or 0)])


def check_stats(stats) -> tuple[str, ...]:
    """The statistics of the rolling windows (a subset of STATS, in STATS' order); all four when not given."""
    if not stats:
        return STATS
    unknown = [s for s in stats if s not in STATS]
    if unknown:
        raise EngineError("tsad_window_stat", stat=unknown[0])
    return tuple(s for s in STATS if s in set(stats))


def check_drift(signals: list[str], drift: list[str] | None, drift_rows) -> tuple[list[str], int]:
    """The drifting signals (in the order of `signals`) and L, or a catalogued error: each must be a selected signal,
    L a whole number of rows >= 1 when any signal drifts. Without drifting signals L is 0 (not used)."""
    drift = list(drift or [])
    if not drift:
        return [], 0
    unknown = [d for d in drift if d not in signals]
    if unknown:
        raise EngineError("tsad_drift_not_signal", column=unknown[0])
    try:
        L = int(drift_rows)
        ok = float(drift_rows) == L and L >= 1
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise EngineError("tsad_drift_rows", rows=drift_rows)
    return [s for s in signals if s in set(drift)], L


def signal_of(feature: str) -> str:
    return feature.split("__", 1)[0]
