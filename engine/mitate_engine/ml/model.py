"""A trained model as one object: the manifest (features, preprocessing, classes) and the fitted pipeline.

`predict(frame)` turns raw inference rows (as uploaded, before the training dataset's preprocessing condition) into
the output columns of the project's type: it applies the condition with its stored fitted parameters, derives the
soft-sensor time features, runs the fitted pipeline and returns a target in its original units (the condition's
fitted target scaling undone). The prediction job and a user who unzips the model run this same method
(see model_io). `predict(frame, raw=False)` is for rows that are already in the condition's output form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import data as D


@dataclass
class TrainedModel:
    project_type: str
    algorithm: str
    target: str | None
    features: list[str]  # raw input columns the user chose
    kinds: dict[str, str]  # model columns (incl. derived time features) -> numeric | category
    categories: dict[str, list[str]]
    pipeline: Any  # preprocessor + estimator (supervised); preprocessor + embedder/clusterer (unsupervised)
    classes: list[str] = field(default_factory=list)
    lags: list[int] = field(default_factory=list)
    windows: list[int] = field(default_factory=list)
    datetime_column: str | None = None
    assigner: Any = None  # clustering without a predict of its own: nearest training point's cluster
    assign_radius: float | None = None  # DBSCAN: farther than eps from every core point is noise (-1)
    params: dict = field(default_factory=dict)
    condition: dict | None = None  # the preprocessing condition of the training dataset, applied first

    # ---- input --------------------------------------------------------------------------------------------

    def check(self, df: pd.DataFrame) -> None:
        D.check_inference(df, self.features, {c: k for c, k in self.kinds.items() if c in self.features}, self.categories)

    def model_frame(self, df: pd.DataFrame) -> pd.DataFrame:
        self.check(df)
        if self.project_type == "soft_sensor" and self.datetime_column and self.datetime_column in df.columns:
            df = df.sort_values(self.datetime_column, kind="stable")
        if self.lags or self.windows:
            numeric_inputs = [c for c in self.features if self.kinds.get(c) == "numeric"]
            df, _ = D.add_time_features(df, numeric_inputs, self.lags, self.windows)
        return D.as_model_frame(df, self.kinds)

    # ---- output -------------------------------------------------------------------------------------------

    def output_columns(self) -> list[str]:
        t = self.project_type
        if t in ("regression", "soft_sensor"):
            return [f"predicted_{self.target}"]
        if t == "discriminant_analysis":
            return [f"predicted_{self.target}", *[f"probability_{c}" for c in self.classes]]
        if t == "clustering":
            return ["cluster"]
        n = getattr(self.pipeline[-1], "n_components_", None) or getattr(self.pipeline[-1], "n_components", 2)
        return [f"component_{i + 1}" for i in range(int(n))]

    def prepare(self, df: pd.DataFrame) -> pd.DataFrame:
        """Raw rows through the training condition; the row labels are kept so each output meets its input row
        (rows the condition removes, e.g. outliers, get no prediction)."""
        if not self.condition or not self.condition.get("steps"):
            return df
        from ..preprocessing.condition import apply_condition

        # the parts of steps about absent columns (the target, in inference data) are left out
        return apply_condition(df, self.condition, skip_missing_columns=True, keep_index=True)

    def target_scalings(self) -> list[tuple[Any, Any]]:
        """(scale, centre) of the condition's fitted scalings of the target, last to first: the order to undo them."""
        pairs = []
        for step in reversed((self.condition or {}).get("steps") or []):
            fitted = (step.get("fitted") or {}).get("columns") or {}
            if step.get("process_type") == "scaling" and self.target in fitted:
                p = fitted[self.target]
                pairs.append((p["scale"], p["center"]))
        return pairs

    def target_inverse(self, pred: np.ndarray) -> np.ndarray:
        """A regression output in the target's original units: the condition's fitted scalings of the target,
        undone last to first (other steps do not change its units)."""
        for scale, center in self.target_scalings():
            pred = pred * scale + center
        return pred

    def predict(self, df: pd.DataFrame, raw: bool = True) -> pd.DataFrame:
        """Output columns, one row per row of `df` (same index)."""
        if raw:
            return self._predict(self.prepare(df)).reindex(df.index)
        return self._predict(df)

    def _predict(self, df: pd.DataFrame) -> pd.DataFrame:
        X = self.model_frame(df)
        t = self.project_type
        out = pd.DataFrame(index=X.index)
        warm = D.warmup_rows(self.lags, self.windows)
        if t in ("regression", "soft_sensor"):
            pred = np.full(len(X), np.nan)
            ok = np.arange(len(X)) >= warm
            if ok.any():
                pred[ok] = self.pipeline.predict(X[ok])
            out[f"predicted_{self.target}"] = self.target_inverse(pred)
        elif t == "discriminant_analysis":
            out[f"predicted_{self.target}"] = self.pipeline.predict(X)
            if hasattr(self.pipeline, "predict_proba"):
                proba = self.pipeline.predict_proba(X)
                for i, c in enumerate(self.classes):
                    out[f"probability_{c}"] = proba[:, i]
        elif t == "clustering":
            out["cluster"] = self.assign(X)
        else:
            Z = self.pipeline[:-1].transform(X)
            emb = self.pipeline[-1].transform(np.asarray(Z, dtype=float))
            for i in range(emb.shape[1]):
                out[f"component_{i + 1}"] = emb[:, i]
        return out.reindex(df.index)

    def assign(self, X: pd.DataFrame) -> np.ndarray:
        return self.assign_encoded(self.pipeline[:-1].transform(X))

    def assign_encoded(self, Z) -> np.ndarray:
        """Cluster labels of rows already through the pipeline's preprocessing (also the fast path's matrix)."""
        est = self.pipeline[-1]
        Z = np.asarray(Z, dtype=float)
        if hasattr(est, "predict") and self.assigner is None:
            return np.asarray(est.predict(Z)).astype(int)
        if self.assigner is None:
            return np.full(len(Z), -1)
        labels = np.asarray(self.assigner.predict(Z)).astype(int)
        if self.assign_radius is not None:
            dist, _ = self.assigner.kneighbors(Z, n_neighbors=1)
            labels = np.where(dist[:, 0] <= self.assign_radius, labels, -1)
        return labels

    def manifest(self, metrics: dict | None = None) -> dict:
        return {
            **manifest_head(self),
            "categories": self.categories,
            "classes": self.classes,
            "time_features": {"lags": self.lags, "windows": self.windows, "datetime_column": self.datetime_column},
            "preprocessing": {
                "numeric": "median imputation" + (", standardisation" if _scaled(self.pipeline) else ""),
                "categorical": "most frequent imputation, one-hot encoding",
                "condition": self.condition,
            },
            "hyperparameters": self.params,
            "outputs": self.output_columns(),
            "metrics": metrics or {},
            "load": LOAD_LINES,
            "load_notes": (
                "Unzip into a folder named model, then run the two lines from the folder that holds it, with Python and the "
                "packages of requirements.txt (the zip carries the mitate_engine code the model needs). predict takes the "
                "raw rows as uploaded: it applies the preprocessing condition above, then returns "
                + ", ".join(self.output_columns())
                + (" in the target's original units" if self.target and self.project_type in ("regression", "soft_sensor") else "")
                + "; rows the condition removes get no prediction."
            ),
        }


def manifest_head(model) -> dict:
    """The first entries of a model's manifest, the same for tabular and time-series models."""
    return {
        "format": "mitate-model/1",
        "project_type": model.project_type,
        "algorithm": model.algorithm,
        "target": model.target,
        "features": model.features,
        "model_columns": model.kinds,
    }


LOAD_LINES = [
    "import sys, joblib, pandas as pd; sys.path.insert(0, 'model')",
    "predictions = joblib.load('model/model.joblib').predict(pd.read_csv('raw.csv'))",
]


def _scaled(pipeline) -> bool:
    try:
        return "scale" in pipeline[0].named_transformers_["num"].named_steps
    except Exception:  # noqa: BLE001
        return False
