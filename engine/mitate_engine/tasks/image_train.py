"""Kind `image_train`: trains each image model of a project (PatchCore, fine-tuned EfficientNet-Lite, compact CNN).

Spec: project_type (analysis | classification), dataset_dir, output_dir, stop_file, settings (trainer.SETTINGS),
models: [{key, algorithm, params}]. Events: `model` (state of each model), `epoch` (key + one row of the curve).
Files per model in output_dir/<key>/: model.pt, report.json, heatmaps/.
"""

from __future__ import annotations

import json
import os
import traceback
from pathlib import Path

from ..images import report_html
from ..lang import lang_of, say
from ..task import Cancelled, Context, EngineError, Task, encoded


class ImageTrain(Task):
    kind = "image_train"

    def run(self, spec: dict, ctx: Context) -> dict:
        # PyTorch is imported by the first image job, not by every worker as it starts (about 3 s of CPU).
        from ..images import trainer
        from ..images.backbone import configure_threads
        from ..images.model import ALGORITHMS

        configure_threads()
        settings = {**trainer.SETTINGS, **(spec.get("settings") or {})}
        manifest, splits = trainer.read_dataset(spec["dataset_dir"])
        kind = spec.get("project_type", manifest["kind"])
        classes = manifest["classes"]
        stop_file = spec.get("stop_file")
        out = ctx.work_dir
        models = spec.get("models") or []
        results = []
        stop_all = False
        for i, m in enumerate(models):
            key, algo = str(m["key"]), m["algorithm"]
            if stop_all:
                results.append({"key": key, "state": "failed", "error": "stopped before it started"})
                ctx.event("model", key=key, state="failed", error="stopped before it started")
                continue
            ctx.event("model", key=key, state="running")
            mdir = Path(out) / key
            mdir.mkdir(parents=True, exist_ok=True)
            hooks = trainer.Hooks(
                epoch=lambda row, _k=key: ctx.event("epoch", key=_k, **row),
                progress=lambda f, msg, _i=i: ctx.progress((_i + 0.85 * f) / len(models), msg),
                log=ctx.log,
                should_stop=lambda: bool(stop_file) and os.path.exists(stop_file),
                check=ctx.check_cancelled,
                lang=lang_of(spec),
            )
            try:
                if algo not in ALGORITHMS:
                    raise EngineError("unknown_algorithm", algorithm=algo)
                if algo == "patchcore":
                    model, info = trainer.train_patchcore(kind, classes, splits, settings, hooks)
                else:
                    model, info = trainer.train_classifier(algo, kind, classes, splits, settings, hooks, m.get("params"))
                report = trainer.evaluate(model, splits, settings, mdir, hooks)
                report["training"] = info
                model.save(mdir / "model.pt")
                (mdir / "report.json").write_text(json.dumps(report))
                report_html.write(report, f"{spec.get('project_name') or ''} {key}".strip(), mdir)
                ev = {
                    "key": key,
                    "state": "done",
                    "metrics": report["metrics"],
                    "threshold": report.get("threshold"),
                    "stopped": info["stopped"],
                    "seconds": info["seconds"],
                    "epochs": info["epochs"],
                }
                results.append(ev)
                ctx.event("model", **ev)
                stop_all = info["stopped"]
            except Cancelled:
                raise
            except EngineError as e:
                # error: the encoded EngineError, which the server says in the reader's language (codes it lacks too)
                ev = {"key": key, "state": "failed", "error": encoded(e), "log": str(e), "code": e.code, "params": {k: str(v) for k, v in e.params.items()}}
                results.append(ev)
                ctx.event("model", **ev)
            except Exception as e:  # noqa: BLE001 - one failing model fails only itself
                log = traceback.format_exc()
                results.append({"key": key, "state": "failed", "error": f"{type(e).__name__}: {e}", "log": log})
                ctx.event("model", key=key, state="failed", error=f"{type(e).__name__}: {e}", log=log)
        ctx.progress(1.0, say("job_done", lang_of(spec)))
        return {"models": results}
