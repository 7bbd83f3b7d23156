"""Kind `tsad_train`: time-series anomaly detection, every model of a project on one prepared series.

Spec: project_type (time_series_anomaly_detection_supervised | _unsupervised), parquet, time_column, features
(signals), target (label column, optional when unsupervised), lags, windows, window_stats (subset of mean, std, min,
max; all when absent), drift_signals and drift_rows (slowly drifting signals entering as their change over drift_rows
rows only, timeseries/features.py), normal ({mode: rows, rows} |
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
from ..timeseries.lang import detector_name, error_text, lang_of, say
from ..timeseries.trainer import fit_model, prepare, write_model
from .predict import load_condition

# The share of the job's progress bar taken by reading the series and building its features (the models share the rest).
PREPARE = 0.3


class TsadTrain(Task):
    kind = "tsad_train"

    def run(self, spec: dict, ctx: Context) -> dict:
        models = spec.get("models") or []
        if not models:
            raise EngineError("no_models")
        t0 = time.monotonic()
        lang = lang_of(spec)  # what the person who started the job reads: progress, log lines, notes
        ctx.progress(0.0, say("tsad_job_reading", lang))
        prep = prepare(spec, on_step=lambda step: self._prepare_step(ctx, step, lang))
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
            ctx.progress(PREPARE + (1 - PREPARE) * i / len(models), say("tsad_job_training", lang, label=label))
            started = time.monotonic()
            try:
                profile: dict = {}
                say_step = self._model_step(ctx, prep, lang, label, i, len(models))
                model, score, contrib = fit_model(
                    prep,
                    spec,
                    m["algorithm"],
                    m.get("params") or {},
                    check=ctx.check_cancelled,
                    on_step=say_step,
                    on_rows=lambda done, _total, said=say_step: said("score", done),
                    profile=profile,
                )
                model.condition = condition
                ctx.check_cancelled()
                say_step("write")
                out = write_model(Path(ctx.work_dir) / key, model, prep, score, contrib, spec, label, profile)
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
        return {"models": results, "rows": len(prep.X), "notes": prep.notes, "seconds": time.monotonic() - t0, "profile": prep.profile}

    @staticmethod
    def _prepare_step(ctx: Context, step: str, lang: str) -> None:
        """Progress while the series is read and its features built (the first PREPARE of the job)."""
        ctx.check_cancelled()
        code = {"read": "tsad_job_reading", "order": "tsad_job_reading", "features": "tsad_job_features"}.get(step, "tsad_job_parts")
        at = {"read": 0.0, "order": 0.1, "features": 0.15, "normal_period": 0.6, "fill": 0.8}.get(step, 0.0)
        ctx.progress(PREPARE * at, say(code, lang))

    @staticmethod
    def _model_step(ctx: Context, prep, lang: str, label: str, i: int, count: int):
        """A function saying model i's steps (fit, threshold, score with the rows scored, write) as progress."""
        rows = len(prep.X)
        share = (1 - PREPARE) / count
        base = PREPARE + share * i

        def said(step: str, done: int = 0) -> None:
            if step == "fit":
                ctx.progress(base, say("tsad_job_fitting", lang, label=label, rows=int((prep.split == "train").sum())))
            elif step == "score":
                ctx.progress(base + share * (0.3 + 0.5 * done / max(rows, 1)), say("tsad_job_scoring", lang, label=label, done=done, rows=rows))
            elif step == "write":
                ctx.progress(base + share * 0.85, say("tsad_job_writing", lang, label=label))

        return said
