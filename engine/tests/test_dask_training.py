"""LightGBM's final fit on a Dask cluster (MITATE_DASK_SCHEDULER): a local scheduler and two worker processes, trained
through the product's train task, compared with the same job fitted in the engine; Stop ends the workers' boosting."""

from __future__ import annotations

import json
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml import distributed
from mitate_engine.task import Cancelled, Context, get_task

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", scheduler_port=0) as c:
        with Client(c, set_as_default=False) as client:  # as in the engine: no default client in the process
            client.wait_for_workers(2, timeout=120)
            yield c.scheduler_address, client


def table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    line = rng.choice(["A", "B", "C", "D"], size=n)
    effect = pd.Series(line).map({"A": 0.0, "B": 1.5, "C": -1.0, "D": 3.0}).to_numpy()
    signal = 2 * x[:, 0] - x[:, 1] ** 2 + np.sin(3 * x[:, 2]) + x[:, 3] * x[:, 4] + effect + rng.normal(scale=0.3, size=n)
    df = pd.DataFrame(x, columns=[f"x{i}" for i in range(5)])
    df["line"] = line
    df["signal"] = signal
    df["grade"] = np.where(signal > 2, "high", np.where(signal > 0, "mid", "low"))
    df.loc[rng.choice(n, 50, replace=False), "signal"] = np.nan  # rows without a target are left out by the split
    return df


def spec(tmp_path: Path, df: pd.DataFrame, out: str, target: str = "signal", params: dict | None = None) -> dict:
    path = tmp_path / "data.parquet"
    if not path.exists():
        df.to_parquet(path, row_group_size=7000)  # several row groups, read in row ranges that cut across them
    kind = "discriminant_analysis" if target == "grade" else "regression"
    return {
        "project_type": kind,
        "parquet": str(path),
        "target": target,
        "features": ["x0", "x1", "x2", "x3", "x4", "line"],
        "split_ratio": 0.85,
        "cv_folds": 2,
        "output_dir": str(tmp_path / out),
        "models": [{"key": "lgbm", "algorithm": "lightgbm", "params": params or {}}],
    }


def train(s: dict, events: list | None = None, cancel=None) -> dict:
    events = [] if events is None else events
    return get_task("train").run(s, Context(events.append, s["output_dir"], cancel_requested=cancel))


def on_cluster(monkeypatch, address: str) -> None:
    monkeypatch.setenv("MITATE_DASK_SCHEDULER", address)
    monkeypatch.setenv("MITATE_DASK_MIN_ROWS", "0")


def report(s: dict) -> dict:
    return json.loads((Path(s["output_dir"]) / "lgbm" / "report.json").read_text(encoding="utf-8"))


def test_regression_on_the_cluster_matches_the_local_fit(cluster, tmp_path, monkeypatch):
    address, _ = cluster
    df = table(40_000)
    monkeypatch.delenv("MITATE_DASK_SCHEDULER", raising=False)
    local = train(spec(tmp_path, df, "local"))
    on_cluster(monkeypatch, address)
    events: list = []
    s = spec(tmp_path, df, "dask")
    remote = train(s, events)
    assert remote["train_rows"] == local["train_rows"] and remote["test_rows"] == local["test_rows"]
    r2_local = local["models"][0]["metrics"]["r2"]
    r2_dask = remote["models"][0]["metrics"]["r2"]
    assert r2_local > 0.9
    assert abs(r2_dask - r2_local) < 0.02, (r2_dask, r2_local)
    rep = report(s)
    assert rep["trained_on"] == {"engine": "dask", "scheduler": address, "workers": 2}
    assert report(spec(tmp_path, df, "local"))["trained_on"] is None
    logs = [e["line"] for e in events if e["type"] == "log"]
    assert any(f"trained on the Dask cluster at {address}, 2 workers" in line for line in logs)
    assert any("boosting round" in e.get("message", "") for e in events if e["type"] == "progress")
    # the saved model is a plain LightGBM model in the usual pipeline: prediction works as for a local fit
    model = joblib.load(Path(s["output_dir"]) / "lgbm" / "model.joblib")
    assert type(model.pipeline.steps[-1][1]).__name__ == "LGBMRegressor"
    new = table(500, seed=7)
    new_path = tmp_path / "new.parquet"
    new.drop(columns=["signal", "grade"]).to_parquet(new_path)
    pred = get_task("predict").run(
        {"model": str(Path(s["output_dir"]) / "lgbm" / "model.joblib"), "parquet": str(new_path), "output_dir": str(tmp_path / "p")},
        Context(lambda e: None, tmp_path / "p"),
    )
    out = pd.read_parquet(tmp_path / "p" / "predictions.parquet")
    assert pred["rows"] == 500
    ok = new["signal"].notna()
    resid = out[pred["outputs"][0]][ok].to_numpy() - new["signal"][ok].to_numpy()
    assert 1 - np.sum(resid**2) / np.sum((new["signal"][ok] - new["signal"][ok].mean()) ** 2) > 0.85


