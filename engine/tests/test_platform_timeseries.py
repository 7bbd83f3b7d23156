"""Hosted time-series detectors (platform/timeseries.py): a block served equals the batch prediction; a stream fed row by
row (the server keeping only what `_next_state` keeps) equals the whole block; statuses and refusals."""

from __future__ import annotations

import os
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml.model_io import predict
from mitate_engine.platform import timeseries
from mitate_engine.task import Context, EngineError

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / ".." / "shared" / "data")
SIGNALS = ["Accelerometer1RMS", "Accelerometer2RMS", "Current", "Pressure", "Temperature", "Thermocouple", "Voltage", "Volume Flow RateRMS"]


def _skab() -> pd.DataFrame:
    df = pd.read_csv(DATA / "skab_subset" / "valve1" / "0.csv", sep=";")
    df["datetime"] = pd.to_datetime(df["datetime"])
    return df


def _train(tmp_path, project_type, models, **extra):
    from mitate_engine.task import get_task

    df = _skab()
    df.to_parquet(tmp_path / "skab.parquet", index=False)
    spec = {
        "project_type": project_type,
        "parquet": str(tmp_path / "skab.parquet"),
        "time_column": "datetime",
        "features": SIGNALS,
        "target": "anomaly",
        "lags": [2],
        "windows": [5, "20s"],
        "output_dir": str(tmp_path / "run"),
        "models": models,
        **extra,
    }
    res = get_task("tsad_train").run(spec, Context(lambda e: None, work_dir=spec["output_dir"]))
    assert all(m["state"] == "done" for m in res["models"]), res
    return {m["key"]: joblib.load(tmp_path / "run" / m["key"] / "model.joblib") for m in models}, df


def _rows(df: pd.DataFrame) -> list[dict]:
    out = df[["datetime", *SIGNALS]].copy()
    out["datetime"] = out["datetime"].dt.strftime("%Y-%m-%d %H:%M:%S")
    return out.to_dict(orient="records")


def _stream(model, rows, sizes, threshold=None):
    """Feeds rows in chunks of the given sizes, keeping what the state says, as the server does."""
    history, state, answers, kept = [], None, [], []
    i = 0
    for n in sizes:
        chunk = rows[i : i + n]
        i += n
        res = timeseries.answer(model, None, {"rows": chunk, "tsad": {"threshold": threshold, "stream": {"series": "s", "history": history, "state": state}}})
        st = res.pop("state")
        history = [*history, *chunk][st["drop"] :]
        state = {k: st[k] for k in ("start", "p0", "carry")}
        kept.append(len(history))
        answers += res["predictions"]
    return answers, kept


def _same(a: list[dict], b: list[dict], tol: float = 1e-9) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x["status"] == y["status"] and x["alarm"] == y["alarm"] and x["top_signal"] == y["top_signal"]
        for k, v in x.items():
            if isinstance(v, float):
                assert abs(v - y[k]) <= tol * max(1.0, abs(v)), (k, v, y[k])
            else:
                assert v == y[k], k


@pytest.mark.parametrize("kind", ["unsupervised", "supervised"])
def test_block_equals_batch_and_stream_equals_block(tmp_path, kind, monkeypatch):
    if kind == "unsupervised":
        models = [{"key": "1_pca_mspc", "algorithm": "pca_mspc", "params": {"alarm_k": 2, "alarm_n": 4}}]
        extra = {"normal": {"mode": "rows", "rows": 400}, "target": None}
    else:
        models = [{"key": "1_lightgbm", "algorithm": "lightgbm", "params": {"n_estimators": 40}}]
        extra = {"split_ratio": 0.7}
    trained, df = _train(tmp_path, f"time_series_anomaly_detection_{kind}", models, **extra)
    model = next(iter(trained.values()))
    part = df.iloc[500:760].reset_index(drop=True)
    rows = _rows(part)
    # the batch path with a saved threshold, on the same rows read from a table
    saved = float(model.threshold) * 0.9
    model_b = joblib.load(tmp_path / "run" / models[0]["key"] / "model.joblib")
    model_b.threshold = saved
    batch = predict(model_b, part[["datetime", *SIGNALS]], raw=False)
    block = timeseries.answer(model, None, {"rows": rows, "tsad": {"threshold": saved}})
    assert block["time_series"]["threshold"] == saved and block["time_series"]["trained_threshold"] == float(model.threshold)
    got = block["predictions"]
    score = batch["anomaly_score"].to_numpy(dtype=float)
    for i, g in enumerate(got):
        if np.isnan(score[i]):
            assert g["anomaly_score"] is None and g["alarm"] is None and g["status"] == "warming_up"
        else:
            assert abs(g["anomaly_score"] - score[i]) <= 1e-9
            assert g["alarm"] == bool(batch["alarm"].iloc[i] == 1)
            for s in SIGNALS:
                assert abs(g[f"contribution_{s}"] - batch[f"contribution_{s}"].iloc[i]) <= 1e-9
    sh = timeseries.shape(model)
    assert sh["warmup_rows"] == 4 and sh["history_rows"] == 4 + (3 if kind == "unsupervised" else 0)
    assert [g["status"] for g in got[: sh["warmup_rows"] + 1]] == ["warming_up"] * sh["warmup_rows"] + [
        "partial_history" if kind == "unsupervised" else "scored"
    ]
    assert model.threshold != saved  # the served threshold never stays on the loaded model
    # a stream fed 1, 3, 1, 7, ... rows equals the block (to 1e-12: matrix products of other sizes) while the series is kept whole
    sizes, left = [], len(rows)
    for n in [1, 3, 1, 7, 2] * 100:
        if left > 0:
            sizes.append(min(n, left))
            left -= sizes[-1]
    answers, kept = _stream(model, rows, sizes, threshold=saved)
    _same(answers, got, tol=1e-12)
    assert kept[-1] == len(rows)
    # kept to the rows the next score needs (the history and the 20 s window, one row a second): the same answers to
    # 1e-9, since each window's mean and std come from the window's own rows (timeseries/features.py)
    monkeypatch.setattr(timeseries, "EXACT_ROWS", 0)
    answers, kept = _stream(model, rows, sizes, threshold=saved)
    _same(answers, got, tol=1e-9)
    assert max(kept) <= sh["history_rows"] + 20 + 7


def test_stream_refuses_rows_out_of_order_and_a_block_refuses_text_time(tmp_path):
    trained, df = _train(
        tmp_path, "time_series_anomaly_detection_unsupervised", [{"key": "1_lof", "algorithm": "lof"}], normal={"mode": "rows", "rows": 400}, target=None
    )
    model = trained["1_lof"]
    rows = _rows(df.iloc[:10])
    with pytest.raises(EngineError) as err:
        timeseries.answer(model, None, {"rows": [rows[3]], "tsad": {"stream": {"series": "p", "history": rows[:5], "state": None}}})
    assert err.value.code == "tsad_stream_order" and err.value.params["series"] == "p"
    with pytest.raises(EngineError) as err:
        timeseries.answer(model, None, {"rows": [{**rows[0], "datetime": "yesterday"}, rows[1]], "tsad": {}})
    assert err.value.code == "tsad_time_unreadable" and err.value.params["value"] == "yesterday"
    with pytest.raises(EngineError) as err:
        timeseries.answer(model, None, {"rows": [{k: v for k, v in r.items() if k != "datetime"} for r in rows], "tsad": {}})
    assert err.value.code == "tsad_time_missing"
