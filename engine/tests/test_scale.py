"""Training that scales with the data (issue 34): the sampling rule, the compact read, chunked prediction equal to
whole prediction, and Stop during a LightGBM fit. Tables are generated here and kept small; the row thresholds are
lowered so the large-table rules apply to them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml import data as D
from mitate_engine.ml import project, reports, scale, trainer
from mitate_engine.ml.predict_chunks import predict_in_chunks
from mitate_engine.task import Cancelled, Context


def table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    status = rng.choice(["OK", "NG", "HOLD"], n)
    line = np.array([f"line-{i % 7}" for i in range(n)], dtype=object)
    x1, x2 = rng.normal(size=n), rng.uniform(0, 10, n)
    y = 2 * x1 + np.sin(x2) + (status == "NG") * 3 + rng.normal(scale=0.1, size=n)
    return pd.DataFrame({"x1": x1, "x2": x2, "count": rng.integers(0, 1000, n), "status": status, "line": line, "y": y, "other": rng.normal(size=n)})


@pytest.fixture
def large(monkeypatch):
    """Tables of a few thousand rows count as large; the CV sample and the training-figure sample are small."""
    monkeypatch.setattr(scale, "LARGE_ROWS", 1000)
    monkeypatch.setattr(project, "CV_SAMPLE_ROWS", 1500)
    for module in (trainer, reports):
        monkeypatch.setattr(module, "TRAIN_METRIC_ROWS", 800)


def spec(path, **kw) -> dict:
    return {"project_type": "regression", "parquet": str(path), "target": "y", "features": ["x1", "x2", "count", "status", "line"], "cv_folds": 3, **kw}


def test_sample_positions_rule():
    assert list(scale.sample_positions(10, 20)) == list(range(10))
    assert list(scale.sample_positions(100, 10, time_ordered=True)) == list(range(90, 100))
    y = np.array(["a"] * 900 + ["b"] * 100)
    idx = scale.sample_positions(1000, 200, seed=1, y=y)
    assert len(idx) == 200 and np.all(np.diff(idx) > 0)
    assert (y[idx] == "b").sum() == 20  # each class keeps its share
    idx = scale.sample_positions(1000, 200, seed=1)
    assert len(idx) == 200 and len(set(idx)) == 200


def test_compact_read_gives_categories_and_float32(tmp_path, large):
    p = tmp_path / "t.parquet"
    table(3000).to_parquet(p)
    df = D.read_table(str(p), ["x1", "count", "status"], compact=True)
    assert list(df.columns) == ["x1", "count", "status"]
    assert df["x1"].dtype == np.float32 and df["count"].dtype == np.float32
    assert isinstance(df["status"].dtype, pd.CategoricalDtype)
    kept = D.read_table(str(p), ["x1", "count", "status"], compact=True, exact=("count", "status"))  # a target stays as stored
    assert kept["count"].dtype == np.int64 and not isinstance(kept["status"].dtype, pd.CategoricalDtype) and kept["x1"].dtype == np.float32
    small = tmp_path / "s.parquet"
    table(500).to_parquet(small)
    df = D.read_table(str(small), ["x1", "status"], compact=True)
    assert df["x1"].dtype == np.float64 and isinstance(df["status"].dtype, pd.CategoricalDtype)
    kinds = D.column_kinds(df, ["x1", "status"])
    assert kinds == {"x1": "numeric", "status": "category"}
    assert D.categories_of(D.as_model_frame(df, kinds), kinds) == {"status": ["HOLD", "NG", "OK"]}


def test_large_table_cv_on_a_stated_sample_final_fit_on_all(tmp_path, large):
    p = tmp_path / "t.parquet"
    table(4000).to_parquet(p)
    proj = trainer.prepare_project(spec(p))
    assert proj.large and len(proj.X_train) == 3400
    assert isinstance(proj.X_train["status"].dtype, pd.CategoricalDtype)
    rep = trainer.train_model(proj, "lightgbm", {"n_estimators": 30}, tmp_path / "m", lambda f, m: None, lambda *a, **k: None, lambda s: None)
    s = rep["sampling"]
    assert s["final_fit_rows"] == 3400 and s["test_rows"] == 600
    assert s["cv"] == {"rows": 1500, "of": 3400, "folds": 3, "sample": "random"}
    assert s["train_metric_rows"] == 800
    assert len(rep["cv"]["folds"]) == 3
    assert rep["metrics"]["r2"] > 0.8
    assert {"read", "conversion", "final_fit", "prediction", "cv_folds", "importance", "shap", "writing"} <= set(rep["profile"])
    assert {r["feature"] for r in rep["shap"]} == {"x1", "x2", "count", "status", "line"}  # no one-hot columns
    from mitate_engine.ml.model_io import load_model

    assert isinstance(load_model(str(tmp_path / "m" / "model.joblib")).pipeline[0], scale.NativeFrame)


class _Ctx(Context):
    def __init__(self, work_dir, cancel_after: int | None = None):
        self.events: list[dict] = []
        self.calls = 0
        self.cancel_after = cancel_after

        def cancel() -> bool:
            self.calls += 1
            return self.cancel_after is not None and self.calls > self.cancel_after

        super().__init__(self.events.append, work_dir, cancel, progress_interval=0.0, cancel_interval=0.0)


def test_chunked_prediction_equals_whole_prediction(tmp_path, large):
    p = tmp_path / "t.parquet"
    table(3000).to_parquet(p)
    proj = trainer.prepare_project(spec(p))
    trainer.train_model(proj, "lightgbm", {"n_estimators": 20}, tmp_path / "m", lambda f, m: None, lambda *a, **k: None, lambda s: None)
    from mitate_engine.ml.model_io import load_model

    model = load_model(str(tmp_path / "m" / "model.joblib"))
    new = table(2500, seed=5)
    new.loc[3, "status"] = None
    new.loc[4, "x1"] = np.nan
    q = tmp_path / "new.parquet"
    new.to_parquet(q)
    ctx = _Ctx(tmp_path / "out")
    summary = predict_in_chunks(model, str(q), ctx, chunk_rows=700)
    assert summary["rows"] == 2500 and summary["chunks"] == 4
    got = pd.read_parquet(tmp_path / "out" / "predictions.parquet")
    whole = model.predict(pd.read_parquet(q), raw=False)
    np.testing.assert_allclose(got["predicted_y"].to_numpy(), whole["predicted_y"].to_numpy(), rtol=1e-12)
    assert list(got.columns) == ["predicted_y", "x1", "x2", "count", "status", "line", "y", "other"]
    assert got["status"].fillna("-").tolist() == new["status"].fillna("-").tolist()
    csv = pd.read_csv(tmp_path / "out" / "predictions.csv")
    assert len(csv) == 2500 and np.allclose(csv["predicted_y"], whole["predicted_y"])
    s = summary["stats"]
    assert s["missing"] == 0 and s["mean"] == pytest.approx(float(whole["predicted_y"].mean()))
    assert not list((tmp_path / "out").glob("*.part"))


def test_stop_ends_a_lightgbm_fit_and_writes_nothing(tmp_path, large):
    p = tmp_path / "t.parquet"
    table(4000).to_parquet(p)
    proj = trainer.prepare_project(spec(p))
    ctx = _Ctx(tmp_path, cancel_after=0)
    rounds = []

    def progress(f: float, msg: str) -> None:
        if "boosting round" in msg:
            rounds.append(msg)
            ctx.progress(f, msg)  # the job was stopped: raises Cancelled

    with pytest.raises(Cancelled):
        trainer.train_model(proj, "lightgbm", {"n_estimators": 5000}, tmp_path / "m", progress, lambda *a, **k: None, lambda s: None)
    assert len(rounds) == 1 and rounds[0].endswith("boosting round 1 of 5000")
    assert not (tmp_path / "m" / "model.joblib").exists() and not (tmp_path / "m" / "report.json").exists()
