"""The one way a trained model is saved, loaded and asked for predictions (training, the prediction job, and any
other area that uses a trained tabular model call these; a downloaded zip runs the same TrainedModel.predict).

The zip is self-contained: model.joblib (the TrainedModel: condition, time features, fitted pipeline), manifest.json,
requirements.txt and the mitate_engine code the pickled objects refer to, so the manifest's two `load` lines work
in a plain Python with those packages and nothing else.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pandas as pd

from ..encoding import to_jsonable
from ..task import EngineError
from .model import TrainedModel

PACKAGE = Path(__file__).resolve().parents[1]  # mitate_engine/
REQUIREMENTS = PACKAGE.parent / "requirements.txt"


def save_model(model: TrainedModel, out_dir: Path, metrics: dict | None = None) -> None:
    """Writes model.joblib, manifest.json and model.zip into out_dir."""
    import joblib

    out_dir.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib", compress=3)
    manifest = to_jsonable(model.manifest(metrics))
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    with zipfile.ZipFile(out_dir / "model.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.write(out_dir / "model.joblib", "model.joblib")
        z.write(out_dir / "manifest.json", "manifest.json")
        if REQUIREMENTS.is_file():
            z.write(REQUIREMENTS, "requirements.txt")
        for path in sorted(PACKAGE.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                z.write(path, str(Path("mitate_engine") / path.relative_to(PACKAGE)))


def load_model(path: str | os.PathLike) -> TrainedModel:
    import joblib

    if not path or not os.path.isfile(path):
        raise EngineError("model_file_missing")
    model = joblib.load(path)
    # Tabular models are TrainedModel; other areas' models (time-series detectors) keep the same verbs.
    if not callable(getattr(model, "predict", None)) or not callable(getattr(model, "check", None)):
        raise EngineError("not_a_model")
    return model


def predict(model: TrainedModel, df: pd.DataFrame, raw: bool = True) -> pd.DataFrame:
    """Output columns for each row of df (same index). raw: df is as uploaded, before the training dataset's
    preprocessing condition (the model applies it); False: df is already the condition's output."""
    if isinstance(model, TrainedModel):
        return model.predict(df, raw=raw)
    # A model that takes rows already through the training condition (time-series detectors): apply it here.
    if raw and getattr(model, "condition", None):
        from ..preprocessing.condition import apply_condition

        df = apply_condition(df, model.condition, skip_missing_columns=True, keep_index=True)
    model.check(df)
    return model.predict(df)


def predict_frame(model, df: pd.DataFrame, condition: dict | None) -> pd.DataFrame:
    """Rows through a trained model for other areas (optimisation candidates, design points, hosted APIs): with a
    condition the rows are raw and go through it first; without one they are already in the training dataset's units.
    The input check (missing column, wrong type, unseen category) is the batch prediction's. (Here rather than in
    tasks/predict.py so a hosted-API serving process need not import every job kind; that module re-exports it.)"""
    if condition and not model.condition:
        model.condition = condition
    return predict(model, df, raw=bool(condition))


def load_condition(path: str | None) -> dict | None:
    if not path:
        return None
    if not os.path.isfile(path):
        raise EngineError("condition_missing")
    with open(path, encoding="utf-8") as f:
        return json.load(f)
