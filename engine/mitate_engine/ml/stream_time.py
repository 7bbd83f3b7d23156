"""A soft sensor on a table too large to hold (ml/stream.py): the rows stay in the file's order, which must be the
time order, and the time split is a file position.

Before the pass that reads the features (`stream.scan`), `time_plan` reads the target and the time column row group by
row group: it checks the time order (non-decreasing, a time on every row; the whole-table path sorts, which a streamed
table cannot), counts the rows that train and test as the whole-table path does (the first rows, as many as the longest
lag or window needs, and the rows without a target left out; the first `split_ratio` of the rest train, or the rows
before the split time), and finds the file positions where the test rows and the training sample begin. The training
sample is the most recent SAMPLE_ROWS training rows (cross-validation forward in time needs them contiguous), the test
sample a hashed share of the test rows (and a hashed share of every training row is kept for LightGBM's bins, which
the recent rows alone would learn too narrow); the report's time axis is kept for the training sample and for the test rows
its time-series chart draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..task import EngineError


@dataclass
class Clock:
    """What the scan keeps of the time axis: the training sample's times and those of the charted test rows."""

    column: str | None
    sample_pos: int  # the file position of the first training-sample row
    n_test: int
    test_band: float  # a test row is in the test sample when its hash number u is below this
    bin_band: float  # a training row is among those LightGBM's bins are learnt on when its u is below this
    chart: np.ndarray  # test-row ordinals the report's time-series chart draws
    time_train: list = field(default_factory=list)
    time_test: dict = field(default_factory=dict)
    _tests: int = 0  # test rows seen so far
    _kept: int = 0  # rows with a target after the warm-up seen so far (the axis without a time column)

    def collect(self, f, g: int, s_tr: np.ndarray, test: np.ndarray, keep: np.ndarray) -> None:
        ordinal = self._tests + np.cumsum(test) - 1
        charted = test & np.isin(ordinal, self.chart)
        if s_tr.any() or charted.any():
            if self.column:
                axis = f.read_row_group(g, columns=[self.column]).column(0).to_pandas().astype(str).to_numpy(dtype=object)
            else:
                axis = self._kept + np.cumsum(keep) - 1
            self.time_train.extend(axis[s_tr].tolist())
            self.time_test.update(zip(ordinal[charted].tolist(), axis[charted].tolist(), strict=True))
        self._tests += int(test.sum())
        self._kept += int(keep.sum())


def time_plan(f, st, column: str | None, ratio: float, split_time: str | None, rows: tuple[int, int], chart_points: int) -> Clock:
    """Checks the time order, sets `st.split_pos` and returns the Clock of the scan (see the module); `rows` are the
    sizes of the training sample and of the rows the bins are learnt on."""
    sample_rows, bin_rows = rows
    md = f.metadata
    cols = [st.target, *([column] if column else [])]
    kept: list[int] = []
    before = 0  # rows kept with a time before split_time
    last = None
    for g in range(md.num_row_groups):
        t = f.read_row_group(g, columns=cols).to_pandas()
        keep = _kept(t[st.target], st.group_offset[g], st.warmup)
        kept.append(int(keep.sum()))
        if column:
            s = t[column]
            if len(s) and (s.isna().any() or not s.is_monotonic_increasing or (last is not None and s.iloc[0] < last)):
                from .stream import stream_rows

                raise EngineError("stream_time_order", column=column, rows=st.n_rows, max=stream_rows())
            last = s.iloc[-1] if len(s) else last
            if split_time:
                before += int((pd.to_datetime(s[keep]) < pd.Timestamp(split_time)).sum())
    n = sum(kept)
    if n < 10:
        raise EngineError("target_too_few", column=st.target)
    if split_time and column:
        n_train = before
        if n_train < 5 or n_train > n - 2:
            raise EngineError("split_time_edge")
    else:
        n_train = min(max(int(round(n * ratio)), 2), n - 1)
    st.split_pos = _position(f, st, kept, n_train)
    n_test = n - n_train
    chart = np.arange(n_test) if n_test <= chart_points else np.sort(np.random.default_rng(0).choice(n_test, chart_points, replace=False))
    start = _position(f, st, kept, max(0, n_train - sample_rows))
    return Clock(column, start, n_test, sample_rows / max(n_test, 1), bin_rows / max(n_train, 1), chart)


def _kept(y: pd.Series, start: int, warmup: int) -> np.ndarray:
    return y.notna().to_numpy() & (np.arange(start, start + len(y)) >= warmup)


def _position(f, st, kept: list[int], k: int) -> int:
    """The file position of the k-th kept row (0-based), or the number of rows when there is none."""
    before = 0
    for g, n in enumerate(kept):
        if k < before + n:
            y = f.read_row_group(g, columns=[st.target]).column(0).to_pandas()
            return int(st.group_offset[g] + np.flatnonzero(_kept(y, st.group_offset[g], st.warmup))[k - before])
        before += n
    return st.n_rows
