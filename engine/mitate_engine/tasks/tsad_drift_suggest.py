"""Kind `tsad_drift_suggest`: which chosen signals drift slowly within the period a time-series project learns from
(the wizard's suggestion of "slowly drifting signals"; the rule is timeseries/drift.py, nothing is applied by it).

Spec: project_type, parquet, time_column, features (signals), resample (optional), normal ({mode: rows, rows} |
{mode: range, start, end}; unsupervised) or split_ratio (supervised: the training part, as timeseries/trainer.py splits).
Result: timeseries.drift.suggest_drift's answer (per signal its figures and reason as a catalogue code) and `period`.
"""

from __future__ import annotations

import pandas as pd

from ..task import Context, EngineError, Task
from ..timeseries.drift import suggest_drift
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
        df = read_series(spec["parquet"], [time_col, *signals])
        for c in signals:
            if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
                raise EngineError("tsad_signal_not_numeric", column=c)
        if spec.get("resample"):
            df, _ = resample(df, time_col, spec["resample"], signals)
        df, _ = order_by_time(df, time_col)
        df = df.reset_index(drop=True)
        if spec.get("project_type") == SUPERVISED:
            start, end = training_rows(len(df), spec.get("split_ratio"))
            period, rows = "train", df.iloc[start:end]
        else:
            normal = spec.get("normal") or {"mode": "rows", "rows": max(10, len(df) // 2)}
            period, rows = "normal", df[normal_mask(df, time_col, normal)]
        return {**suggest_drift(rows, signals, period), "period": period}