def test_classification_on_the_cluster_keeps_the_class_labels(cluster, tmp_path, monkeypatch):
    address, _ = cluster
    df = table(30_000, seed=1)
    monkeypatch.delenv("MITATE_DASK_SCHEDULER", raising=False)
    local = train(spec(tmp_path, df, "local", target="grade"))
    on_cluster(monkeypatch, address)
    s = spec(tmp_path, df, "dask", target="grade")
    remote = train(s)
    acc_local = local["models"][0]["metrics"]["accuracy"]
    acc_dask = remote["models"][0]["metrics"]["accuracy"]
    assert acc_local > 0.85
    assert abs(acc_dask - acc_local) < 0.02, (acc_dask, acc_local)
    assert report(s)["trained_on"]["workers"] == 2
    model = joblib.load(Path(s["output_dir"]) / "lgbm" / "model.joblib")
    assert list(model.pipeline.classes_) == ["high", "low", "mid"]


def test_stop_ends_the_workers_boosting_and_writes_no_model(cluster, tmp_path, monkeypatch):
    address, client = cluster
    on_cluster(monkeypatch, address)
    df = table(120_000, seed=2)
    events: list = []
    s = spec(tmp_path, df, "dask", params={"n_estimators": 1000, "learning_rate": 0.005, "num_leaves": 256, "min_child_samples": 2})

    def stop_once_boosting() -> bool:
        return any("on the Dask cluster" in e.get("message", "") or "Dask workers" in e.get("message", "") for e in events if e["type"] == "progress")

    with pytest.raises(Cancelled):
        train(s, events, cancel=stop_once_boosting)
    assert not (Path(s["output_dir"]) / "lgbm" / "model.joblib").exists()
    assert not (Path(s["output_dir"]) / "lgbm" / "report.json").exists()

    # the workers end their part of the fit: no task left running in a worker's threads (a released task whose
    # thread still runs would count here) ...
    def running() -> int:
        return sum(client.run(lambda dask_worker: len(dask_worker.state.executing) + len(dask_worker.state.long_running)).values())

    limit = time.monotonic() + 120
    while running() and time.monotonic() < limit:
        time.sleep(0.2)
    assert running() == 0
    assert any("stopped; the Dask workers ended their boosting" in e["line"] for e in events if e["type"] == "log")
    # ... and the cluster trains the next job
    (tmp_path / "again").mkdir()
    small = spec(tmp_path / "again", table(3000, seed=3), "dask")
    again = train(small)
    assert again["models"][0]["state"] == "done" and report(small)["trained_on"]["workers"] == 2


