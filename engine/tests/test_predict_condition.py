"""Prediction applies the training dataset's preprocessing condition (issue 3's apply_condition) to raw inference data."""

import json

import numpy as np
import pandas as pd
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.task import Context, get_task


def test_condition_is_applied_with_its_fitted_parameters_and_target_steps_are_skipped(tmp_path):
    rng = np.random.default_rng(3)
    raw = pd.DataFrame({"x": rng.normal(10, 2, 300)})
    raw["y"] = 3 * raw.x + rng.normal(0, 0.1, 300)
    # the condition that produced the training dataset: x and y standardised with these fitted figures
    cond = {
        "name": "standardise",
        "datetime_column": None,
        "steps": [
            {
                "process_type": "scaling",
                "method": "standard",
                "columns": ["x", "y"],
                "params": {},
                "fitted": {"columns": {"x": {"center": 10.0, "scale": 2.0}, "y": {"center": 30.0, "scale": 6.0}}},
            }
        ],
    }
    prepared = pd.DataFrame({"x": (raw.x - 10) / 2, "y": (raw.y - 30) / 6})
    proj = prepare_project({"project_type": "regression", "target": "y", "features": ["x"], "cv_folds": 2}, prepared)
    train_model(proj, "linear", {}, tmp_path / "m", lambda *a: None, lambda *a, **k: None, lambda s: None)
    (tmp_path / "condition.json").write_text(json.dumps(cond))
    new = pd.DataFrame({"x": [10.0, 12.0, 14.0]})  # raw inference data without the target
    new.to_parquet(tmp_path / "new.parquet")
    out_dir = tmp_path / "p"
    res = get_task("predict").run(
        {
            "model": str(tmp_path / "m" / "model.joblib"),
            "parquet": str(tmp_path / "new.parquet"),
            "condition_path": str(tmp_path / "condition.json"),
            "output_dir": str(out_dir),
        },
        Context(lambda e: None, out_dir),
    )
    assert res["condition_applied"] == "standardise"
    out = pd.read_csv(out_dir / "predictions.csv")
    # raw x 10, 12, 14 -> standardised 0, 1, 2 -> the model's standardised y = x (3 * 2 / 6) -> y in its own units
    # (issue 15: 30, 36, 42, not the scaled 0, 1, 2); the table shows x as uploaded, not the transformed inputs
    assert out["x"].tolist() == [10.0, 12.0, 14.0]
    assert np.allclose(out["predicted_y"], [30.0, 36.0, 42.0], atol=0.3)
