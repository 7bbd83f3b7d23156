"""A trained anomaly detector as one object with the interface of ml.model.TrainedModel (check, predict,
manifest), so the existing `predict` job and a user who unzips the model run the same code path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..ml import data as D
from .errors import fail
from .features import signal_of, warmup, window_features


def order_by_time(df: pd.DataFrame, time_column: str) -> tuple[pd.DataFrame, dict]:
    """Rows sorted by time (stable); duplicates are refused, sorting is reported."""
    t = df[time_column]
    if t.isna().any():
        raise fail("tsad_time_empty", column=time_column, count=int(t.isna().sum()))
    dup = int(t.duplicated().sum())
    if dup:
        raise fail(
            "tsad_time_duplicates",
            column=time_column,
            count=dup,
            first=str(t[t.duplicated()].iloc[0]),
        )
    sorted_already = bool(t.is_monotonic_increasing)
    if not sorted_already:
        df = df.sort_values(time_column, kind="stable")
    return df, {"sorted": not sorted_already}


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

    def check(self, df: pd.DataFrame) -> None:
        if self.time_column not in df.columns:
            raise fail("tsad_time_missing", column=self.time_column)
        D.check_inference(df, self.features, self.kinds, {})

    def matrix(self, df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """(time-ordered frame, feature matrix with training medians for gaps, warm-up mask)."""
        self.check(df)
        df, _ = order_by_time(df, self.time_column)
        time = df[self.time_column] if pd.api.types.is_datetime64_any_dtype(df[self.time_column]) else None
        F = window_features(df, self.features, self.lags, self.windows, time=time)[self.feature_columns]
        # a gap is carried forward (past values only), then the training median where nothing came before
        X = F.ffill().to_numpy(dtype=float)
        X = np.where(np.isnan(X), self.medians, X)
        warm = np.arange(len(df)) < warmup(self.lags, self.windows)
        return df, X, warm

    def score_frame(self, df: pd.DataFrame, contributions: bool = True) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
        ordered, X, warm = self.matrix(df)
        score = np.asarray(self.detector.score(X), dtype=float)
        score[warm] = np.nan
        contrib = None
        if contributions and hasattr(self.detector, "contributions"):
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
        return out.reindex(df.index)

    def manifest(self, metrics: dict | None = None) -> dict:
        return {
            "format": "mitate-model/1",
            "project_type": self.project_type,
            "algorithm": self.algorithm,
            "target": self.target,
            "features": self.features,
            "model_columns": self.kinds,
            "categories": {},
            "time_column": self.time_column,
            "time_features": {"lags": self.lags, "windows": self.windows, "feature_columns": self.feature_columns},
            "threshold": self.threshold,
            "preprocessing": {"gaps": "carried forward, then the training median", "condition": self.condition},
            "hyperparameters": self.params,
            "detector": self.info,
            "outputs": self.output_columns(),
            "metrics": metrics or {},
            "load": "joblib.load('model.joblib').predict(pandas_frame) with the mitate_engine package importable",
        }
