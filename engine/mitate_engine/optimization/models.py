"""The trained models as one function of a candidate frame: each model predicts its target through the engine's
prediction path (its training dataset's condition first), batched; plus the training ranges and uncertainty."""

from __future__ import annotations

import os
from dataclasses import dataclass

import joblib
import numpy as np
import pandas as pd

from ..task import EngineError


def _prediction():
    # imported when used: the tasks package imports every task, this one included
    from ..tasks import predict

    return predict


@dataclass
class LoadedModel:
    key: str
    model: object
    condition: dict | None

    @property
    def target(self) -> str:
        return self.model.target


def load_models(raw: list[dict]) -> list[LoadedModel]:
    if not raw:
        raise EngineError("optimization.no_model")
    out = []
    for m in raw:
        path = m.get("path")
        if not path or not os.path.isfile(path):
            raise EngineError("optimization.model_missing", model=m.get("key"))
        model = joblib.load(path)
        if model.project_type not in ("regression", "soft_sensor"):
            raise EngineError("optimization.model_type", model=m.get("key"))
        if model.lags or model.windows:
            raise EngineError("optimization.model_time_features", model=m.get("key"))
        out.append(LoadedModel(str(m.get("key")), model, _prediction().load_condition(m.get("condition_path"))))
    return out


def predict_targets(models: list[LoadedModel], targets: list[str], frame: pd.DataFrame) -> np.ndarray:
    """One column per target, in `targets` order."""
    by_target = {}
    for m in models:
        out = _prediction().predict_frame(m.model, frame.copy(), m.condition)
        by_target[m.target] = out[f"predicted_{m.target}"].to_numpy(dtype=float)
    return np.column_stack([by_target[t] for t in targets])


def uncertainty(m: LoadedModel, frame: pd.DataFrame) -> np.ndarray | None:
    """The model's own spread where it has one: the standard deviation over a forest's trees, or a GP's posterior sd."""
    pipe = m.model.pipeline
    est = pipe[-1]
    scale = 1.0
    if hasattr(est, "regressor_"):  # TransformedTargetRegressor(StandardScaler): back to the target's units
        scale = float(getattr(est.transformer_, "scale_", [1.0])[0])
        est = est.regressor_
    df = _prediction().apply_training_condition(frame.copy(), m.condition, m.target) if m.condition else frame
    Z = pipe[:-1].transform(m.model.model_frame(df))
    if hasattr(est, "estimators_") and hasattr(est, "n_outputs_") and not hasattr(est, "learning_rate"):
        per_tree = np.stack([t.predict(np.asarray(Z, dtype=float)) for t in est.estimators_])
        return per_tree.std(axis=0) * scale
    if type(est).__name__ == "GaussianProcessRegressor":
        return est.predict(np.asarray(Z, dtype=float), return_std=True)[1] * scale
    return None


def training_ranges(parquet: str | None, features: list[str]) -> dict[str, tuple[float, float]]:
    """Min and max of each numeric feature in the training dataset (what the model has seen)."""
    if not parquet or not os.path.isfile(parquet):
        return {}
    import pyarrow.parquet as pq

    names = set(pq.ParquetFile(parquet).schema_arrow.names)
    cols = [f for f in features if f in names]
    df = pd.read_parquet(parquet, columns=cols)
    out = {}
    for c in cols:
        s = pd.to_numeric(df[c], errors="coerce").dropna()
        if len(s) and pd.api.types.is_numeric_dtype(df[c]):
            out[c] = (float(s.min()), float(s.max()))
    return out


def integer_features(parquet: str | None, features: list[str]) -> set[str]:
    """Numeric features stored as whole numbers in the training dataset (an integer column type): a candidate
    proposes whole numbers for them, as the data has."""
    if not parquet or not os.path.isfile(parquet):
        return set()
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(parquet).schema_arrow
    return {f for f in features if f in schema.names and pa.types.is_integer(schema.field(f).type)}
