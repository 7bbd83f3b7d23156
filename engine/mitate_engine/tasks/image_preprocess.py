"""Kind `image_preprocess`: image pre-processing of a dataset (images.preprocess), in one of three modes.

Spec: dataset_dir, output_dir, mode, operations (see images.preprocess.DEFAULTS), and by mode:
- "apply": every image into output_dir (images/, thumbs/, manifest.json), a new dataset waiting to be registered;
- "preview": before/after PNGs of `ids` (a few images) in output_dir;
- "display": `files` [{source, dest}] converted to PNG for the browser (TIFF originals in the viewer).
"""

from __future__ import annotations

from ..images import preprocess as pp
from ..lang import lang_of, say
from ..task import Context, EngineError, Task


class ImagePreprocess(Task):
    kind = "image_preprocess"

    def run(self, spec: dict, ctx: Context) -> dict:
        mode = spec.get("mode", "apply")
        if mode == "display":
            done = 0
            for f in spec.get("files") or []:
                pp.display_png(f["source"], f["dest"])
                done += 1
            return {"converted": done}
        try:
            ops = pp.settings(spec.get("operations"))
        except EngineError as e:
            raise EngineError("image_preprocess_invalid", reason=e) from None
        except (ValueError, KeyError, TypeError) as e:
            raise EngineError("image_preprocess_invalid", reason=str(e)) from None
        if mode == "preview":
            return {"items": pp.preview(spec["dataset_dir"], ctx.work_dir, ops, [str(i) for i in spec.get("ids") or []], int(spec.get("size") or 320))}
        if mode != "apply":
            raise EngineError("image_preprocess_invalid", reason=EngineError("image_unknown_mode", mode=str(mode)))
        m = pp.process_dataset(spec["dataset_dir"], ctx.work_dir, ops, progress=lambda f: ctx.progress(f, say("job_processing_images", lang_of(spec))))
        if not m["items"]:
            raise EngineError("image_preprocess_no_images", count=len(m["skipped"]))
        ctx.flush()
        return {"total": m["total"], "counts": m["counts"], "classes": m["classes"], "skipped": m["skipped"], "kind": m["kind"], "operations": ops}
