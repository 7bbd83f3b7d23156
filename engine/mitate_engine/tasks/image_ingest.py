"""Kind `image_ingest`: unpacks an uploaded image ZIP safely into output_dir (images, thumbnails, manifest.json).

Spec: zip, kind (analysis | classification), output_dir, seed, limits (optional overrides of zipsafe.LIMITS).
"""

from __future__ import annotations

from ..images.zipsafe import unpack
from ..lang import lang_of, say
from ..task import Context, EngineError, Task


class ImageIngest(Task):
    kind = "image_ingest"

    def run(self, spec: dict, ctx: Context) -> dict:
        out = ctx.work_dir
        try:
            m = unpack(
                spec["zip"],
                out,
                spec.get("kind", "analysis"),
                seed=int(spec.get("seed", 0)),
                limits=spec.get("limits"),
                progress=lambda f: ctx.progress(f, say("job_unpacking_images", lang_of(spec))),
            )
        except EngineError as e:
            # A refused archive is an answer, not a crash: the server renders the code in the user's language.
            return {"error": e.as_dict()}
        return {"classes": m["classes"], "counts": m["counts"], "total": m["total"], "skipped": m["skipped"], "presplit": m["presplit"]}
