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
    cols = dict(feature_columns(df, signals, lags, windows, stats, time, drift, drift_rows))
    return pd.DataFrame(cols, index=df.index)


def window_matrix(
    df: pd.DataFrame,
    signals: list[str],
    lags: list[int],
    windows: list[int | str],
    stats: tuple[str, ...] = STATS,
    time: pd.Series | None = None,
    drift: list[str] | None = None,
    drift_rows: int = 0,
) -> tuple[list[str], np.ndarray]:
    """The columns of `window_features` as one float64 matrix (rows × features), each gap carried forward from the
    rows before it (past values only; NaN where nothing came before). Built one column at a time into the matrix, so
    the table is never held twice: memory is the matrix plus one column (a 10 M-row series of 7 signals: 560 MB)."""
    names = feature_names(signals, lags, windows, stats, drift, drift_rows)
    X = np.empty((len(df), len(names)), dtype=np.float64)
    for j, (_name, values) in enumerate(feature_columns(df, signals, lags, windows, stats, time, drift, drift_rows)):
        # carried forward while the column is contiguous (its own array), then written into the matrix once
        values = np.asarray(values, dtype=np.float64)
        gap = _inner_gaps(values)
        if gap is not None:
            values = values.copy()  # may be the frame's own column (a view): not changed
            carry_forward(values, gap)
        X[:, j] = values
    return names, X


def _inner_gaps(v: np.ndarray) -> np.ndarray | None:
    """`v`'s NaNs, or None when there is none after its first value (leading NaNs, a window's or a change's warm-up,
    have nothing before them to carry forward)."""
    gap = np.isnan(v)
    if not len(v):
        return None
    first = int(np.argmin(gap))  # the first value (0 when there is none: then nothing is carried either)
    return gap if gap[first:].any() and not gap.all() else None


def carry_forward(v: np.ndarray, gap: np.ndarray | None = None) -> None:
    """Each NaN of `v` replaced in place by the last value before it (none before it: stays NaN), as pandas ffill.
    `gap`: isnan(v), when known."""
    gap = np.isnan(v) if gap is None else gap
    if not gap.any():
        return
    last = np.where(gap, 0, np.arange(len(v)))  # leading gaps point at row 0, itself a gap: they stay NaN
    np.maximum.accumulate(last, out=last)
    v[:] = v[last]


def feature_names(
    signals: list[str], lags: list[int], windows: list[int | str], stats: tuple[str, ...] = STATS, drift: list[str] | None = None, drift_rows: int = 0
) -> list[str]:
    """The feature columns' names in their order (see window_features)."""
    slow, out = set(drift or []), []
    for c in signals:
        if c in slow:
            out.append(f"{c}__change{int(drift_rows)}")
            continue
        out.append(c)
        out.extend(f"{c}__lag{k}" for k in lags)
        out.extend(f"{c}__{st}{_window_arg(w)}" for w in windows for st in stats)
    return out


def feature_columns(
    df: pd.DataFrame, signals: list[str], lags: list[int], windows: list[int | str], stats: tuple[str, ...], time: pd.Series | None, drift, drift_rows: int
):
    """(name, values) of each feature column in order, one at a time (window_features' columns)."""
    slow = set(drift or [])
    for c in signals:
        s = pd.to_numeric(df[c], errors="coerce").astype("float64")
        if c in slow:
            yield f"{c}__change{int(drift_rows)}", (s - s.shift(int(drift_rows))).to_numpy()
            continue
        yield c, s.to_numpy()
        for k in lags:
            yield f"{c}__lag{k}", s.shift(int(k)).to_numpy()
        for w in windows:
            w = _window_arg(w)
            if isinstance(w, str):
                if time is None:
                    raise EngineError("tsad_span_needs_datetime", window=w)
                at = pd.DatetimeIndex(time.to_numpy())
                r = pd.Series(s.to_numpy(), index=at).rolling(w, min_periods=1)
                for st in stats:
                    exact = _span_stat(s.to_numpy(), at, w, st) if st in ("mean", "std") else None
                    yield f"{c}__{st}{w}", getattr(r, st)().to_numpy() if exact is None else exact
            else:
                r = s.rolling(w, min_periods=w)
                for st in stats:
                    exact = _window_stat(s.to_numpy(), w, st) if st in ("mean", "std") else _window_extreme(s.to_numpy(), w, st)
                    yield f"{c}__{st}{w}", getattr(r, st)().to_numpy() if exact is None else exact


_CHUNK_CELLS = 1 << 22


