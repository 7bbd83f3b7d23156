"""Kind `platform_drift`: the inputs of a hosted model's recent answered requests against its training data
(platform/drift.py computes the figures; the server decides which cross the project's thresholds).

Spec: samples (a JSON file {"rows": [{column: value}, ...]} of sampled served inputs, or {"scores": [...]} for image
models), model_dir (the hosted model's frozen folder: manifest.json [, condition.json]), and either parquet (the
model's training dataset) for tabular models or ok_scores (the validation OK images' scores) for image models.
Result: {"rows": n, "features": [per feature figures], "condition_applied": bool}. Progress and log lines are said in the
spec's `lang` (the server sends the language of the person who asked, or for an automatic check the publisher's).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from ..lang import lang_of, say
from ..ml.data import read_table
from ..platform.drift import compare, score_drift
from ..task import Context, EngineError, Task


class PlatformDrift(Task):
    kind = "platform_drift"

    def run(self, spec: dict, ctx: Context) -> dict:
        lang = lang_of(spec)
        with open(spec["samples"], encoding="utf-8") as f:
            samples = json.load(f)
        if "scores" in samples:
            ctx.progress(0.5, say("job_drift_comparing_scores", lang))
            ok = spec.get("ok_scores") or []
            return {
                "rows": len(samples["scores"]),
                "features": [score_drift(np.asarray(samples["scores"], float), np.asarray(ok, float))],
                "condition_applied": False,
            }
        if not spec.get("parquet"):
            raise EngineError("spec_parquet_required")
        folder = spec["model_dir"]
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        features: list[str] = list(manifest.get("features") or [])
        kinds: dict[str, str] = dict(manifest.get("model_columns") or {})
        served = pd.DataFrame(samples.get("rows") or [])
        ctx.progress(0.2, say("job_drift_reading_training", lang))
        # Served rows are raw; the training dataset is the output of its preprocessing condition, so the served rows
        # go through the same condition first (nothing re-fitted), when the model has one.
        applied = False
        cond_path = os.path.join(folder, "condition.json")
        if os.path.isfile(cond_path) and len(served):
            from ..ml.model_io import load_condition
            from ..preprocessing.condition import apply_condition

            try:
                served = apply_condition(served, load_condition(cond_path), skip_missing_columns=True)
                applied = True
            except Exception as exc:  # noqa: BLE001 - the raw rows are compared then, and the log says why
                ctx.log(say("job_drift_condition_not_applied", lang, reason=exc))
        train = read_table(spec["parquet"], features)
        ctx.progress(0.6, say("job_drift_comparing", lang))
        return {"rows": int(len(served)), "features": compare(train, served, features, kinds), "condition_applied": applied}