def test_what_goes_to_the_cluster(monkeypatch, tmp_path):
    from mitate_engine.ml.trainer import prepare_project

    df = table(300)
    s = spec(tmp_path, df, "x")
    proj = prepare_project(s)
    proj.source = {"parquet": s["parquet"], "split_ratio": 0.85}
    from sklearn.pipeline import Pipeline

    class LGBMRegressor:  # stands for the pipeline's last step by its class name
        pass

    pipe = Pipeline([("preprocess", "passthrough"), ("model", LGBMRegressor())])
    env = {"MITATE_DASK_SCHEDULER": "tcp://h:8786", "MITATE_DASK_MIN_ROWS": "0"}
    assert distributed.applies(proj, "lightgbm", pipe, env) == "tcp://h:8786"
    assert distributed.applies(proj, "random_forest", pipe, env) is None
    assert distributed.applies(proj, "lightgbm", pipe, {}) is None
    assert distributed.applies(proj, "lightgbm", pipe, {**env, "MITATE_DASK_MIN_ROWS": "1000000"}) is None
    assert distributed.min_rows({}) == 1_000_000
    # the training rows the workers keep are the engine's own
    mask = distributed.training_mask(s["parquet"], proj)
    assert mask.sum() == len(proj.X_train)
    assert np.allclose(pd.read_parquet(s["parquet"])["signal"].to_numpy()[mask], proj.y_train)
    # with the object store, workers read the dataset's object (its key relative to the engine's data folder)
    data = tmp_path / "data"
    f = data / "files" / "org" / "o1" / "datasets" / "d1" / "data.parquet"
    f.parent.mkdir(parents=True)
    f.write_bytes(b"")
    env_s3 = {"MITATE_S3_BUCKET": "b", "MITATE_S3_PREFIX": "p", "MITATE_DATA_DIR": str(data)}
    assert distributed.source_of(str(f), env_s3) == {"s3_key": "p/files/org/o1/datasets/d1/data.parquet"}
    assert distributed.source_of(str(f), {}) == {"path": str(f)}


def test_fits_take_turns_on_the_cluster_and_stop_while_waiting(cluster, tmp_path, monkeypatch):
    from distributed import Lock

    address, client = cluster
    on_cluster(monkeypatch, address)
    lock = Lock(distributed.LOCK_NAME, scheduler_rpc=client.scheduler, loop=client.loop)  # another job's LightGBM fit holds the cluster
    assert lock.acquire(timeout=60)
    events: list = []
    try:

        def stop_while_waiting() -> bool:
            return any("waiting for the Dask cluster" in e.get("message", "") for e in events if e["type"] == "progress")

        with pytest.raises(Cancelled):
            train(spec(tmp_path, table(3000, seed=4), "dask"), events, cancel=stop_while_waiting)
    finally:
        lock.release()
    assert not any("training on the Dask cluster" in e["line"] for e in events if e["type"] == "log")