def _window_stat(x: np.ndarray, w: int, stat: str) -> np.ndarray:
    """Mean or sample std (ddof 1, as pandas) of each trailing window of `w` rows, computed from that window alone.
    pandas' rolling mean/std keep running sums, so a window's value carries rounding from every earlier row: a hosted
    stream that keeps only recent rows would then differ from the whole series (by ~1e-10). NaN where the window is
    incomplete or holds a NaN, as pandas with min_periods=w. Chunked so memory stays ~32 MB whatever the length."""
    n = len(x)
    out = np.full(n, np.nan)
    if n < w or (stat == "std" and w == 1):
        return out
    views = np.lib.stride_tricks.sliding_window_view(x, w)
    step = max(1, _CHUNK_CELLS // w)
    with np.errstate(invalid="ignore", divide="ignore"):
        for a in range(0, len(views), step):
            v = views[a : a + step]
            if w <= _COLUMN_W:
                # a short window: its w rows as w shifted columns, summed in numpy's own order (_row_sum), so the
                # same figures as v.mean / v.std along each row, without one small reduction per row
                cols = [x[a + i : a + i + len(v)] for i in range(w)]
                mean = _row_sum(cols) / w
                val = mean if stat == "mean" else np.sqrt(_row_sum([np.square(c - mean) for c in cols]) / (w - 1))
            else:
                val = v.mean(axis=1) if stat == "mean" else v.std(axis=1, ddof=1)
            out[w - 1 + a : w - 1 + a + len(v)] = val
    return out


# Windows up to this many rows are summarised column by column (w shifted views of the signal), longer ones row by row
_COLUMN_W = 32


def _row_sum(cols: list[np.ndarray]) -> np.ndarray:
    """The elementwise sum of `cols` in the order numpy's add.reduce sums a row of len(cols) values (its pairwise
    summation: in order under 8 values, else 8 running sums combined pairwise, the rest added in order; halves over
    128), so the sum of each row of a window is the same figure as numpy's, to the last bit."""
    n = len(cols)
    if n < 8:
        res = cols[0].copy()
        for c in cols[1:]:
            res += c
        return res
    if n <= 128:
        r = [c.copy() for c in cols[:8]]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += cols[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for c in cols[i:]:
            res += c
        return res
    half = n // 2
    half -= half % 8
    return _row_sum(cols[:half]) + _row_sum(cols[half:])


def _window_extreme(x: np.ndarray, w: int, stat: str) -> np.ndarray | None:
    """The min or max of each trailing window of `w` rows as pandas' rolling with min_periods=w gives it (infinities
    read as gaps, NaN where the window is incomplete or holds a gap), from w shifted columns; None (pandas is used)
    for a window over _COLUMN_W rows."""
    if w > _COLUMN_W:
        return None
    n = len(x)
    out = np.full(n, np.nan)
    if n < w:
        return out
    x = np.where(np.isinf(x), np.nan, x)
    fold = np.minimum if stat == "min" else np.maximum
    m = n - w + 1
    acc = x[:m].copy()
    for i in range(1, w):
        fold(acc, x[i : i + m], out=acc)  # a NaN anywhere in the window stays NaN
    out[w - 1 :] = acc
    return out


_SPAN_MAX_ROWS = 512


def _span_stat(x: np.ndarray, at: pd.DatetimeIndex, span: str, stat: str) -> np.ndarray | None:
    """Mean or sample std over the rows of the trailing time span (t - span, t], NaNs left out, from each window's own
    rows (newest first, a fixed order) so that it does not depend on earlier rows (see _window_stat). None (pandas'
    running sums are used) when a window holds more than _SPAN_MAX_ROWS rows or the span is not a fixed length."""
    try:
        width = pd.tseries.frequencies.to_offset(span).nanos
    except ValueError:
        return None
    n = len(x)
    if n == 0:
        return None
    t = at.as_unit("ns").asi8
    idx = np.arange(n)
    rows = idx - np.searchsorted(t, t - width, side="right") + 1
    longest = int(rows.max())
    if longest > _SPAN_MAX_ROWS:
        return None
    ok = ~np.isnan(x)
    xz = np.where(ok, x, 0.0)

    def window_sum(values: np.ndarray) -> np.ndarray:
        out = np.zeros(n)
        for k in range(longest):
            j = np.maximum(idx - k, 0)
            out += np.where((k < rows) & ok[j], values[j], 0.0)
        return out

    count = window_sum(np.ones(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, window_sum(xz) / count, np.nan)
        if stat == "mean":
            return mean
        squares = np.zeros(n)
        for k in range(longest):
            j = np.maximum(idx - k, 0)
            squares += np.where((k < rows) & ok[j], (xz[j] - mean) ** 2, 0.0)
        return np.where(count > 1, np.sqrt(squares / (count - 1)), np.nan)


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
