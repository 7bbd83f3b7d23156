"""Kind `tsad_drift_suggest`: which chosen signals drift slowly within the period a time-series project learns from
(the wizard's suggestion of "slowly drifting signals"; the rule is timeseries/drift.py, nothing is applied by it).

Spec: project_type, parquet, time_column, features (signals), resample (optional), normal ({mode: rows, rows} |
{mode: range, start, end}; unsupervised) or split_ratio (supervised: the training part, as timeseries/trainer.py splits).
Result: timeseries.drift.suggest_drift's answer (per signal its figures and reason as a catalogue code, the period's
`rows` and the `sample_rows` looked at) and `period`.

Without resampling only the time column becomes a whole frame: the signals are read with pyarrow (only their columns)
and only the sample's rows (timeseries.drift.sample_positions of the period's rows in time order) are converted, so a
10 M-row table costs its time column, its signals' Arrow columns and a frame of at most 200,000 rows. Resampling needs every row of the signals (each period's mean), so it reads them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..ml.data import parquet_columns
from ..task import Context, EngineError, Task
from ..timeseries.drift import sample_block, sample_positions, suggest_drift
from ..timeseries.model import order_by_time, resample
from ..timeseries.trainer import SUPERVISED, normal_mask, read_series, training_rows


class TsadDriftSuggest(Task):
    kind = "tsad_drift_suggest"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not spec.get("parquet"):
            raise EngineError("spec_parquet_required")
        signals = list(spec.get("features") or [])
        time_col = spec.get("time_column")
        if not time_col:
            raise EngineError("tsad_no_time_column")
        if not signals:
            raise EngineError("no_features")
        if spec.get("resample"):
            df = read_series(spec["parquet"], [time_col, *signals])
            _check_numeric(df, signals)
            df, _ = resample(df, time_col, spec["resample"], signals)
            df, _ = order_by_time(df, time_col)
            positions = np.arange(len(df))  # positions in the resampled frame
        else:
            parquet_columns(spec["parquet"], [time_col, *signals])  # the catalogued errors first, as read_series
            table = pq.read_table(spec["parquet"], columns=list(dict.fromkeys(signals)))
            _check_numeric(table.slice(0, 0).to_pandas(), signals)  # the dtypes the frame will have, no rows converted
            times = read_series(spec["parquet"], [time_col]).reset_index(drop=True)  # not a stored pandas index
            df, _ = order_by_time(times, time_col)
            positions = df.index.to_numpy()  # positions in the file, in time order
        df = df.reset_index(drop=True)
        if spec.get("project_type") == SUPERVISED:
            start, end = training_rows(len(df), spec.get("split_ratio"))
            period, in_period = "train", positions[start:end]
        else:
            normal = spec.get("normal") or {"mode": "rows", "rows": max(10, len(df) // 2)}
            period, in_period = "normal", positions[normal_mask(df, time_col, normal)]
        picked = in_period[sample_positions(len(in_period))]
        rows = df.iloc[picked] if spec.get("resample") else _rows(table, picked)
        return {**suggest_drift(rows, signals, period, period_rows=len(in_period), block=sample_block(len(in_period))), "period": period}


def _check_numeric(df: pd.DataFrame, signals: list[str]) -> None:
    for c in signals:
        if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
            raise EngineError("tsad_signal_not_numeric", column=c)


def _rows(table, positions: np.ndarray) -> pd.DataFrame:
    """The signals' rows at `positions` (rows of the file, in the order given) as a frame: only those converted."""
    return table.take(positions).to_pandas()
