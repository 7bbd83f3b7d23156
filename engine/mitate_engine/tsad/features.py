"""Windowed features that only look back: a value at row t is computed from rows <= t, never t+1."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import fail

STATS = ("mean", "std", "min", "max")


def _window_arg(w: int | str) -> int | str:
    return int(w) if isinstance(w, (int, np.integer)) or str(w).isdigit() else str(w)


def window_features(
    df: pd.DataFrame, signals: list[str], lags: list[int], windows: list[int | str], stats: tuple[str, ...] = STATS, time: pd.Series | None = None
) -> pd.DataFrame:
    """The raw signals, each lagged by `lags` rows and summarised over trailing `windows` (rows, or a time span
    such as '5min' when `time` is given). Rolling windows are right-aligned (pandas default): no look-ahead."""
    base = df[signals].apply(pd.to_numeric, errors="coerce").astype("float64")
    cols: dict[str, pd.Series] = {c: base[c] for c in signals}
    for c in signals:
        s = base[c]
        for k in lags:
            cols[f"{c}__lag{k}"] = s.shift(int(k))
        for w in windows:
            w = _window_arg(w)
            if isinstance(w, str):
                if time is None:
                    raise fail("tsad_span_needs_datetime", window=w)
                r = pd.Series(s.to_numpy(), index=pd.DatetimeIndex(time.to_numpy())).rolling(w, min_periods=1)
                for st in stats:
                    cols[f"{c}__{st}{w}"] = pd.Series(getattr(r, st)().to_numpy(), index=s.index)
            else:
                r = s.rolling(w, min_periods=w)
                for st in stats:
                    cols[f"{c}__{st}{w}"] = getattr(r, st)()
    return pd.DataFrame(cols, index=df.index)


def warmup(lags: list[int], windows: list[int | str]) -> int:
    """Rows at the start whose features are incomplete (time-span windows start at once)."""
    rows = [int(w) - 1 for w in windows if isinstance(_window_arg(w), int)]
    return max([0, *map(int, lags), *rows])


def signal_of(feature: str) -> str:
    return feature.split("__", 1)[0]