def test_workers_read_the_dataset_from_the_object_store(cluster, tmp_path, monkeypatch):
    import boto3
    from moto.server import ThreadedMotoServer

    address, client = cluster
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        s3 = {
            "MITATE_S3_ENDPOINT": f"http://{host}:{port}",
            "MITATE_S3_BUCKET": "mitate-test",
            "MITATE_S3_PREFIX": "inst",
            "MITATE_S3_ACCESS_KEY_ID": "test",
            "MITATE_S3_SECRET_ACCESS_KEY": "test",
        }
        boto3.client(
            "s3", endpoint_url=s3["MITATE_S3_ENDPOINT"], region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
        ).create_bucket(Bucket="mitate-test")
        data = tmp_path / "cache"  # the engine worker's cache of the data folder
        folder = data / "files" / "org" / "o1" / "datasets" / "d1"
        folder.mkdir(parents=True)
        s = spec(folder, table(20_000, seed=5), "out")
        boto3.client("s3", endpoint_url=s3["MITATE_S3_ENDPOINT"], region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test").upload_file(
            s["parquet"], "mitate-test", "inst/files/org/o1/datasets/d1/data.parquet"
        )
        for k, v in {**s3, "MITATE_DATA_DIR": str(data)}.items():
            monkeypatch.setenv(k, v)
        on_cluster(monkeypatch, address)
        client.run(lambda: __import__("os").environ.update(s3))
        # once the engine has its rows and the training mask, its cached copy goes: the workers must read the store
        mask = distributed.training_mask

        def then_drop_the_cache(path, proj):
            m = mask(path, proj)
            Path(path).unlink()
            return m

        monkeypatch.setattr(distributed, "training_mask", then_drop_the_cache)
        events: list = []
        result = train(s, events)
        assert result["models"][0]["state"] == "done"
        assert report(s)["trained_on"] == {"engine": "dask", "scheduler": address, "workers": 2}
        assert result["models"][0]["metrics"]["r2"] > 0.9
    finally:
        client.run(
            lambda: [
                __import__("os").environ.pop(k, None)
                for k in ("MITATE_S3_ENDPOINT", "MITATE_S3_BUCKET", "MITATE_S3_PREFIX", "MITATE_S3_ACCESS_KEY_ID", "MITATE_S3_SECRET_ACCESS_KEY")
            ]
        )
        server.stop()


def plant_spec(folder: Path, out: str) -> dict:
    """A soft sensor on a time-ordered plant table (lags and windows across row groups)."""
    from tests.test_stream import plant, soft

    path = folder / "plant.parquet"
    if not path.exists():
        plant(45_000, seed=8).to_parquet(path, row_group_size=7000)
    return {**soft(path), "output_dir": str(folder / out), "models": [{"key": "lgbm", "algorithm": "lightgbm", "params": {}}]}


def test_a_table_too_large_to_hold_trains_on_the_cluster_from_its_row_groups(cluster, tmp_path, monkeypatch):
    """A streamed table (MITATE_ML_STREAM_ROWS, ml/stream.py): the engine holds samples only and the Dask workers read
    the row groups and pick the training rows by the same split (a soft sensor: its lags and windows too); nothing is
    fitted in the engine."""
    from mitate_engine.ml import project, stream

    address, _ = cluster
    monkeypatch.setenv("MITATE_ML_STREAM_ROWS", "10000")
    monkeypatch.setattr(stream, "SAMPLE_ROWS", 3000)
    monkeypatch.setattr(project, "CV_SAMPLE_ROWS", 2000)
    df = table(45_000, seed=6)
    for case, metric in (("signal", "r2"), ("grade", "accuracy"), ("soft", "r2")):
        folder = tmp_path / case
        folder.mkdir()

        def make(out: str, case=case, folder=folder) -> dict:
            return plant_spec(folder, out) if case == "soft" else spec(folder, df, out, target=case)

        monkeypatch.delenv("MITATE_DASK_SCHEDULER", raising=False)
        local = train(make("local"))
        fitted_here: list = []
        events: list = []
        s = make("dask")
        with monkeypatch.context() as m:
            on_cluster(m, address)
            m.setattr(stream, "fit_streamed", lambda *a, seen=fitted_here, **k: seen.append(1))
            remote = train(s, events)
        assert not fitted_here
        rep = report(s)
        assert rep["trained_on"] == {"engine": "dask", "scheduler": address, "workers": 2}
        assert report(make("local"))["trained_on"] is None
        # every training row trained on the cluster; the samples were all the engine held
        assert rep["sampling"]["final_fit_rows"] == remote["train_rows"] == local["train_rows"] > 30_000
        assert rep["sampling"]["cv"]["rows"] == 2000
        logs = [e["line"] for e in events if e["type"] == "log"]
        assert any(f"{remote['train_rows']:,} rows in" in line for line in logs), logs
        got, ref = remote["models"][0]["metrics"][metric], local["models"][0]["metrics"][metric]
        assert ref > 0.85 and abs(got - ref) < 0.02, (case, got, ref)
