"""Kind `predict`: a trained model on an inference table; writes predictions.parquet and predictions.csv.

Spec: model (path of model.joblib), parquet (inference data), condition_path (set when the inference data is raw:
the training dataset's preprocessing condition is then applied first — the model carries it, with its fitted
parameters; the file is the fallback for a model saved without it), output_dir. The result table holds the
predictions (a regression target in its original units) beside the values as uploaded.
"""
from __future__ import annotations

import json
import os

import pandas as pd

from ..ml.data import read_table
from ..ml.model_io import load_model, predict
from ..task import Context, EngineError, Task


def load_condition(path: str | None) -> dict | None:
    if not path:
        return None
    if not os.path.isfile(path):
        raise EngineError("condition_missing")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Predict(Task):
    kind = "predict"

    def run(self, spec: dict, ctx: Context) -> dict:
        ctx.progress(0.05, "Loading the model")
        model = load_model(spec.get("model"))
        ctx.progress(0.15, "Reading the inference data")
        df = read_table(spec["parquet"])
        raw = bool(spec.get("condition_path"))
        if raw and not model.condition:
            model.condition = load_condition(spec.get("condition_path"))
        condition = model.condition if raw else None
        if condition:
            ctx.progress(0.2, f"Applying the preprocessing condition {condition.get('name') or ''}".strip())
        ctx.progress(0.3, f"Predicting {len(df):,} rows")
        out = predict(model, df, raw=raw)
        ctx.progress(0.85, "Writing the predictions")
        inputs = df.drop(columns=[c for c in out.columns if c in df.columns])
        table = pd.concat([out, inputs], axis=1).reset_index(drop=True)
        work = ctx.work_dir
        table.to_parquet(work / "predictions.parquet", index=False)
        table.to_csv(work / "predictions.csv", index=False)
        summary: dict = {"rows": len(table), "columns": list(table.columns), "outputs": list(out.columns),
                         "condition_applied": (condition or {}).get("name") if condition else None}
        first = out.columns[0]
        if model.project_type in ("discriminant_analysis", "clustering"):
            summary["counts"] = {str(k): int(v) for k, v in out[first].value_counts(dropna=False).sort_index().items()}
        elif model.project_type in ("regression", "soft_sensor"):
            s = out[first].dropna()
            summary["stats"] = {"mean": float(s.mean()) if len(s) else None, "min": float(s.min()) if len(s) else None,
                                "max": float(s.max()) if len(s) else None, "missing": int(out[first].isna().sum())}
        ctx.progress(1.0, "Done")
        return summary
