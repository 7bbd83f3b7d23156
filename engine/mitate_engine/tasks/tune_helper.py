"""Kind `tune_helper`: runs auto-tune trials of another worker's `train` job (same spec, with tune_shared), model by
model, through the shared Optuna storage (see ml/shared_tune.py). It trains and writes nothing itself."""

from __future__ import annotations

from ..lang import lang_of, say
from ..ml.algorithms import get_algorithm
from ..ml.trainer import join_tuning, prepare_project
from ..task import Context, EngineError, Task


class TuneHelper(Task):
    kind = "tune_helper"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not isinstance(spec.get("tune_shared"), dict):
            raise EngineError("spec_not_object")
        lang = lang_of(spec)  # the train job's spec: the language of the person who started it
        ctx.progress(0.0, say("job_reading_data", lang))
        proj = prepare_project(spec)
        models = spec.get("models") or []
        ran: dict[str, int] = {}
        for i, m in enumerate(models):
            key = str(m["key"])
            try:
                algo = get_algorithm(proj.project_type, m["algorithm"])
            except Exception:  # noqa: BLE001 - the main job reports a bad algorithm on its model
                continue
            ctx.progress(i / max(1, len(models)), say("job_helping_tune", lang, label=m.get("label") or m["algorithm"]))
            try:
                ran[key] = join_tuning(
                    proj,
                    algo,
                    m.get("params") or {},
                    key,
                    timeout=spec.get("time_budget"),
                    on_error=lambda exc, k=key: ctx.log(f"{k}: stopped helping ({type(exc).__name__}: {exc})"),
                )
            except (EngineError, ValueError) as exc:  # a bad parameter: the main job fails that model and closes its study
                ctx.log(f"{key}: not tuned here ({exc})")
                ran[key] = 0
            ctx.log(f"{key}: {ran[key]} trial(s) run on this worker")
        return {"trials": ran, "total": sum(ran.values())}
