"""Kind `preprocess_preview`: what one step of a condition changes, on (a leading sample of) the dataset.

Spec: {parquet, steps, index, datetime_column?, sample_rows?}. The earlier steps are fitted and applied first,
then step `index` is fitted and compared before/after; see preprocessing.condition.preview_step.
"""

from __future__ import annotations

from ..preprocessing import preview_step
from ..task import Context, EngineError, Task
from .preprocess import read_frame


class PreprocessPreview(Task):
    kind = "preprocess_preview"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not spec.get("parquet"):
            raise EngineError("spec_parquet_required")
        steps = spec.get("steps") or []
        index = int(spec.get("index", len(steps) - 1))
        if not 0 <= index < len(steps):
            raise EngineError("no_step_to_preview")
        sample_rows = int(spec.get("sample_rows") or 200_000)
        df, total = read_frame(spec["parquet"], sample_rows)
        result = preview_step(df, steps, index, spec.get("datetime_column"))
        result["sample"] = total > len(df)
        result["sample_rows"] = len(df)
        result["total_rows"] = total
        return result
