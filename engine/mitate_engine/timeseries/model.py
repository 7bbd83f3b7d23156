"""A trained anomaly detector as one object with the interface of ml.model.TrainedModel (check, predict,
manifest), so the existing `predict` job and a user who unzips the model run the same code path."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..ml import data as D
from ..ml.model import manifest_head
from ..task import EngineError
from .features import STATS, signal_of, warmup, window_features


def order_by_time(df: pd.DataFrame, time_column: str) -> tuple[pd.DataFrame, dict]:
    """Rows sorted by time (stable); duplicates are refused, sorting is reported."""
    t = df[time_column]
    if t.isna().any():
        raise EngineError("tsad_time_empty", column=time_column, count=int(t.isna().sum()))
    sorted_already = bool(t.is_monotonic_increasing)
    if sorted_already:  # equal neighbours are the duplicates: no hash table of every time
        v = t.to_numpy()
        same = v[1:] == v[:-1]
        dup = int(same.sum())
        first = str(t.iloc[int(np.argmax(same)) + 1]) if dup else None
    else:
        dupe = t.duplicated()
        dup = int(dupe.sum())
        first = str(t[dupe].iloc[0]) if dup else None
    if dup:
        raise EngineError("tsad_time_duplicates", column=time_column, count=dup, first=first)
    if not sorted_already:
        df = df.sort_values(time_column, kind="stable")
    return df, {"sorted": not sorted_already}


RESAMPLE_RULE = re.compile(r"^(\d{1,6})?(ms|s|min|h)$")


def resample(df: pd.DataFrame, time_column: str, rule: str, signals: list[str], label: str | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows grouped into regular periods of `rule` (e.g. '1s', '5min'): signals averaged, the label anomalous when
    any row of the period is (as 0/1). Periods without rows stay absent (gaps are not invented). Also gives, for
    each input row (in the input's order), the position of its period in the result."""
    if not RESAMPLE_RULE.match(str(rule)):
        raise EngineError("tsad_bad_resample", rule=rule)
    t = df[time_column]
    if not pd.api.types.is_datetime64_any_dtype(t):
        raise EngineError("tsad_resample_needs_datetime", rule=rule, column=time_column)
    bucket = t.dt.floor(str(rule))
    cols = {c: pd.to_numeric(df[c], errors="coerce").astype("float64") for c in signals}
    if label:
        cols[label] = pd.Series(binarize(df[label]).astype(float), index=df.index)
    g = pd.DataFrame(cols, index=df.index).groupby(bucket.to_numpy(), sort=True)
    agg = g.mean()
    if label:
        agg[label] = g[label].max()
    agg.index.name = time_column
    out = agg.reset_index()
    pos = np.searchsorted(out[time_column].to_numpy(), bucket.to_numpy())
    return out, pos


def binarize(label: pd.Series) -> np.ndarray:
    """Anomaly = any value other than 0 / false / 'normal' (TEP labels faults by number, SKAB by 1)."""
    if pd.api.types.is_numeric_dtype(label) or pd.api.types.is_bool_dtype(label):
        v = pd.to_numeric(label, errors="coerce").fillna(0).to_numpy()
        return v != 0
    s = label.astype("string").str.strip().str.lower().fillna("0")
    return ~s.isin(["0", "0.0", "false", "normal", "ok", ""]).to_numpy()


