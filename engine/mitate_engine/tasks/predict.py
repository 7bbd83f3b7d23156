"""Kind `predict`: a trained model on an inference table; writes predictions.parquet and predictions.csv.

Spec: model (path of model.joblib), parquet (inference data), condition_path (set when the inference data is raw:
the training dataset's preprocessing condition is then applied first — the model carries it, with its fitted
parameters; the file is the fallback for a model saved without it), output_dir, threshold (optional: an anomaly
detector's threshold saved after training, which replaces the trained one). The result table holds the predictions
(a regression target in its original units) beside the values as uploaded.
"""

from __future__ import annotations

import pandas as pd

from ..csvsafe import write_csv
from ..lang import lang_of, say
from ..ml.data import read_table
from ..ml.model_io import load_condition, load_model, predict, predict_frame
from ..ml.predict_chunks import Summary, chunkable, chunked_from_rows, parquet_rows, predict_in_chunks
from ..task import Context, Task

__all__ = ["Predict", "apply_training_condition", "load_condition", "predict_frame"]  # the last two live in model_io


def apply_training_condition(df: pd.DataFrame, condition: dict | None, target: str | None = None) -> pd.DataFrame:
    """The training dataset's condition on raw rows, with its stored fitted parameters; the parts of steps about
    absent columns (the target, in inference data) are left out. The same as TrainedModel.prepare."""
    if not condition or not condition.get("steps"):
        return df
    from ..preprocessing.condition import apply_condition

    return apply_condition(df, condition, skip_missing_columns=True, keep_index=True)


class Predict(Task):
    kind = "predict"

    def run(self, spec: dict, ctx: Context) -> dict:
        lang = lang_of(spec)  # what the person who started the job reads
        ctx.progress(0.05, say("job_loading_model", lang))
        model = load_model(spec.get("model"))
        if spec.get("threshold") is not None and hasattr(model, "threshold"):
            model.threshold = float(spec["threshold"])
        raw = bool(spec.get("condition_path"))
        if raw and not model.condition:
            model.condition = load_condition(spec.get("condition_path"))
        condition = model.condition if raw else None
        if chunkable(model, condition) and parquet_rows(spec["parquet"]) >= chunked_from_rows():
            return predict_in_chunks(model, spec["parquet"], ctx, lang)
        ctx.progress(0.15, say("job_reading_inference", lang))
        df = read_table(spec["parquet"])
        if condition:
            ctx.progress(0.2, say("job_applying_condition", lang, name=condition.get("name") or "").strip())
        ctx.progress(0.3, say("job_predicting", lang, rows=f"{len(df):,}"))
        out = predict(model, df, raw=raw)
        ctx.progress(0.85, say("job_writing_predictions", lang))
        inputs = df.drop(columns=[c for c in out.columns if c in df.columns])
        table = pd.concat([out, inputs], axis=1).reset_index(drop=True)
        work = ctx.work_dir
        table.to_parquet(work / "predictions.parquet", index=False)
        write_csv(table, work / "predictions.csv")
        summary: dict = {
            "rows": len(table),
            "columns": list(table.columns),
            "outputs": list(out.columns),
            "condition_applied": (condition or {}).get("name") if condition else None,
        }
        first = out.columns[0]
        if model.project_type in ("discriminant_analysis", "clustering", "regression", "soft_sensor"):
            summary.update(Summary(model.project_type).add(out[first]).result())
        elif model.project_type.startswith("time_series_anomaly_detection"):
            from ..timeseries.metrics import runs

            alarm = out["alarm"].fillna(0).to_numpy() > 0
            first = int(alarm.argmax()) if alarm.any() else None
            summary["anomaly"] = {
                "threshold": model.threshold,
                "alarm_rows": int(alarm.sum()),
                "alarms": len(runs(alarm)),
                "first_alarm_row": first,
                "scored_rows": int(out["anomaly_score"].notna().sum()),
            }
        ctx.progress(1.0, say("job_done", lang))
        return summary
