"""Hosted API serving: models stay loaded, batches predicted as one frame, bad rows answered 422 naming the column."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.platform.serve import ModelCache, answer

ENGINE = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(0, 1, 200), "g": rng.choice(["a", "b"], 200)})
    df["y"] = 2 * df.x + (df.g == "b") * 3 + rng.normal(0, 0.01, 200)
    proj = prepare_project({"project_type": "regression", "target": "y", "features": ["x", "g"], "cv_folds": 2}, df)
    d = tmp_path_factory.mktemp("m") / "v1"
    train_model(proj, "linear", {}, d, lambda *a: None, lambda *a, **k: None, lambda s: None)
    return d


def ask(model_dir, *requests):
    return answer(ModelCache(), {"id": 1, "model": {"key": "k", "dir": str(model_dir)}, "requests": list(requests)})


def test_rows_and_csv_give_the_models_predictions(model_dir):
    a, b = ask(model_dir, {"rows": [{"x": 1.0, "g": "a"}, {"x": 0.0, "g": "b"}]}, {"csv": "x,g\n1.0,a\n"})
    assert a["outputs"] == ["predicted_y"]
    assert a["predictions"][0]["predicted_y"] == pytest.approx(2.0, abs=0.05)
    assert a["predictions"][1]["predicted_y"] == pytest.approx(3.0, abs=0.05)
    assert b["predictions"][0]["predicted_y"] == pytest.approx(a["predictions"][0]["predicted_y"])


def test_a_bad_request_in_a_batch_does_not_spoil_the_others(model_dir):
    good, missing, wrong, unseen, empty = ask(
        model_dir,
        {"rows": [{"x": 1.0, "g": "a"}]},
        {"rows": [{"g": "a"}]},
        {"rows": [{"x": "abc", "g": "a"}]},
        {"rows": [{"x": 1.0, "g": "zzz"}]},
        {"rows": []},
    )
    assert good["predictions"][0]["predicted_y"] == pytest.approx(2.0, abs=0.05)
    assert (missing["status"], missing["column"]) == (422, "x")
    assert (wrong["status"], wrong["column"]) == (422, "x")
    assert (unseen["status"], unseen["column"]) == (422, "g") and "zzz" in unseen["error"]
    assert empty["status"] == 422


def test_the_condition_saved_beside_the_model_is_applied(model_dir, tmp_path):
    d = tmp_path / "with_condition"
    d.mkdir()
    (d / "model.joblib").write_bytes((model_dir / "model.joblib").read_bytes())
    cond = {
        "name": "shift",
        "datetime_column": None,
        "steps": [
            {"process_type": "scaling", "method": "standard", "columns": ["x"], "params": {}, "fitted": {"columns": {"x": {"center": 10.0, "scale": 1.0}}}}
        ],
    }
    (d / "condition.json").write_text(json.dumps(cond))
    (r,) = ask(d, {"rows": [{"x": 11.0, "g": "a"}]})  # raw 11 -> 1 after the condition -> 2
    assert r["predictions"][0]["predicted_y"] == pytest.approx(2.0, abs=0.05)


def test_the_process_speaks_json_lines(model_dir):
    env = {**os.environ, "PYTHONPATH": str(ENGINE)}
    p = subprocess.Popen([sys.executable, "-m", "mitate_engine.platform.serve"], cwd=ENGINE, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(p.stdout.readline())["type"] == "ready"
        for i in range(2):  # the second answer comes from the cache
            p.stdin.write(json.dumps({"id": i, "model": {"key": "k", "dir": str(model_dir)}, "requests": [{"rows": [{"x": 0.5, "g": "a"}]}]}) + "\n")
            p.stdin.flush()
            reply = json.loads(p.stdout.readline())
            assert reply["id"] == i and reply["results"][0]["predictions"][0]["predicted_y"] == pytest.approx(1.0, abs=0.05)
        p.stdin.write(json.dumps({"id": 9, "model": {"key": "gone", "dir": "/nonexistent"}, "requests": [{"rows": [{"x": 1}]}]}) + "\n")
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["results"][0]["status"] == 422
    finally:
        p.stdin.close()
        p.wait(20)


def test_batches_never_fill_a_missing_column_from_other_requests(model_dir):
    a, missing, b = ask(model_dir, {"rows": [{"x": 1.0, "g": "a"}]}, {"rows": [{"g": "a"}]}, {"rows": [{"x": 0.0, "g": "b"}]})
    assert (missing["status"], missing["column"]) == (422, "x")
    assert a["predictions"][0]["predicted_y"] == pytest.approx(2.0, abs=0.05)
    assert b["predictions"][0]["predicted_y"] == pytest.approx(3.0, abs=0.05)
