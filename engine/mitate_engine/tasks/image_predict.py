"""Kind `image_predict`: applies a trained image model to images (a folder from zipsafe or a list of files).

Spec: model (model.pt), dataset_dir | files: [{path, name}], threshold (optional override), output_dir.
Writes predictions.csv and heatmaps/ in output_dir. Each image is predicted on its own account: the result lists
every image read (rows), each one that could not be read under the user's file name with why (failed), and the ZIP
entries left out at unpacking (skipped).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..images.zipsafe import skip_entry
from ..lang import lang_of, say
from ..task import Context, EngineError, Task


class ImagePredict(Task):
    kind = "image_predict"

    def run(self, spec: dict, ctx: Context) -> dict:
        # PyTorch is imported by the first image job, not by every worker as it starts (about 3 s of CPU).
        from ..images.backbone import configure_threads
        from ..images.model import ImageModel

        configure_threads()
        model = ImageModel.load(spec["model"], spec.get("weights_dir"))
        if spec.get("threshold") is not None:
            model.threshold = float(spec["threshold"])
        skipped: list[dict] = []
        if spec.get("dataset_dir"):
            folder = Path(spec["dataset_dir"])
            manifest = json.loads((folder / "manifest.json").read_text())
            items = manifest["items"]
            skipped = manifest.get("skipped", [])  # ZIP entries left out at unpacking, said with their reasons
            files = [{"path": str(folder / it["file"]), "name": it["name"], "label": it["label"]} for it in items]
        else:
            files = spec.get("files") or []
        if not files:
            raise EngineError("no_input_images")
        out = ctx.work_dir
        bad: list[int] = []
        rows = model.predict(
            [f["path"] for f in files],
            heatmap_dir=out / "heatmaps",
            names=[f"{i:06d}" for i in range(len(files))],
            progress=lambda f: ctx.progress(f, say("job_predicting_images", lang_of(spec))),
            check=ctx.check_cancelled,
            unreadable=bad,
        )
        result = []
        for pos, (r, f) in enumerate((r, files[r["index"]]) for r in rows):
            # heat-map k.png becomes the row's position (GET image/prediction/{id}/heatmap/{row}); positions never
            # pass their image's index, so no file is overwritten
            if pos != r["index"]:
                (out / "heatmaps" / r["heatmap"]).rename(out / "heatmaps" / f"{pos:06d}.png")
            result.append(
                {
                    "name": f["name"],
                    "label": f.get("label"),
                    "predicted": r["predicted"],
                    "score": r["score"],
                    "heatmap": f"heatmaps/{pos:06d}.png",
                    **({"probabilities": r["probabilities"]} if "probabilities" in r else {}),
                }
            )
        # each unreadable image under the user's own file name, with why (a catalogue code the server says in words)
        failed = [skip_entry(files[k]["name"], "corrupt_image") for k in bad]
        labelled = any(r["label"] for r in result)
        with open(out / "predictions.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["file", "predicted", "score", *(["label"] if labelled else [])])
            for r in result:
                w.writerow([r["name"], r["predicted"], f"{r['score']:.6f}", *([r["label"]] if labelled else [])])
        return {
            "algorithm": model.algorithm,
            "kind": model.kind,
            "threshold": model.threshold,
            "classes": model.classes,
            "rows": result,
            "failed": failed,
            "skipped": skipped,
        }
