"""Kind `predict`: a trained model on an inference table; writes predictions.parquet and predictions.csv.

Spec: model (path of model.joblib), parquet (inference data), condition_path (optional condition.json of the
training dataset, applied first with its stored fitted parameters, when the inference data is raw), output_dir.
"""

from __future__ import annotations

import json
import os

import joblib
import pandas as pd

from ..ml.data import read_table
from ..task import Context, Task, UserError


def load_condition(path: str | None) -> dict | None:
    if not path:
        return None
    if not os.path.isfile(path):
        raise UserError("The preprocessing condition of the training dataset is missing; it cannot be applied.")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def apply_training_condition(df: pd.DataFrame, condition: dict | None, target: str | None) -> pd.DataFrame:
    """The training dataset's condition with its stored fitted parameters; steps on the target alone are skipped
    (inference data has no target)."""
    if not condition:
        return df
    from ..preprocessing import apply_condition

    steps = []
    for step in condition.get("steps") or []:
        cols = step.get("columns")
        if cols and target and target in cols and target not in df.columns:
            cols = [c for c in cols if c != target]
            if not cols:
                continue
            fitted = step.get("fitted")
            if isinstance(fitted, dict) and isinstance(fitted.get("columns"), dict):
                fitted = {**fitted, "columns": {k: v for k, v in fitted["columns"].items() if k != target}}
            step = {**step, "columns": cols, "fitted": fitted}
        steps.append(step)
    return apply_condition(df, {**condition, "steps": steps})


class Predict(Task):
    kind = "predict"

    def run(self, spec: dict, ctx: Context) -> dict:
        path = spec.get("model")
        if not path or not os.path.isfile(path):
            raise UserError("The trained model file is missing; train the model again.")
        ctx.progress(0.05, "Loading the model")
        model = joblib.load(path)
        ctx.progress(0.15, "Reading the inference data")
        df = read_table(spec["parquet"])
        condition = load_condition(spec.get("condition_path"))
        if condition:
            ctx.progress(0.2, f"Applying the preprocessing condition {condition.get('name') or ''}".strip())
            df = apply_training_condition(df, condition, model.target)
        model.check(df)
        ctx.progress(0.3, f"Predicting {len(df):,} rows")
        out = model.predict(df)
        ctx.progress(0.85, "Writing the predictions")
        inputs = df.drop(columns=[c for c in out.columns if c in df.columns])
        table = pd.concat([out, inputs], axis=1)
        work = ctx.work_dir
        table.to_parquet(work / "predictions.parquet", index=False)
        table.to_csv(work / "predictions.csv", index=False)
        summary: dict = {
            "rows": len(table),
            "columns": list(table.columns),
            "outputs": list(out.columns),
            "condition_applied": (condition or {}).get("name") if condition else None,
        }
        first = out.columns[0]
        if model.project_type in ("discriminant_analysis", "clustering"):
            summary["counts"] = {str(k): int(v) for k, v in out[first].value_counts(dropna=False).sort_index().items()}
        elif model.project_type in ("regression", "soft_sensor"):
            s = out[first].dropna()
            summary["stats"] = {
                "mean": float(s.mean()) if len(s) else None,
                "min": float(s.min()) if len(s) else None,
                "max": float(s.max()) if len(s) else None,
                "missing": int(out[first].isna().sum()),
            }
        ctx.progress(1.0, "Done")
        return summary
