"""The suggestion of slowly drifting signals (timeseries/drift.py): generated signals whose answer is known, the reasons as
catalogue codes in both languages, the job on a parquet file (normal period by rows or range, supervised training part)
and the SKAB thermal signals."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mitate_engine.task import Context, EngineError, get_task, messages
from mitate_engine.timeseries.drift import MIN_ROWS, SAMPLE_ROWS, sample_positions, signal_figures, suggest_drift

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / ".." / "shared" / "data")
N = 600


def signals(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    t = np.arange(N)
    return pd.DataFrame(
        {
            "walk": np.cumsum(rng.normal(size=N)) + 0.3 * rng.normal(size=N),  # random walk: drifts
            "linear": 0.05 * t + rng.normal(size=N),  # 30 sd over the period, steadily
            "noise": rng.normal(size=N),
            "fast": np.sin(2 * np.pi * t / 12) + 0.2 * rng.normal(size=N),  # period 12 rows
            "constant": np.full(N, 3.0),
            "step": np.where(t < 300, 0.0, 10.0) + rng.normal(size=N),  # one jump, not a drift
            "swing": 20 * np.sin(2 * np.pi * t / 100) + rng.normal(size=N),  # slow but stationary: six swings
        }
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_random_walk_and_linear_drift_are_suggested_noise_periodic_constant_step_and_swing_are_not(seed):
    r = suggest_drift(signals(seed), list(signals(seed).columns))
    by = {i["signal"]: i for i in r["signals"]}
    assert set(r["drift_signals"]) == {"walk", "linear"}, {k: (v["move"], v["step_share"], v["crossings"]) for k, v in by.items()}
    assert by["noise"]["reason"]["code"] == "tsad_drift_reason_small"
    assert by["fast"]["reason"]["code"] == "tsad_drift_reason_small"
    assert by["constant"]["reason"]["code"] == "tsad_drift_reason_constant"
    assert by["step"]["reason"]["code"] == "tsad_drift_reason_step"
    assert by["swing"]["reason"]["code"] == "tsad_drift_reason_returns"
    # the linear drift: 0.05 per row against a short-term sd of 1 moves by one sd in 20 rows; L keeps it near 2 sd
    assert by["linear"]["rows_per_sd"] == pytest.approx(20, rel=0.25)
    assert 2 <= r["drift_rows"] <= N // 4
    assert r["drift_rows"] == round(2 * min(by["walk"]["rows_per_sd"], by["linear"]["rows_per_sd"]))


def test_figures_by_hand_on_a_linear_drift_without_noise_in_the_differences():
    # x = t/10 + alternating +-1: differences are 0.1 +- 2, so the short-term sd is std(diff)/sqrt(2) = 2/sqrt(2)
    t = np.arange(200)
    x = t / 10 + np.where(t % 2 == 0, 1.0, -1.0)
    f = signal_figures(x)
    s = np.std(np.diff(x)) / np.sqrt(2)
    assert f["short_sd"] == pytest.approx(s, rel=1e-4)
    assert f["window"] == 20
    # the centred 20-row mean of t/10 (the alternation cancels) runs from 0.95 to 18.95: a move of 18.0 / s
    assert f["move"] == pytest.approx(18.0 / s, abs=0.01)
    assert f["crossings"] == 1 and f["drifts"]


def test_a_short_period_is_refused_and_a_short_signal_is_named():
    with pytest.raises(EngineError) as e:
        suggest_drift(signals().iloc[: MIN_ROWS - 1], ["walk"])
    assert e.value.code == "tsad_drift_period_too_short" and e.value.params["needed"] == MIN_ROWS
    sparse = signals().iloc[:100].copy()
    sparse.loc[10:, "walk"] = np.nan  # 10 values only
    r = suggest_drift(sparse, ["walk", "linear"], period="train")
    walk = r["signals"][0]
    assert walk["reason"]["code"] == "tsad_drift_reason_short" and walk["rows"] == 10 and not walk["drifts"]
    assert walk["reason"]["params"]["period"]["code"] == "tsad_drift_period_train"


def test_every_reason_and_error_is_in_the_catalogue_with_the_same_placeholders_in_both_languages():
    src = (Path(__file__).resolve().parents[1] / "mitate_engine" / "timeseries" / "drift.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'"(tsad_drift_[a-z_]+)"', src))
    assert {
        "tsad_drift_reason_drifts",
        "tsad_drift_reason_small",
        "tsad_drift_reason_step",
        "tsad_drift_reason_returns",
        "tsad_drift_period_too_short",
    } <= codes
    cat = messages()
    for code in codes:
        assert cat[code]["en"].strip() and cat[code]["ja"].strip(), code
        assert set(re.findall(r"\{(\w+)\}", cat[code]["en"])) == set(re.findall(r"\{(\w+)\}", cat[code]["ja"])), code
    # every placeholder of a reason is among the parameters the rule gives
    r = suggest_drift(signals(), list(signals().columns))
    for i in r["signals"]:
        wanted = set(re.findall(r"\{(\w+)\}", cat[i["reason"]["code"]]["en"]))
        assert wanted <= set(i["reason"]["params"]), (i["signal"], wanted)


def run_job(spec):
    return get_task("tsad_drift_suggest").run(spec, Context(lambda e: None, work_dir=None))


def test_the_job_reads_the_normal_period_by_rows_or_range_and_the_supervised_training_part(tmp_path):
    df = signals()
    # the walk drifts over the first half only: after row 300 it is white noise around 0
    df.loc[300:, "walk"] = np.random.default_rng(9).normal(size=N - 300)
    df.insert(0, "t", pd.date_range("2026-01-01", periods=N, freq="s"))
    df["label"] = 0
    df = df.sample(frac=1, random_state=0)  # out of order: the job orders by time
    df.to_parquet(tmp_path / "d.parquet")
    base = {"parquet": str(tmp_path / "d.parquet"), "time_column": "t", "features": ["walk", "linear", "noise"]}
    first = run_job({**base, "project_type": "time_series_anomaly_detection_unsupervised", "normal": {"mode": "rows", "rows": 300}})
    assert first["rows"] == 300 and first["period"] == "normal" and first["drift_signals"] == ["walk", "linear"]
    late = run_job(
        {
            **base,
            "project_type": "time_series_anomaly_detection_unsupervised",
            "normal": {"mode": "range", "start": "2026-01-01 00:05:00", "end": "2026-01-01 00:09:59"},
        }
    )
    assert late["rows"] == 300 and late["drift_signals"] == ["linear"]
    sup = run_job({**base, "project_type": "time_series_anomaly_detection_supervised", "split_ratio": 0.5})
    assert sup["period"] == "train" and sup["rows"] == 240  # 300 rows less the fifth that validates
    with pytest.raises(EngineError) as e:
        run_job({**base, "project_type": "time_series_anomaly_detection_unsupervised", "normal": {"mode": "rows", "rows": 20}})
    assert e.value.code == "tsad_drift_period_too_short"


@pytest.mark.skipif(not (DATA / "skab_subset").is_dir(), reason="shared SKAB data not present")
def test_skab_thermal_signals_are_suggested_and_the_fast_ones_not_on_the_valve_files():
    # the design's observation (bench/tsad_skab_candidates.json): Temperature and Thermocouple drift, the rest are fast
    for f in ["valve1/0.csv", "valve1/1.csv", "valve2/0.csv"]:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        cols = [c for c in df.columns if c not in ("datetime", "anomaly", "changepoint")]
        r = suggest_drift(df.iloc[:400], cols)
        assert r["drift_signals"] == ["Temperature", "Thermocouple"], f


def test_below_the_sample_size_the_job_answers_as_the_whole_period_does(tmp_path):
    # the answer before sampling: every row of the period (time order) handed to suggest_drift
    df = signals(5)
    df.insert(0, "t", pd.date_range("2026-01-01", periods=N, freq="s"))
    df.sample(frac=1, random_state=1).to_parquet(tmp_path / "d.parquet")
    cols = ["walk", "linear", "noise", "step", "swing"]
    base = {"parquet": str(tmp_path / "d.parquet"), "time_column": "t", "features": cols}
    got = run_job({**base, "project_type": "time_series_anomaly_detection_unsupervised", "normal": {"mode": "rows", "rows": 500}})
    want = suggest_drift(df.iloc[:500][cols], cols)
    assert got == {**want, "period": "normal"} and got["sample_rows"] == got["rows"] == 500
    sup = run_job({**base, "project_type": "time_series_anomaly_detection_supervised", "split_ratio": 0.8})
    assert sup == {**suggest_drift(df.iloc[:384][cols], cols, "train"), "period": "train"}


def test_sample_positions_are_evenly_spaced_blocks_of_consecutive_rows_from_start_to_end():
    assert (sample_positions(1000) == np.arange(1000)).all()
    p = sample_positions(1_000_000, rows=1000, blocks=10)
    assert len(p) == 1000 and p[0] == 0 and p[-1] == 999_999 and (np.diff(p) > 0).all()
    blocks = p.reshape(10, 100)
    assert (np.diff(blocks, axis=1) == 1).all()  # consecutive rows within a block
    gaps = np.diff(blocks[:, 0])
    assert gaps.max() - gaps.min() <= 1  # evenly spaced


def test_a_long_period_is_looked_at_through_its_sample_and_l_is_in_the_period_rows(tmp_path, monkeypatch):
    n = SAMPLE_ROWS * 3
    rng = np.random.default_rng(7)
    t = np.arange(n)
    df = pd.DataFrame(
        {
            "t": t.astype(float),
            "linear": 0.0002 * t + rng.normal(size=n),  # 120 sd over the table, one sd in 5000 rows
            "noise": rng.normal(size=n),
            # a random walk: across the gap between two blocks it moves by far more than its short-term variation
            "walk": np.cumsum(rng.normal(size=n)) + rng.normal(size=n),
            "other": rng.normal(size=n),  # in the file, not asked for
        }
    )
    df.iloc[::-1].to_parquet(tmp_path / "d.parquet")  # reversed: the job orders by time
    import mitate_engine.tasks.tsad_drift_suggest as job

    seen = []
    monkeypatch.setattr(job, "suggest_drift", lambda frame, *a, **k: seen.append(frame) or suggest_drift(frame, *a, **k))
    spec = {"parquet": str(tmp_path / "d.parquet"), "time_column": "t", "features": ["linear", "noise", "walk"]}
    r = run_job({**spec, "project_type": "time_series_anomaly_detection_unsupervised", "normal": {"mode": "rows", "rows": n - 1000}})
    assert len(seen) == 1 and len(seen[0]) == SAMPLE_ROWS and list(seen[0].columns) == ["linear", "noise", "walk"]
    assert r["rows"] == n - 1000 and r["sample_rows"] == SAMPLE_ROWS
    # the sample's rows are the period's at sample_positions, in time order
    assert np.array_equal(seen[0]["linear"].to_numpy(), df["linear"].to_numpy()[sample_positions(n - 1000)])
    # the same answer as the whole period's, its figures near the whole period's
    full = suggest_drift(df.iloc[: n - 1000], ["linear", "noise", "walk"])
    assert r["drift_signals"] == full["drift_signals"] == ["linear", "walk"]
    assert r["signals"][0]["rows_per_sd"] == pytest.approx(5000, rel=0.1)
    for got, whole in zip(r["signals"], full["signals"]):
        assert got["reason"]["code"] == whole["reason"]["code"]
        assert got["short_sd"] == pytest.approx(whole["short_sd"], rel=0.05), got["signal"]
        if got["drifts"]:
            assert got["rows_per_sd"] == pytest.approx(whole["rows_per_sd"], rel=0.1), got["signal"]
    assert r["drift_rows"] == pytest.approx(full["drift_rows"], rel=0.05)
