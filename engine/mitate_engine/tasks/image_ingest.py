"""Kind `image_ingest`: unpacks an uploaded image ZIP safely into output_dir (images, thumbnails, manifest.json).

Spec: zip, kind (analysis | classification), output_dir, seed, limits (optional overrides of zipsafe.LIMITS).
"""

from __future__ import annotations

from ..images.errors import ImageError
from ..images.zipsafe import unpack
from ..task import Context, Task


class ImageIngest(Task):
    kind = "image_ingest"

    def run(self, spec: dict, ctx: Context) -> dict:
        try:
            m = unpack(
                spec["zip"],
                ctx.work_dir,
                spec.get("kind", "analysis"),
                seed=int(spec.get("seed", 0)),
                limits=spec.get("limits"),
                progress=lambda f: ctx.progress(f, "Unpacking images"),
            )
        except ImageError as e:
            # A refused archive is an answer, not a crash: the server renders the code in the user's language.
            return {"error": {"code": e.code, "params": e.params, "message": str(e)}}
        return {"classes": m["classes"], "counts": m["counts"], "total": m["total"], "skipped": m["skipped"], "presplit": m["presplit"]}