@dataclass
class TsadModel:
    project_type: str
    algorithm: str
    target: str | None  # the label column (supervised, or unsupervised with labels for evaluation)
    features: list[str]  # raw signals
    time_column: str
    lags: list[int]
    windows: list
    detector: Any
    feature_columns: list[str]
    medians: np.ndarray
    threshold: float
    params: dict = field(default_factory=dict)
    condition: dict | None = None
    info: dict = field(default_factory=dict)

    @property
    def kinds(self) -> dict[str, str]:
        return {c: "numeric" for c in self.features}

    categories: dict = field(default_factory=dict)
    resample_rule: str | None = None  # rows grouped into regular periods before the windows (see `resample`)
    # slowly drifting signals enter as their change over drift_rows rows only (features.window_features); plain
    # defaults (class attributes) so a model saved before these settings loads with none of them
    drift_signals: list | None = None
    drift_rows: int = 0
    window_stats: tuple = STATS

    def check(self, df: pd.DataFrame) -> None:
        if self.time_column not in df.columns:
            raise EngineError("tsad_time_missing", column=self.time_column)
        D.check_inference(df, self.features, self.kinds, {})

    def matrix(self, df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """(time-ordered frame, feature matrix with training medians for gaps, warm-up mask)."""
        self.check(df)
        if self.resample_rule:
            df, _ = resample(df, self.time_column, self.resample_rule, self.features)
        df, _ = order_by_time(df, self.time_column)
        time = df[self.time_column] if pd.api.types.is_datetime64_any_dtype(df[self.time_column]) else None
        F = window_features(
            df, self.features, self.lags, self.windows, stats=tuple(self.window_stats), time=time, drift=self.drift_signals or [], drift_rows=self.drift_rows
        )[self.feature_columns]
        # a gap is carried forward (past values only), then the training median where nothing came before
        X = F.ffill().to_numpy(dtype=float)
        X = np.where(np.isnan(X), self.medians, X)
        warm = np.arange(len(df)) < warmup(self.lags, self.windows, self.drift_rows if self.drift_signals else 0)
        return df, X, warm

    def score_frame(self, df: pd.DataFrame, contributions: bool = True) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
        ordered, X, warm = self.matrix(df)
        both = contributions and hasattr(self.detector, "score_and_contributions")
        score, c = self.detector.score_and_contributions(X) if both else (self.detector.score(X), None)
        score = np.asarray(score, dtype=float)
        score[warm] = np.nan
        contrib = None
        if contributions and hasattr(self.detector, "contributions"):
            if c is None:
                c = self.detector.contributions(X)
            if c is not None:
                contrib = self.per_signal(np.asarray(c, dtype=float))
                contrib[warm] = np.nan
        return ordered, score, contrib

    def per_signal(self, c: np.ndarray) -> np.ndarray:
        """Feature contributions summed per raw signal (a lag or rolling statistic belongs to its signal)."""
        idx = {s: i for i, s in enumerate(self.features)}
        out = np.zeros((c.shape[0], len(self.features)))
        for j, f in enumerate(self.feature_columns):
            out[:, idx[signal_of(f)]] += c[:, j]
        return out

    def output_columns(self) -> list[str]:
        return ["anomaly_score", "alarm", "top_signal"]

    def predict(self, df: pd.DataFrame) -> pd.DataFrame:
        ordered, score, contrib = self.score_frame(df)
        out = pd.DataFrame(index=ordered.index)
        if self.resample_rule:
            # one answer per input row: the score, alarm and contributions of the period it fell in
            _, pos = resample(df, self.time_column, self.resample_rule, self.features)
            return self._answer(score, contrib).iloc[pos].set_index(df.index)
        return self._answer(score, contrib, out.index).reindex(df.index)

    def _answer(self, score: np.ndarray, contrib: np.ndarray | None, index=None) -> pd.DataFrame:
        out = pd.DataFrame(index=index if index is not None else pd.RangeIndex(len(score)))
        out["anomaly_score"] = score
        out["alarm"] = np.where(np.isnan(score), np.nan, (score > self.threshold).astype(float))
        if contrib is not None:
            top = np.argmax(np.nan_to_num(np.abs(contrib), nan=-1), axis=1)
            names = np.asarray(self.features, dtype=object)[top]
            names[np.isnan(contrib).all(axis=1)] = None  # warm-up rows have no contributions
            out["top_signal"] = names
            for i, s in enumerate(self.features):
                out[f"contribution_{s}"] = contrib[:, i]
        else:
            out["top_signal"] = None
        return out

    def window_settings(self) -> dict:
        """The windowing a person chose (lags, windows and their statistics, drifting signals), as the manifest and the
        training report show it."""
        return {
            "lags": self.lags,
            "windows": self.windows,
            "window_stats": list(self.window_stats),
            "drift_signals": list(self.drift_signals or []),
            "drift_rows": self.drift_rows if self.drift_signals else None,
        }

    def manifest(self, metrics: dict | None = None) -> dict:
        return {
            **manifest_head(self),
            "categories": {},
            "time_column": self.time_column,
            "time_features": {
                **self.window_settings(),
                "feature_columns": self.feature_columns,
                "resample": self.resample_rule,
            },
            "threshold": self.threshold,
            "preprocessing": {"gaps": "carried forward, then the training median", "condition": self.condition},
            "hyperparameters": self.params,
            "detector": self.info,
            "outputs": self.output_columns(),
            "metrics": metrics or {},
            "load": "joblib.load('model.joblib').predict(pandas_frame) with the mitate_engine package importable",
        }
