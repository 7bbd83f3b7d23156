"""Kind `tsad_train`: time-series anomaly detection, every model of a project on one prepared series.

Spec: project_type (time_series_anomaly_detection_supervised | _unsupervised), parquet, time_column, features
(signals), target (label column, optional when unsupervised), lags, windows, window_stats (subset of mean, std, min,
max; all when absent), drift_signals and drift_rows (slowly drifting signals entering as their change over drift_rows
rows only, tsad/features.py), normal ({mode: rows, rows} |
{mode: range, start, end}) or split_ratio, models: [{key, algorithm, params}], output_dir, condition_path, lang (en | ja:
the language of the person who started the job; progress, log lines and notes are said in it, the HTML report is
written in both, report.html in it).
Events: `model` per model state, as the `train` kind, so the server keeps model rows with the same handler.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from ..task import Cancelled, Context, EngineError, Task, encoded
from ..tsad.lang import detector_name, error_text, lang_of, say
from ..tsad.trainer import fit_model, prepare, write_model
from .predict import load_condition


class TsadTrain(Task):
    kind = "tsad_train"

    def run(self, spec: dict, ctx: Context) -> dict:
        models = spec.get("models") or []
        if not models:
            raise EngineError("no_models")
        t0 = time.monotonic()
        lang = lang_of(spec)  # what the person who started the job reads: progress, log lines, notes
        ctx.progress(0.0, say("tsad_job_reading", lang))
        prep = prepare(spec)
        condition = load_condition(spec.get("condition_path"))
        for note in prep.notes:
            ctx.log(note)
        ctx.log(
            say(
                "tsad_job_rows",
                lang,
                rows=len(prep.X),
                columns=int(prep.X.shape[1]),
                train=int((prep.split == "train").sum()),
                held=int((prep.split == "validation").sum()),
            )
        )
        results = []
        for i, m in enumerate(models):
            key = str(m["key"])
            label = detector_name(str(m["algorithm"]), lang)
            ctx.event("model", key=key, state="running")
            ctx.progress(i / len(models), say("tsad_job_training", lang, label=label))
            started = time.monotonic()
            try:
                model, score, contrib = fit_model(prep, spec, m["algorithm"], m.get("params") or {}, check=ctx.check_cancelled)
                model.condition = condition
                out = write_model(Path(ctx.work_dir) / key, model, prep, score, contrib, spec, label)
                summary = {
                    "key": key,
                    "state": "done",
                    "metrics": out["metrics"],
                    "cv": None,
                    "hyperparameters": model.params,
                    "seconds": time.monotonic() - started,
                    "error": None,
                }
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - one detector's failure is reported on its model only
                msg = encoded(exc) if isinstance(exc, EngineError) else f"{type(exc).__name__}: {exc}"
                log = error_text(exc, lang) if isinstance(exc, EngineError) else traceback.format_exc()
                ctx.log(say("tsad_job_model_failed", lang, label=label, error=error_text(exc, lang) if isinstance(exc, EngineError) else msg))
                summary = {"key": key, "state": "failed", "metrics": None, "error": msg, "log": log[-20000:], "seconds": time.monotonic() - started}
            ctx.event("model", **summary)
            results.append(summary)
        ctx.progress(1.0, say("tsad_job_done", lang))
        if all(r["state"] == "failed" for r in results):
            raise EngineError("every_model_failed", count=len(results))
        return {"models": results, "rows": len(prep.X), "notes": prep.notes, "seconds": time.monotonic() - t0}
