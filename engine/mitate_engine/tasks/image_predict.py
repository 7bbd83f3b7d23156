"""Kind `image_predict`: applies a trained image model to images (a folder from zipsafe or a list of files).

Spec: model (model.pt), dataset_dir | files: [{path, name}], threshold (optional override), output_dir.
Writes predictions.csv and heatmaps/ in output_dir; the result lists every image.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..images.errors import image_error
from ..task import Context, Task


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
        if spec.get("dataset_dir"):
            folder = Path(spec["dataset_dir"])
            items = json.loads((folder / "manifest.json").read_text())["items"]
            files = [{"path": str(folder / it["file"]), "name": it["name"], "label": it["label"]} for it in items]
        else:
            files = spec.get("files") or []
        if not files:
            raise image_error("no_input_images")
        out = ctx.work_dir
        rows = model.predict(
            [f["path"] for f in files],
            heatmap_dir=out / "heatmaps",
            names=[f"{i:06d}" for i in range(len(files))],
            progress=lambda f: ctx.progress(f, "Predicting"),
            check=ctx.check_cancelled,
        )
        result = []
        for f, r in zip(files, rows):
            result.append(
                {
                    "name": f["name"],
                    "label": f.get("label"),
                    "predicted": r["predicted"],
                    "score": r["score"],
                    "heatmap": f"heatmaps/{r['heatmap']}",
                    **({"probabilities": r["probabilities"]} if "probabilities" in r else {}),
                }
            )
        with open(out / "predictions.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["file", "predicted", "score", *(["label"] if any(r["label"] for r in result) else [])])
            for r in result:
                w.writerow([r["name"], r["predicted"], f"{r['score']:.6f}", *([r["label"]] if any(x["label"] for x in result) else [])])
        return {"algorithm": model.algorithm, "kind": model.kind, "threshold": model.threshold, "classes": model.classes, "rows": result}
