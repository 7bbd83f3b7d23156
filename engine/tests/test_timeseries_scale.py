"""Time-series detector training that scales with the series (issue 34): the feature matrix built once in place equals
the frame it replaces, rows scored in chunks equal rows scored at once, the series file written a row group at a time
reads back as before, a detector whose fit grows faster than its rows is fitted on a stated sample, and the job says
its steps and writes their seconds."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from mitate_engine.task import Context, EngineError, get_task
from mitate_engine.timeseries import trainer as T
from mitate_engine.timeseries.detectors import make
from mitate_engine.timeseries.features import carry_forward, window_features, window_matrix
from mitate_engine.timeseries.model import order_by_time


def _frame(n=600, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n).cumsum() * 0.1 + rng.normal(size=n)
    b = rng.normal(size=n)
    a[[0, 1, 50, 51, 52, 300]] = np.nan  # gaps, two at the very start
    c = (rng.normal(size=n) * 3).round().astype(np.int64)  # an integer signal
    return pd.DataFrame({"t": pd.date_range("2024-01-01", periods=n, freq="s"), "a": a, "b": b, "c": c})


@pytest.mark.parametrize(
    "opts",
    [
        {"lags": [], "windows": []},
        {"lags": [1, 3], "windows": [5, "10s"]},
        {"lags": [2], "windows": [4], "drift": ["b"], "drift_rows": 7, "stats": ("mean", "max")},
    ],
)
def test_the_feature_matrix_is_the_frame_carried_forward(opts):
    df = _frame()
    kw = {"stats": opts.get("stats", ("mean", "std", "min", "max")), "time": df["t"], "drift": opts.get("drift"), "drift_rows": opts.get("drift_rows", 0)}
    F = window_features(df, ["a", "b", "c"], opts["lags"], opts["windows"], **kw)
    names, X = window_matrix(df, ["a", "b", "c"], opts["lags"], opts["windows"], **kw)
    assert names == list(F.columns)
    assert X.dtype == np.float64 and X.shape == F.shape
    np.testing.assert_array_equal(X, F.ffill().to_numpy(dtype=float))


def test_carry_forward_fills_from_the_past_only_and_leaves_leading_gaps():
    v = np.array([np.nan, np.nan, 1.0, np.nan, 2.0, np.nan, np.nan])
    carry_forward(v)
    np.testing.assert_array_equal(v, [np.nan, np.nan, 1.0, 1.0, 2.0, 2.0, 2.0])
    w = np.array([3.0, 4.0])
    carry_forward(w)
    np.testing.assert_array_equal(w, [3.0, 4.0])


@pytest.mark.parametrize(("algorithm", "params"), [("pca_mspc", {}), ("pca_mspc", {"alarm_k": 2, "alarm_n": 4}), ("isolation_forest", {"n_estimators": 20})])
def test_rows_scored_in_chunks_equal_rows_scored_at_once(monkeypatch, algorithm, params):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 4))
    X[:, 1] += X[:, 0]
    det, _ = make(algorithm, params)
    det.fit(X[:400])

    def per_signal(c):
        return c[:, :2] + c[:, 2:]

    whole = T.score_rows(det, X, per_signal)
    monkeypatch.setattr(T, "SCORE_ROWS", 64)
    seen, checks = [], []
    chunked = T.score_rows(det, X, per_signal, check=lambda: checks.append(1), on_rows=lambda done, total: seen.append((done, total)))
    np.testing.assert_allclose(chunked[0], whole[0], rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(det.score(X), whole[0], rtol=1e-9, equal_nan=True)  # as the detector scores it
    if whole[1] is None:
        assert chunked[1] is None
    else:
        np.testing.assert_allclose(chunked[1], whole[1], rtol=1e-12)
    assert seen[-1] == (1000, 1000) and len(seen) == len(checks) == 16


def test_duplicate_times_of_a_sorted_series_are_found_by_their_neighbours():
    df = pd.DataFrame({"t": [1, 2, 2, 3, 4, 4, 4], "x": range(7)})
    with pytest.raises(EngineError) as e:
        order_by_time(df, "t")
    assert e.value.code == "tsad_time_duplicates" and e.value.params["count"] == 3 and e.value.params["first"] == "2"
    unsorted = pd.DataFrame({"t": [3, 1, 3, 2], "x": range(4)})
    with pytest.raises(EngineError) as e:
        order_by_time(unsorted, "t")
    assert e.value.params["count"] == 1 and e.value.params["first"] == "3"


def _run(tmp_path, models, n=600):
    df = _frame(n)
    df.to_parquet(tmp_path / "s.parquet")
    spec = {
        "project_type": T.UNSUPERVISED,
        "parquet": str(tmp_path / "s.parquet"),
        "time_column": "t",
        "features": ["a", "b", "c"],
        "windows": [5],
        "normal": {"mode": "rows", "rows": n // 2},
        "output_dir": str(tmp_path / "o"),
        "models": models,
        "lang": "ja",
    }
    events = []
    # every progress line kept (none coalesced by the 0.1 s interval)
    out = get_task("tsad_train").run(spec, Context(events.append, work_dir=spec["output_dir"], progress_interval=0))
    return out, events, tmp_path / "o"


def test_the_series_file_is_written_a_row_group_at_a_time_and_reads_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(T, "SERIES_ROWS", 100)
    out, _, o = _run(tmp_path, [{"key": "m", "algorithm": "pca_mspc"}])
    assert out["models"][0]["state"] == "done"
    f = pq.ParquetFile(o / "m" / "series.parquet")
    assert f.metadata.num_row_groups == 6 and f.metadata.num_rows == 600
    s = pd.read_parquet(o / "m" / "series.parquet")
    assert list(s.columns) == ["pos", "time", "score", "label", "split", "c_0", "c_1", "c_2"]
    assert s["pos"].tolist() == list(range(600)) and (s["label"] == -1).all()
    assert s["split"].astype(str).tolist()[:6] == ["warmup"] * 4 + ["train"] * 2
    assert set(s["split"].astype(str)) == {"warmup", "train", "validation", "test"}
    assert s["time"].iloc[0] == pd.Timestamp("2024-01-01")
    report = json.loads((o / "m" / "report.json").read_text(encoding="utf-8"))
    assert report["parts"] == {k: int((s["split"].astype(str) == k).sum()) for k in ("warmup", "train", "validation", "test")}


def test_the_job_says_its_steps_and_writes_their_seconds(tmp_path):
    from mitate_engine.task import messages

    out, events, o = _run(tmp_path, [{"key": "m", "algorithm": "pca_mspc"}])
    cat = messages()
    said = [e["message"] for e in events if e["type"] == "progress"]
    assert cat["tsad_job_features"]["ja"] in said
    assert any(m.startswith("PCA") and "行で学習しています" in m for m in said)
    assert any(m.endswith(cat["tsad_job_writing"]["ja"].split(": ")[-1]) for m in said)
    fractions = [e["progress"] for e in events if e["type"] == "progress"]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    profile = json.loads((o / "m" / "report.json").read_text(encoding="utf-8"))["profile"]
    for step in ("read", "order", "features", "normal_period", "fill", "fit", "score", "threshold", "evaluate", "write_scores", "report"):
        assert profile[step] >= 0, step
    assert set(out["profile"]) == {"read", "order", "features", "normal_period", "fill"}


def test_lof_on_a_long_normal_period_is_fitted_on_a_stated_sample(tmp_path, monkeypatch):
    monkeypatch.setattr(T, "FIT_SAMPLE_ROWS", {"lof": 50})
    out, _, o = _run(tmp_path, [{"key": "l", "algorithm": "lof", "params": {"n_neighbors": 10}}, {"key": "p", "algorithm": "pca_mspc"}])
    lof = json.loads((o / "l" / "report.json").read_text(encoding="utf-8"))
    fitting = lof["parts"]["train"]
    assert lof["detector"]["fit_rows"] == 50 and lof["detector"]["fit_sample_of"] == fitting > 50
    assert lof["metrics"]["evaluated_rows"] > 0  # every row is scored whatever the sample
    pca = json.loads((o / "p" / "report.json").read_text(encoding="utf-8"))
    assert "fit_rows" not in pca["detector"]  # fitted on every row
    rows = T.fit_sample(np.arange(10, 500), "lof")
    assert len(rows) == 50 and (np.diff(rows) > 0).all() and np.array_equal(rows, T.fit_sample(np.arange(10, 500), "lof"))
