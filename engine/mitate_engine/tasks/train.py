"""Kind `train`: trains every model of a project on one prepared split; one failing algorithm fails only its model.

Spec: project_type, parquet, target, features, datetime_column, split_ratio | split_time, cv_folds, auto_tune,
n_trials, balance, variance_threshold, significance_level, lags, windows (soft sensor), condition, time_budget
(seconds per model for auto-tune, optional), models: [{key, algorithm, params}]. Each model's files go to
output_dir/<key>/ (model.joblib, manifest.json, model.zip, report.json, log.txt; the server writes the report's HTML and PDF from report.json); a `model` event
reports each model's state as it changes.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from ..lang import lang_of, say
from ..ml.trainer import prepare_project, train_model
from ..task import Cancelled, Context, EngineError, Task, encoded


class Train(Task):
    kind = "train"

    def run(self, spec: dict, ctx: Context) -> dict:
        models = spec.get("models") or []
        if not models:
            raise EngineError("no_models")
        t0 = time.monotonic()
        lang = lang_of(spec)  # what the person who started the job reads
        ctx.progress(0.0, say("job_reading_data", lang))
        proj = prepare_project(spec, progress=lambda msg: ctx.progress(0.0, msg))
        proj.source = {k: spec.get(k) for k in ("parquet", "split_ratio", "split_time")}
        rows = proj.train_rows + proj.test_rows
        ctx.progress(0.01, say("job_read_split", lang, rows=f"{rows:,}", train=f"{proj.train_rows:,}", test=f"{proj.test_rows:,}"))
        ctx.log(f"{spec.get('project_type')}: {proj.train_rows} training rows, {proj.test_rows} test rows, {len(proj.kinds)} model columns")
        if proj.stream:
            ctx.log(f"too large to hold: read in row groups; samples of {len(proj.X_train):,} training and {len(proj.X_test):,} test rows")
        out = ctx.work_dir
        shared = proj.tune_shared if proj.auto_tune else None
        if shared:
            from ..ml import shared_tune

            shared_tune.prepare(shared, [str(m["key"]) for m in models])
            ctx.log(f"auto-tune trials shared with helper workers (study {shared['study']})")
        try:
            results = self._models(spec, ctx, proj, models, out, t0)
        finally:
            if shared:
                for m in models:
                    shared_tune.close(shared, str(m["key"]))
        ctx.progress(1.0, say("job_done", lang))
        failed = [r for r in results if r["state"] == "failed"]
        if len(failed) == len(results):
            raise EngineError("every_model_failed", count=len(failed))
        return {
            "models": results,
            "train_rows": proj.train_rows,
            "test_rows": proj.test_rows,
            "seconds": time.monotonic() - t0,
        }

    def _models(self, spec: dict, ctx: Context, proj, models: list, out, t0: float) -> list[dict]:
        results = []
        n = len(models)
        for i, m in enumerate(models):
            key = str(m["key"])
            label = str(m.get("label") or m["algorithm"])
            lines: list[str] = []

            def log(line: str, _lines=lines) -> None:
                _lines.append(line)
                ctx.log(line)

            def progress(f: float, msg: str, _i=i) -> None:
                ctx.progress((_i + f) / n, msg)

            ctx.event("model", key=key, state="running")
            started = time.monotonic()
            mdir = Path(out) / key
            try:

                def ready(rep: dict, _key=key, _started=started) -> None:
                    ctx.event(
                        "model",
                        key=_key,
                        state="done",
                        metrics=rep["metrics"],
                        cv=None,
                        hyperparameters=rep["hyperparameters"],
                        seconds=time.monotonic() - _started,
                        error=None,
                        pending=True,
                        elapsed=time.monotonic() - t0,
                    )

                rep = train_model(
                    proj,
                    m["algorithm"],
                    m.get("params") or {},
                    mdir,
                    progress,
                    lambda type, _key=key, **d: ctx.event(type, key=_key, **d),
                    log,
                    time_budget=spec.get("time_budget"),
                    label=label,
                    on_ready=ready,
                    study_key=key,
                )
                (mdir / "log.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
                summary = {
                    "key": key,
                    "state": "done",
                    "metrics": rep["metrics"],
                    "cv": rep.get("cv"),
                    "evaluation": rep.get("evaluation"),
                    "hyperparameters": rep["hyperparameters"],
                    "seconds": time.monotonic() - started,
                    "error": None,
                }
                ctx.event("model", **summary, elapsed=time.monotonic() - t0)
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - one algorithm's failure is reported on its model only
                msg = encoded(exc) if isinstance(exc, EngineError) else f"{type(exc).__name__}: {exc}"
                log(f"{label} failed: {exc if isinstance(exc, EngineError) else msg}")
                if not isinstance(exc, EngineError):
                    lines.append(traceback.format_exc())
                mdir.mkdir(parents=True, exist_ok=True)
                (mdir / "log.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
                summary = {
                    "key": key,
                    "state": "failed",
                    "metrics": None,
                    "error": msg,
                    "log": "\n".join(lines)[-20000:],
                    "seconds": time.monotonic() - started,
                }
                ctx.event("model", **summary)
            results.append(summary)
            if proj.tune_shared:
                from ..ml import shared_tune

                shared_tune.close(proj.tune_shared, key)
        return results
