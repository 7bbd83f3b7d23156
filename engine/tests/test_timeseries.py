"""Time-series anomaly detection: MSPC limits and contributions by hand, detectors against scikit-learn,
metrics against hand counts, no look-ahead in windowed features, and the training + prediction jobs on TEP."""

from __future__ import annotations

import json
import os
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from mitate_engine.task import Context, UserError
from mitate_engine.timeseries import metrics as MET
from mitate_engine.timeseries.detectors import make
from mitate_engine.timeseries.features import window_features
from mitate_engine.timeseries.mspc import PcaMspc
from scipy import stats

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / ".." / "shared" / "data")  # ../shared/data from the repo root
ROOT_ENGINE = Path(__file__).resolve().parents[1]


def small():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(40, 2))
    return np.column_stack([base[:, 0], base[:, 0] * 0.8 + 0.2 * base[:, 1], base[:, 1], rng.normal(size=40)])


def test_t2_q_limits_and_contributions_by_hand():
    X = small()
    m = PcaMspc(n_components=2, confidence=0.99).fit(X)
    n, k = X.shape
    Z = (X - X.mean(0)) / X.std(0, ddof=1)
    lam, vec = np.linalg.eigh(np.cov(Z, rowvar=False))
    lam, vec = lam[::-1], vec[:, ::-1]
    P = vec[:, :2]
    T = Z @ P
    t2 = (T**2 / lam[:2]).sum(1)
    q = ((Z - T @ P.T) ** 2).sum(1)
    got_t2, got_q = m.t2_q(X)
    assert np.allclose(got_t2, t2) and np.allclose(got_q, q)
    assert m.t2_limit_ == pytest.approx(2 * (n - 1) * (n + 1) / (n * (n - 2)) * stats.f.ppf(0.99, 2, n - 2))
    th = [np.sum(lam[2:] ** i) for i in (1, 2, 3)]
    h0 = 1 - 2 * th[0] * th[2] / (3 * th[1] ** 2)
    c = stats.norm.ppf(0.99)
    qlim = th[0] * (c * np.sqrt(2 * th[1] * h0**2) / th[0] + 1 + th[1] * h0 * (h0 - 1) / th[0] ** 2) ** (1 / h0)
    assert m.q_limit_ == pytest.approx(qlim)
    ct2, cq = m.contributions(X)
    assert np.allclose(ct2.sum(1), t2) and np.allclose(cq.sum(1), q)
    # a fault on variable 3 alone shows in its Q contribution
    x = X.mean(0, keepdims=True).copy()
    x[0, 3] += 8 * X[:, 3].std(ddof=1)
    _, cqx = m.contributions(x)
    assert int(np.argmax(cqx[0])) == 3 or int(np.argmax(m.contributions(x)[0][0])) == 3


def test_components_by_explained_variance():
    m = PcaMspc(explained_variance=0.7).fit(small())
    lam = m.eigenvalues_
    cum = np.cumsum(lam) / lam.sum()
    assert cum[m.a_ - 1] >= 0.7 and (m.a_ == 1 or cum[m.a_ - 2] < 0.7)


def test_detectors_match_sklearn():
    from sklearn.ensemble import IsolationForest
    from sklearn.neighbors import LocalOutlierFactor

    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    Xt = rng.normal(size=(50, 3)) * 2
    Zs = (X - X.mean(0)) / X.std(0, ddof=1)
    Zt = (Xt - X.mean(0)) / X.std(0, ddof=1)
    d, _ = make("isolation_forest", {"n_estimators": 50, "max_samples": 128})
    ref = IsolationForest(n_estimators=50, max_samples=128, random_state=0).fit(Zs)
    assert np.allclose(d.fit(X).score(Xt), -ref.score_samples(Zt))
    d, _ = make("lof", {"n_neighbors": 15})
    ref = LocalOutlierFactor(n_neighbors=15, novelty=True).fit(Zs)
    assert np.allclose(d.fit(X).score(Xt), -ref.score_samples(Zt))
    d, _ = make("robust_z", {})
    d.fit(X)
    med = np.median(X, 0)
    mad = 1.4826 * np.median(np.abs(X - med), 0)
    assert np.allclose(d.score(Xt), (np.abs(Xt - med) / mad).max(1))


def test_pointwise_and_event_metrics_by_hand():
    label = np.array([0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0], bool)
    alarm = np.array([1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1], bool)
    p = MET.pointwise(alarm, label)
    assert (p["tp"], p["fp"], p["fn"], p["tn"]) == (2, 4, 3, 3)
    assert p["precision"] == pytest.approx(2 / 6) and p["recall"] == pytest.approx(2 / 5)
    assert p["far"] == pytest.approx(4 / 7) and p["mar"] == pytest.approx(3 / 5)
    e = MET.event_level(alarm, label)
    # events [2,4] (detected, 1 row late) and [7,8] (missed); alarm spans [0], [3,5], [10,11]: one hits an event
    assert (e["events"], e["events_detected"], e["alarm_spans"], e["alarm_spans_true"]) == (2, 1, 3, 1)
    assert e["per_event"][0]["delay_rows"] == 1 and e["per_event"][1]["delay_rows"] is None


def test_windowed_features_never_look_ahead():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    f1 = window_features(df, ["a", "b"], [1, 3], [5])
    changed = df.copy()
    changed.loc[30:, :] += 100.0  # the future changes from row 30 on
    f2 = window_features(changed, ["a", "b"], [1, 3], [5])
    assert np.allclose(f1.iloc[:30].to_numpy(), f2.iloc[:30].to_numpy(), equal_nan=True)
    assert not np.allclose(f1.iloc[30].to_numpy(), f2.iloc[30].to_numpy(), equal_nan=True)
    # a slowly drifting signal's change over L rows (x[t] - x[t-L]) looks back only too: a change that used row t+1
    # would differ at row 29
    for L in (1, 4):
        d1 = window_features(df, ["a", "b"], [1], [5], drift=["b"], drift_rows=L)
        d2 = window_features(changed, ["a", "b"], [1], [5], drift=["b"], drift_rows=L)
        assert f"b__change{L}" in d1.columns
        assert np.allclose(d1.iloc[:30].to_numpy(), d2.iloc[:30].to_numpy(), equal_nan=True)
        assert d1[f"b__change{L}"].iloc[30] != d2[f"b__change{L}"].iloc[30]


def test_a_drifting_signal_enters_as_its_change_over_L_rows_only():
    """By hand: b's change over 2 rows, a's value and 3-row mean (mean only, as asked); b's level, lags and windows
    are left out; the warm-up is the longest of L and the windows; contributions go back to the signal."""
    from mitate_engine.task import EngineError
    from mitate_engine.timeseries.features import check_drift, check_stats, signal_of, warmup

    df = pd.DataFrame({"a": [1.0, 2, 4, 7, 11, 16], "b": [10.0, 10, 11, 13, 16, 20]})
    F = window_features(df, ["a", "b"], [], [3], stats=("mean",), drift=["b"], drift_rows=2)
    assert list(F.columns) == ["a", "a__mean3", "b__change2"]
    assert F["b__change2"].tolist()[2:] == [1.0, 3.0, 5.0, 7.0] and F["b__change2"].iloc[:2].isna().all()
    assert F["a__mean3"].tolist()[2:] == pytest.approx([7 / 3, 13 / 3, 22 / 3, 34 / 3])
    assert [signal_of(c) for c in F.columns] == ["a", "a", "b"]
    F1 = window_features(df, ["a", "b"], [1], [], drift=["b"], drift_rows=1)
    assert list(F1.columns) == ["a", "a__lag1", "b__change1"] and F1["b__change1"].tolist()[1:] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert warmup([], [3], 2) == 2 and warmup([], [3], 5) == 5 and warmup([1], [], 0) == 1
    assert check_drift(["a", "b", "c"], ["c", "a"], 3) == (["a", "c"], 3) and check_drift(["a"], [], None) == ([], 0)
    assert check_stats(None) == ("mean", "std", "min", "max") and check_stats(["max", "mean"]) == ("mean", "max")
    for bad, code in (
        ((["a"], ["z"], 3), "tsad_drift_not_signal"),
        ((["a"], ["a"], 0), "tsad_drift_rows"),
        ((["a"], ["a"], 2.5), "tsad_drift_rows"),
        ((["a"], ["a"], None), "tsad_drift_rows"),
    ):
        with pytest.raises(EngineError) as err:
            check_drift(*bad)
        assert err.value.code == code
    with pytest.raises(EngineError) as err:
        check_stats(["median"])
    assert err.value.code == "tsad_window_stat"


def _drifting(n=900, seed=5):
    """Two correlated fast signals and a temperature that wanders away after the first 300 rows (at the same speed as
    during them); a fault on the fast signals at rows 700-749."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    a = base + 0.2 * rng.normal(size=n)
    b = 0.8 * base + 0.2 * rng.normal(size=n)
    a[700:750] += 3.0
    b[700:750] -= 3.0
    temp = np.cumsum(0.05 + 0.05 * rng.normal(size=n)) + 20.0
    y = np.zeros(n, dtype=int)
    y[700:750] = 1
    return pd.DataFrame({"t": np.arange(n), "a": a, "b": b, "temp": temp, "y": y})


def test_drifting_signals_train_save_and_predict_alike(tmp_path):
    import pickle

    import joblib

    df = _drifting()
    df.to_parquet(tmp_path / "d.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a", "b", "temp"],
        "target": "y",
        "windows": [5],
        "window_stats": ["mean"],
        "drift_signals": ["temp"],
        "drift_rows": 30,
        "normal": {"mode": "rows", "rows": 300},
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_pca", "algorithm": "pca_mspc", "params": {"confidence": 0.995}}],
    }
    res, _ = run("tsad_train", spec)
    assert res["models"][0]["state"] == "done"
    series = pd.read_parquet(tmp_path / "o" / "1_pca" / "series.parquet")
    assert (series["split"].iloc[:30] == "warmup").all() and series["split"].iloc[30] == "train"
    assert series["score"].iloc[:30].isna().all() and series["score"].iloc[30:].notna().all()
    model = joblib.load(tmp_path / "o" / "1_pca" / "model.joblib")
    assert model.feature_columns == ["a", "a__mean5", "b", "b__mean5", "temp__change30"]
    assert model.drift_signals == ["temp"] and model.drift_rows == 30
    manifest = json.loads((tmp_path / "o" / "1_pca" / "manifest.json").read_text())
    assert manifest["time_features"]["drift_signals"] == ["temp"] and manifest["time_features"]["window_stats"] == ["mean"]
    report = json.loads((tmp_path / "o" / "1_pca" / "report.json").read_text())
    assert report["features_settings"] == {"lags": [], "windows": [5], "window_stats": ["mean"], "drift_signals": ["temp"], "drift_rows": 30, "warmup_rows": 30}
    # the saved model scores new data as training did, warm-up included, and names the original signals
    pred = model.predict(df)
    assert np.allclose(pred["anomaly_score"].to_numpy(), series["score"].to_numpy(), equal_nan=True)
    assert pred["anomaly_score"].iloc[:30].isna().all()
    assert {"contribution_a", "contribution_b", "contribution_temp"} <= set(pred.columns)
    alarm = pred["alarm"].to_numpy() > 0
    assert alarm[705:750].mean() > 0.9 and set(pred["top_signal"].iloc[705:750]) <= {"a", "b"}
    # the temperature has wandered far from the normal period, but its speed has not changed: few false alarms,
    # where its level would alarm almost everywhere
    assert alarm[300:700].mean() < 0.1 and alarm[750:].mean() < 0.1
    level, _ = run("tsad_train", {**spec, "drift_signals": [], "output_dir": str(tmp_path / "lv")})
    lv = pd.read_parquet(tmp_path / "lv" / "1_pca" / "series.parquet")
    assert (lv["score"].to_numpy()[300:700] > 1.0).mean() > 0.5
    # a model saved before these settings existed (no such attributes) still predicts as it was trained
    old = joblib.load(tmp_path / "lv" / "1_pca" / "model.joblib")
    for name in ("drift_signals", "drift_rows", "window_stats"):
        del old.__dict__[name]
    old = pickle.loads(pickle.dumps(old))
    assert np.allclose(old.predict(df)["anomaly_score"].to_numpy(), lv["score"].to_numpy(), equal_nan=True)
    for item in report["alarms"]:
        assert {c["signal"] for c in item["contributions"]} <= {"a", "b", "temp"}
    html_en = (tmp_path / "o" / "1_pca" / "report.en.html").read_text(encoding="utf-8")
    html_ja = (tmp_path / "o" / "1_pca" / "report.ja.html").read_text(encoding="utf-8")
    assert "Slowly drifting signals (temp) entered as their change over 30 rows" in html_en
    assert "ゆっくりドリフトする信号（temp）は水準ではなく30行の変化として使いました" in html_ja


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"drift_signals": ["nope"]}, "tsad_drift_not_signal"),
        ({"drift_rows": 0}, "tsad_drift_rows"),
        ({"drift_rows": 300}, "tsad_drift_rows_too_long"),
        ({"window_stats": ["median"]}, "tsad_window_stat"),
    ],
)
def test_bad_drift_settings_are_refused_before_anything_is_written(tmp_path, change, code):
    from mitate_engine.task import EngineError

    _drifting().to_parquet(tmp_path / "d.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a", "b", "temp"],
        "drift_signals": ["temp"],
        "drift_rows": 30,
        "normal": {"mode": "rows", "rows": 300},
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_pca", "algorithm": "pca_mspc"}],
        **change,
    }
    with pytest.raises(EngineError) as err:
        run("tsad_train", spec)
    assert err.value.code == code
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_a_supervised_training_part_eaten_by_the_warm_up_is_refused(tmp_path):
    """900 rows, 70 % for training (630), the change over 620 rows as warm-up: 10 rows would be left minus validation."""
    from mitate_engine.task import EngineError

    _drifting().to_parquet(tmp_path / "d.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_supervised",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a", "b", "temp"],
        "target": "y",
        "split_ratio": 0.7,
        "drift_signals": ["temp"],
        "drift_rows": 620,
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_lgbm", "algorithm": "random_forest"}],
    }
    with pytest.raises(EngineError) as err:
        run("tsad_train", spec)
    assert err.value.code == "tsad_train_too_short"
    assert err.value.params == {"count": 8, "warm": 620}
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def _tep(tmp_path, name):
    df = pd.read_csv(DATA / "tep_braatz_subset" / name)
    p = tmp_path / name.replace(".csv", ".parquet")
    df.to_parquet(p, index=False)
    return p, df


def _tep_spec(train, signals, out, models):
    """PCA-style training on TEP's normal run d00, ordered by its sample number, the first 500 rows normal."""
    return {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(train),
        "time_column": "sample",
        "features": signals,
        "target": None,
        "lags": [],
        "windows": [],
        "normal": {"mode": "rows", "rows": 500},
        "output_dir": str(out),
        "models": models,
    }


def run(kind, spec):
    from mitate_engine.task import get_task

    events = []
    return get_task(kind).run(spec, Context(events.append, work_dir=spec["output_dir"])), events


def test_tep_mspc_train_then_predict_alarms_after_onset(tmp_path):
    train, df = _tep(tmp_path, "d00.csv")
    test, _ = _tep(tmp_path, "d01_te.csv")
    signals = [c for c in df.columns if c.startswith("XM")]
    spec = _tep_spec(
        train,
        signals,
        tmp_path / "run",
        [
            {"key": "1_pca_mspc", "algorithm": "pca_mspc", "params": {"confidence": 0.99}},
            {"key": "2_isolation_forest", "algorithm": "isolation_forest", "params": {}},
        ],
    )
    res, events = run("tsad_train", spec)
    assert [m["state"] for m in res["models"]] == ["done", "done"]
    out, _ = run("predict", {"model": str(tmp_path / "run" / "1_pca_mspc" / "model.joblib"), "parquet": str(test), "output_dir": str(tmp_path / "pred")})
    pred = pd.read_parquet(tmp_path / "pred" / "predictions.parquet")
    alarm = pred["alarm"].to_numpy() > 0
    assert alarm[:160].mean() < 0.1 and alarm[170:].mean() > 0.95
    first_run = next(i for i in range(160, 960) if alarm[i : i + 5].all())
    assert 160 <= first_run < 180
    assert out["anomaly"]["alarms"] >= 1 and "contribution_XMEAS_1" in pred.columns
    # a saved threshold replaces the trained one
    out2, _ = run(
        "predict", {"model": str(tmp_path / "run" / "1_pca_mspc" / "model.joblib"), "parquet": str(test), "output_dir": str(tmp_path / "p2"), "threshold": 1e9}
    )
    assert out2["anomaly"]["alarm_rows"] == 0


def test_supervised_time_ordered_with_labels(tmp_path):
    p, df = _tep(tmp_path, "d01_te.csv")
    signals = [c for c in df.columns if c.startswith("XM")][:12]
    spec = {
        "project_type": "time_series_anomaly_detection_supervised",
        "parquet": str(p),
        "time_column": "sample",
        "features": signals,
        "target": "fault",
        "lags": [1],
        "windows": [5],
        "split_ratio": 0.6,
        "output_dir": str(tmp_path / "run"),
        "models": [
            {"key": "1_lightgbm", "algorithm": "lightgbm", "params": {"n_estimators": 50}},
            {"key": "2_logistic", "algorithm": "logistic", "params": {}},
        ],
    }
    res, _ = run("tsad_train", spec)
    assert all(m["state"] == "done" for m in res["models"])
    for m in res["models"]:
        assert m["metrics"]["recall"] > 0.8
    series = pd.read_parquet(tmp_path / "run" / "1_lightgbm" / "series.parquet")
    # time-ordered: every training row comes before every test row
    assert series.loc[series.split == "train", "pos"].max() < series.loc[series.split == "test", "pos"].min()


def test_bad_input(tmp_path):
    df = pd.DataFrame({"t": [1, 2, 2, 3], "a": [1.0, 2, 3, 4]})
    df.to_parquet(tmp_path / "d.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a"],
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_lof", "algorithm": "lof"}],
    }
    with pytest.raises(UserError, match="duplicate"):
        run("tsad_train", spec)
    df = pd.DataFrame({"t": range(100), "a": np.random.default_rng(0).normal(size=100), "y": 0})
    df.to_parquet(tmp_path / "e.parquet")
    spec.update(parquet=str(tmp_path / "e.parquet"), windows=[20], normal={"mode": "rows", "rows": 25})
    with pytest.raises(UserError, match="normal period"):
        run("tsad_train", spec)
    spec.update(project_type="time_series_anomaly_detection_supervised", target="y", windows=[], models=[{"key": "1_lightgbm", "algorithm": "lightgbm"}])
    with pytest.raises(UserError, match="single class"):
        run("tsad_train", spec)


def test_autoencoder_scores_the_fault_above_normal(tmp_path):
    d00 = pd.read_csv(DATA / "tep_braatz_subset" / "d00.csv")
    d01 = pd.read_csv(DATA / "tep_braatz_subset" / "d01_te.csv")
    cols = [c for c in d00.columns if c.startswith("XM")]
    det, _ = make("autoencoder", {"epochs": 30})
    det.fit(d00[cols].to_numpy(float))
    s = det.score(d01[cols].to_numpy(float))
    thr = det.threshold_from(det.score(d00[cols].to_numpy(float)))
    assert (s[:160] > thr).mean() < 0.2 and (s[200:] > thr).mean() > 0.9
    c = det.contributions(d01[cols].to_numpy(float))
    assert np.allclose(c.mean(axis=1), s)


def test_every_error_of_the_area_is_a_catalogued_code_in_both_languages(tmp_path):
    import re

    from mitate_engine.task import EngineError, messages

    src = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT_ENGINE / "mitate_engine" / "timeseries").glob("*.py"))
    src += (ROOT_ENGINE / "mitate_engine" / "tasks" / "tsad_train.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'(?:fail|EngineError)\(\s*"([a-z_]+)"', src))
    assert {"tsad_time_duplicates", "tsad_normal_too_short", "tsad_label_single_class", "no_models"} <= codes
    cat = messages()
    for code in codes:
        assert cat[code]["en"] and cat[code]["ja"], code
    assert not re.search(r"fail\(\s*['\"][A-Z]", src), "an English sentence passed to fail() instead of a code"
    df = pd.DataFrame({"t": [1, 2, 2, 3], "a": [1.0, 2, 3, 4]})
    df.to_parquet(tmp_path / "d.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a"],
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_lof", "algorithm": "lof"}],
    }
    with pytest.raises(EngineError) as err:
        run("tsad_train", spec)
    assert err.value.code == "tsad_time_duplicates"
    assert err.value.params == {"column": "t", "count": 1, "first": "2"}
    with pytest.raises(EngineError) as err:
        run("tsad_train", {**spec, "models": []})
    assert err.value.code == "no_models"
    df = pd.DataFrame({"t": range(200), "a": np.random.default_rng(0).normal(size=200), "b": np.random.default_rng(1).normal(size=200)})
    df.to_parquet(tmp_path / "ok.parquet")
    out, _ = run(
        "tsad_train",
        {
            **spec,
            "parquet": str(tmp_path / "ok.parquet"),
            "features": ["a", "b"],
            "normal": {"mode": "rows", "rows": 100},
            "models": [{"key": "1_lof", "algorithm": "lof", "params": {"n_neighbors": 0}}, {"key": "2_lof", "algorithm": "lof"}],
        },
    )
    failed = out["models"][0]
    assert failed["state"] == "failed" and json.loads(failed["error"])["code"] == "tsad_param_range"
    assert out["models"][1]["state"] == "done"


def test_random_forest_path_contributions_add_up_to_its_probability():
    from mitate_engine.timeseries.detectors import Supervised, forest_contributions

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = ((X[:, 2] > 1.0) | (X[:, 0] * X[:, 2] > 1.5)).astype(int)  # only columns 0 and 2 matter
    det = Supervised("random_forest", {"n_estimators": 30, "max_depth": 6}).fit(X, y)
    c = det.contributions(X)
    bias = np.mean([e.tree_.value[0, 0, 1] / e.tree_.value[0, 0].sum() for e in det.m.estimators_])
    assert np.allclose(c.sum(axis=1) + bias, det.score(X), atol=1e-9)
    top = np.abs(c[y == 1]).mean(axis=0)
    assert set(np.argsort(top)[-2:]) == {0, 2}
    assert forest_contributions(det.m, X[:1]).shape == (1, 4)


def test_an_irregular_series_is_resampled_in_training_and_prediction_alike(tmp_path):
    from mitate_engine.task import EngineError
    from mitate_engine.timeseries.model import resample

    rng = np.random.default_rng(0)
    # irregular: 1 to 3 rows per second, with a duplicate timestamp and a missing second
    secs = np.sort(np.concatenate([np.arange(300), rng.integers(0, 300, 200)]))
    secs = secs[secs != 150]
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(secs, unit="s")
    a = rng.normal(size=len(secs))
    a[secs >= 250] += 8  # a fault in the last 50 seconds
    df = pd.DataFrame({"t": t, "a": a, "b": rng.normal(size=len(secs)), "y": (secs >= 250).astype(int)})
    out, pos = resample(df, "t", "1s", ["a", "b"], "y")
    assert len(out) == 299 and out["t"].is_monotonic_increasing and not out["t"].duplicated().any()
    first = df[df["t"] == df["t"].iloc[0]]
    assert out["a"].iloc[0] == pytest.approx(first["a"].mean())
    assert (out["t"].iloc[pos].to_numpy() == df["t"].dt.floor("1s").to_numpy()).all()
    with pytest.raises(EngineError) as err:
        resample(df, "t", "1 fortnight", ["a"])
    assert err.value.code == "tsad_bad_resample"
    with pytest.raises(EngineError) as err:
        resample(df.assign(t=secs), "t", "1s", ["a"])
    assert err.value.code == "tsad_resample_needs_datetime"

    df.to_parquet(tmp_path / "irr.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "irr.parquet"),
        "time_column": "t",
        "features": ["a", "b"],
        "target": "y",
        "resample": "1s",
        "normal": {"mode": "rows", "rows": 200},
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_pca", "algorithm": "pca_mspc"}],
    }
    result, _ = run("tsad_train", spec)
    assert result["rows"] == 299 and any("Resampled" in n for n in result["notes"])
    import joblib

    model = joblib.load(tmp_path / "o" / "1_pca" / "model.joblib")
    assert model.resample_rule == "1s"
    pred = model.predict(df)
    assert len(pred) == len(df) and (pred.index == df.index).all()
    assert pred["alarm"][df["y"] == 1].mean() > 0.9
    # rows of the same second share their period's score
    same = df["t"].dt.floor("1s")
    assert pred.groupby(same.to_numpy())["anomaly_score"].nunique().max() == 1


def test_a_normal_period_given_as_a_datetime_range(tmp_path):
    rng = np.random.default_rng(0)
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(300), unit="s")
    df = pd.DataFrame({"t": t, "a": rng.normal(size=300), "b": rng.normal(size=300)})
    df.to_parquet(tmp_path / "r.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "r.parquet"),
        "time_column": "t",
        "features": ["a", "b"],
        "windows": [5],
        "normal": {"mode": "range", "start": "2024-01-01 00:00:00", "end": "2024-01-01 00:01:39"},
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_pca", "algorithm": "pca_mspc"}],
    }
    result, _ = run("tsad_train", spec)
    assert result["models"][0]["state"] == "done", result["models"][0].get("error")
    series = pd.read_parquet(tmp_path / "o" / "1_pca" / "series.parquet")
    # the first 4 rows are the 5-row window's warm-up; of the 96 others the last 29 (30 %) are held back
    assert (series["split"] == "train").sum() == 67 and (series["split"] == "validation").sum() == 29
    assert series["split"].iloc[4:71].eq("train").all() and series["split"].iloc[71:100].eq("validation").all()


def test_mspc_score_from_its_contributions_equals_its_score():
    X = small()
    det, _ = make("pca_mspc", {"n_components": 2})
    det.fit(X[:30])
    s, c = det.score_and_contributions(X)
    assert np.allclose(s, det.score(X)) and np.allclose(c, det.contributions(X))


def _seq_series(n=420, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    base = np.sin(t / 6.0)
    return np.column_stack([base + 0.05 * rng.normal(size=n), 0.5 * base + 0.05 * rng.normal(size=n), np.cos(t / 6.0) + 0.05 * rng.normal(size=n)])


def test_sequence_autoencoder_never_looks_ahead_and_is_reproducible():
    X = _seq_series()
    p = {"window": 20, "epochs": 8, "filters": 8}
    a, _ = make("sequence_autoencoder", p)
    a.fit(X[:300])
    b, _ = make("sequence_autoencoder", p)
    b.fit(X[:300])
    sa, sb = a.score(X), b.score(X)
    assert np.array_equal(np.isnan(sa), np.isnan(sb)) and np.allclose(sa, sb, equal_nan=True)  # seeded
    assert np.isnan(sa[:19]).all() and not np.isnan(sa[19:]).any()  # a score from the first full window on
    # changing rows after t never changes the score at t
    Y = X.copy()
    Y[350:] += 5.0
    sy = a.score(Y)
    assert np.allclose(sy[:350], sa[:350], equal_nan=True)
    assert (sy[350:] > sa[350:]).all()
    # the score is the sum of the per-column errors of the window ending at t
    s, c = a.score_and_contributions(X)
    assert np.allclose(c[19:].sum(axis=1), s[19:])
    V = a.std(X[100:120])
    import torch

    with torch.no_grad():
        rec = a._out(torch.tensor(V.T[None], dtype=torch.float32)).numpy()[0].T
    assert np.allclose(np.abs(rec - V).mean(axis=0), c[119], atol=1e-5)


def test_sequence_autoencoder_threshold_persistence_and_fault():
    X = _seq_series(600)
    X[450:, 2] += 4.0  # a fault on the third signal from row 450
    det, p = make("sequence_autoencoder", {"window": 20, "epochs": 15, "filters": 8, "quantile": 0.99, "factor": 1.5, "persistence": 5})
    det.fit(X[:300])
    raw = det.contributions(X).sum(axis=1)
    s = det.score(X)
    held = s[300:400]  # normal rows the network was not trained on
    thr = det.threshold_from(held)
    assert thr == pytest.approx(np.sort(held)[int(np.ceil(101 * 0.99)) - 1] * 1.5)
    # persistence: an alarm at t exactly when the last 5 windows are all over the line
    want = np.array([i >= 23 and bool((raw[i - 4 : i + 1] > thr).all()) for i in range(len(X))])
    assert np.array_equal(np.nan_to_num(s, nan=-np.inf) > thr, want)
    assert (s[300:440] > thr).mean() < 0.05 and (s[480:] > thr).mean() > 0.9
    assert int(np.argmax(np.nanmean(det.contributions(X)[480:], axis=0))) == 2
    assert det.info()["persistence"] == 5 and det.info()["epochs_run"] >= 1


def test_sequence_autoencoder_stops_when_the_job_is_cancelled_and_refuses_a_short_normal_period():
    from mitate_engine.task import Cancelled

    calls = []

    def check():
        calls.append(1)
        if len(calls) == 3:
            raise Cancelled("cancelled")

    det, _ = make("sequence_autoencoder", {"window": 20, "epochs": 50, "patience": 50, "filters": 8}, check=check)
    with pytest.raises(Cancelled):
        det.fit(_seq_series())
    assert len(calls) == 3 and det.epochs_run_ == 2
    det, _ = make("sequence_autoencoder", {"window": 60})
    with pytest.raises(UserError) as e:
        det.fit(_seq_series(65))
    assert e.value.code == "tsad_window_longer_than_normal"


def test_sequence_autoencoder_through_training_and_prediction(tmp_path):
    import joblib

    X = _seq_series(500)
    X[420:, 0] += 2.0
    df = pd.DataFrame({"t": np.arange(500), "a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": (np.arange(500) >= 420).astype(int)})
    df.to_parquet(tmp_path / "s.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "s.parquet"),
        "time_column": "t",
        "features": ["a", "b", "c"],
        "target": "y",
        "normal": {"mode": "rows", "rows": 300},
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_seq", "algorithm": "sequence_autoencoder", "params": {"window": 20, "epochs": 10, "filters": 8}}],
    }
    result, _ = run("tsad_train", spec)
    assert result["models"][0]["state"] == "done", result["models"][0].get("error")
    model = joblib.load(tmp_path / "o" / "1_seq" / "model.joblib")  # saved without the job's cancel check
    out = model.predict(df.drop(columns=["y"]))
    assert out["anomaly_score"].iloc[:19].isna().all()
    assert out["alarm"].iloc[440:].mean() > 0.75 and out["alarm"].iloc[300:400].mean() < 0.1
    assert (out["top_signal"].iloc[440:] == "a").mean() > 0.9
    report = json.loads((tmp_path / "o" / "1_seq" / "report.json").read_text())
    assert report["detector"]["window"] == 20 and report["threshold"] > 0


def test_detector_and_parameter_names_come_from_message_keys_in_both_languages():
    """The catalogue holds message keys only (no English text); every key has en and ja, and a range error names the
    detector and the parameter through them."""
    from mitate_engine.task import EngineError, messages
    from mitate_engine.timeseries.detectors import CATALOGUE, params_of

    cat = messages()
    for mode in CATALOGUE.values():
        for a in mode:
            assert "label" not in a and all("help" not in p for p in a["params"]), a["key"]
            keys = [a["name_key"], *(p["label_key"] for p in a["params"]), *(p["help_key"] for p in a["params"] if "help_key" in p)]
            for k in keys:
                assert cat[k]["en"].strip() and cat[k]["ja"].strip(), k
                assert cat[k]["en"] != cat[k]["ja"], k  # a Japanese text, not the English copied
    assert cat["tsad_detector_pca_mspc"]["ja"].startswith("PCA-MSPC（ホテリングのT²")
    with pytest.raises(EngineError) as err:
        params_of("pca_mspc", {"confidence": 0.5})
    assert err.value.code == "tsad_param_range"
    assert err.value.params["label"]["code"] == "tsad_detector_pca_mspc"
    assert err.value.params["param"]["code"] == "tsad_param_pca_mspc_confidence"
    assert str(err.value).startswith('PCA-MSPC (Hotelling\'s T² and Q statistic / SPE): "Confidence of the control limits"')


def test_alarm_rule_k_of_the_last_n_rows_is_one_causal_score():
    """The k-of-n alarm rule as a score: over a threshold exactly when at least k of the last n rows are, never
    changed by later rows; a detector wrapped by it keeps its threshold, contributions and pickles."""
    import pickle

    from mitate_engine.task import EngineError
    from mitate_engine.timeseries.detectors import AlarmRule, k_of_n

    rng = np.random.default_rng(3)
    s = rng.normal(size=300)
    s[:4] = np.nan  # a warm-up without scores
    for k, n in ((1, 1), (1, 5), (3, 5), (5, 5), (8, 10)):
        f = k_of_n(s, k, n)
        for thr in (-0.5, 0.0, 0.7):
            over = np.nan_to_num(s, nan=-np.inf) > thr
            count = np.array([over[max(0, t - n + 1) : t + 1].sum() for t in range(len(s))])
            assert np.array_equal(np.nan_to_num(f, nan=-np.inf) > thr, count >= k), (k, n, thr)
        # causal: row t's value does not change when the rows after it do
        t2 = s.copy()
        t2[150:] = 99.0
        assert np.allclose(k_of_n(t2, k, n)[:150], f[:150], equal_nan=True)
    X = rng.normal(size=(500, 4))
    X[:, 1] += X[:, 0]
    det, p = make("pca_mspc", {"alarm_k": 3, "alarm_n": 5})
    assert isinstance(det, AlarmRule) and p["alarm_k"] == 3
    det.fit(X[:400])
    plain, _ = make("pca_mspc", {})
    plain.fit(X[:400])
    # the threshold is read on held-back rows through the rule: the 99 % split-conformal quantile of their k-of-n score
    held = det.score(X)[400:]
    assert det.threshold_from(held) == np.sort(held)[int(np.ceil(101 * 0.99)) - 1]
    score, c = det.score_and_contributions(X)
    assert np.allclose(score, k_of_n(plain.score(X), 3, 5), equal_nan=True)
    assert c.shape == (500, 4) and np.allclose(c, plain.contributions(X))
    again = pickle.loads(pickle.dumps(det))
    assert np.allclose(again.score(X), score, equal_nan=True) and again.info()["components"] == det.info()["components"]
    iso, _ = make("isolation_forest", {"alarm_k": 2, "alarm_n": 4, "n_estimators": 20})
    iso.fit(X[:400])
    assert not hasattr(iso, "contributions") and iso.score_and_contributions(X)[1] is None
    with pytest.raises(EngineError) as err:
        make("lof", {"alarm_k": 6, "alarm_n": 5})
    assert err.value.code == "tsad_alarm_rule" and err.value.params["label"]["code"] == "tsad_detector_lof"


def test_alarm_rule_trains_saves_and_predicts_as_k_of_the_last_n_alarms(tmp_path):
    """Trained and predicted through the tasks: a PCA-MSPC with the rule '3 of the last 5 rows' alarms exactly where
    at least 3 of the last 5 rows of the same detector without the rule are over the rule's own threshold (the two
    share their fit; each sets its threshold on the held-back rows read through its rule), on new data."""
    train, df = _tep(tmp_path, "d00.csv")
    test, _ = _tep(tmp_path, "d01_te.csv")
    signals = [c for c in df.columns if c.startswith("XM")]
    spec = _tep_spec(
        train,
        signals,
        tmp_path / "run",
        [
            {"key": "1_pca_mspc", "algorithm": "pca_mspc", "params": {}},
            {"key": "2_pca_mspc", "algorithm": "pca_mspc", "params": {"alarm_k": 3, "alarm_n": 5}},
        ],
    )
    res, _ = run("tsad_train", spec)
    assert [m["state"] for m in res["models"]] == ["done", "done"]
    assert res["models"][1]["hyperparameters"]["alarm_n"] == 5
    out = []
    for key in ("1_pca_mspc", "2_pca_mspc"):
        run("predict", {"model": str(tmp_path / "run" / key / "model.joblib"), "parquet": str(test), "output_dir": str(tmp_path / key)})
        out.append(pd.read_parquet(tmp_path / key / "predictions.parquet"))
    rule_thr = joblib.load(tmp_path / "run" / "2_pca_mspc" / "model.joblib").threshold
    plain = out[0]["anomaly_score"].to_numpy() > rule_thr
    rule = out[1]["alarm"].to_numpy() > 0
    expected = pd.Series(plain.astype(float)).rolling(5, min_periods=1).sum().to_numpy() >= 3
    assert np.array_equal(rule, expected)
    assert rule[:160].sum() <= plain[:160].sum() and rule[170:].mean() > 0.95


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_log_lines_notes_and_html_report_are_in_the_language_of_the_job(tmp_path, lang):
    """The server queues the job with the language of the person who started it: the log lines, the notes and
    report.html say the detector, its parameters and every word in it; report.en.html and report.ja.html are both
    written for whoever downloads the report later."""
    import html

    from mitate_engine.task import messages

    cat = messages()
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"t": range(200), "a": rng.normal(size=200), "b": rng.normal(size=200)})
    df.loc[150:, "a"] += 8  # a fault after the normal period
    df.iloc[::-1].to_parquet(tmp_path / "d.parquet")  # not in time order: the engine sorts it and says so
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "project_name": "rig",
        "parquet": str(tmp_path / "d.parquet"),
        "time_column": "t",
        "features": ["a", "b"],
        "normal": {"mode": "rows", "rows": 100},
        "output_dir": str(tmp_path / "o"),
        "lang": lang,
        "models": [
            {"key": "1_pca_mspc", "algorithm": "pca_mspc", "params": {"confidence": 0.99}},
            {"key": "2_lof", "algorithm": "lof", "params": {"n_neighbors": 0}},
        ],
    }
    out, events = run("tsad_train", spec)
    assert [m["state"] for m in out["models"]] == ["done", "failed"]
    other = "ja" if lang == "en" else "en"
    said = lambda code: cat[code][lang]  # noqa: E731
    logs = [e["line"] for e in events if e.get("type") == "log"]
    assert said("tsad_note_sorted") in logs and out["notes"] == [said("tsad_note_sorted")]
    assert said("tsad_job_rows").format(rows=200, columns=2, train=70, held=30) in logs
    failed = next(line for line in logs if line.startswith(said("tsad_detector_lof")))
    assert cat["tsad_param_lof_n_neighbors"][lang] in failed and cat["tsad_param_lof_n_neighbors"][other] not in failed
    if lang == "ja":
        assert "の学習に失敗しました" in failed and "failed" not in failed

    mdir = tmp_path / "o" / "1_pca_mspc"
    page = (mdir / "report.html").read_text(encoding="utf-8")
    assert page == (mdir / f"report.{lang}.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}">' in page
    name = html.escape(cat["tsad_detector_pca_mspc"][lang])
    assert f"<h1>rig: {name}</h1>" in page
    for code in (
        "tsad_param_pca_mspc_confidence",
        "tsad_param_pca_mspc_explained_variance",
        "tsad_info_explained_variance",
        "tsad_info_t2_limit",
        "tsad_report_far",
        "tsad_report_detector",
        "tsad_note_sorted",
        "tsad_part_test",
    ):
        assert html.escape(cat[code][lang]) in page, code
        assert html.escape(cat[code][other]) not in page, code
    assert html.escape(cat["tsad_detector_pca_mspc"][other]) not in page
    # the other language's file says the same report in its own words
    page2 = (mdir / f"report.{other}.html").read_text(encoding="utf-8")
    assert f"<h1>rig: {html.escape(cat['tsad_detector_pca_mspc'][other])}</h1>" in page2 and html.escape(cat["tsad_note_sorted"][other]) in page2
    if lang == "ja":
        assert "PCA-MSPC（ホテリングのT²" in page and "Threshold" not in page and "Detector" not in page
    else:
        assert "PCA-MSPC (Hotelling&#x27;s T²" in page and "しきい値" not in page


def test_every_message_the_area_says_is_in_the_catalogue_in_both_languages():
    import re

    from mitate_engine.task import messages
    from mitate_engine.timeseries.report_html import INFO_KEYS

    src = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT_ENGINE / "mitate_engine" / "timeseries").glob("*.py"))
    src += (ROOT_ENGINE / "mitate_engine" / "tasks" / "tsad_train.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'\b(?:say|t)\(\s*"([a-z_0-9]+)"', src)) | set(re.findall(r'\(\s*"(tsad_(?:report|note)_[a-z_0-9]+)"', src))
    codes |= {f"tsad_info_{k}" for k in INFO_KEYS} | {f"tsad_part_{p}" for p in ("warmup", "train", "validation", "test")}
    assert {"tsad_job_training", "tsad_report_far", "tsad_note_resampled", "tsad_report_intro"} <= codes
    cat = messages()
    for code in codes:
        assert cat[code]["en"].strip() and cat[code]["ja"].strip(), code
        assert set(re.findall(r"\{(\w+)\}", cat[code]["en"])) == set(re.findall(r"\{(\w+)\}", cat[code]["ja"])), code


# ---- issue 30: limits that hold on new data, honest headline figures -----------------------------------------------


def test_parallel_analysis_keeps_the_real_factors_where_a_variance_share_keeps_noise():
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(400, 3)) @ (2 * rng.normal(size=(3, 30))) + rng.normal(size=(400, 30))
        pa, share = PcaMspc().fit(X), PcaMspc(explained_variance=0.9).fit(X)
        assert pa.a_ == 3 and pa.rule_ == "parallel_analysis"
        assert share.a_ > 3 and share.rule_ == "explained_variance"
    assert PcaMspc(n_components=2).fit(X).rule_ == "fixed"


def test_held_back_quantile_is_the_split_conformal_one():
    from mitate_engine.timeseries.detectors import held_back_quantile

    s = np.arange(1, 101, dtype=float)  # 1..100
    assert held_back_quantile(s, 0.99) == 100.0  # ceil(101 * 0.99) = 100th smallest
    assert held_back_quantile(s, 0.9) == 91.0  # ceil(90.9) = 91st
    assert held_back_quantile(np.array([np.nan, 2.0, 1.0]), 0.5) == 2.0  # NaN (warm-up) left out; ceil(4 * 0.5) = 2nd
    assert held_back_quantile(np.array([np.nan]), 0.99) == np.inf


def test_limits_set_on_held_back_rows_hold_on_new_data_where_the_textbook_limits_do_not():
    """Heavy-tailed normal operation (Student t, 3 degrees of freedom): the textbook T²/Q limits assume normal rows and
    alarm on about 5 % of new normal rows at a nominal 1 %; limits read on held-back rows stay near 1 %."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        L = rng.normal(size=(2, 6))
        X = rng.standard_t(3, size=(22000, 2)) @ L + 0.5 * rng.standard_t(3, size=(22000, 6))
        det, _ = make("pca_mspc", {})
        det.fit(X[:1400])
        thr = det.threshold_from(det.score(X[1400:2000]))
        new = det.score(X[2000:])
        assert (new > 1.0).mean() > 0.03  # the textbook limits
        assert (new > thr).mean() < 0.015


def _normal_only(tmp_path, n=400, models=None, label=True):
    rng = np.random.default_rng(3)
    a = rng.normal(size=n)
    df = pd.DataFrame({"t": np.arange(n), "a": a, "b": 0.8 * a + 0.3 * rng.normal(size=n), "c": rng.normal(size=n)})
    if label:
        df["y"] = 0
    df.to_parquet(tmp_path / "n.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "n.parquet"),
        "time_column": "t",
        "features": ["a", "b", "c"],
        "target": "y" if label else None,
        "normal": {"mode": "rows", "rows": n},
        "output_dir": str(tmp_path / "o"),
        "models": models
        or [{"key": "1_pca_mspc", "algorithm": "pca_mspc"}, {"key": "2_isolation_forest", "algorithm": "isolation_forest", "params": {"n_estimators": 30}}],
    }
    return run("tsad_train", spec)[0]


def test_a_normal_only_series_is_fitted_on_its_first_part_and_judged_on_its_held_back_part(tmp_path):
    from mitate_engine.timeseries.detectors import held_back_quantile

    res = _normal_only(tmp_path)
    for m in res["models"]:
        assert m["state"] == "done", m.get("error")
        series = pd.read_parquet(tmp_path / "o" / m["key"] / "series.parquet")
        assert (series["split"].iloc[:280] == "train").all() and (series["split"].iloc[280:] == "validation").all()
        held = series["score"].to_numpy()[280:]
        level = 0.99  # both detectors' defaults: confidence 0.99, percentile 99
        mt = m["metrics"]
        assert mt["threshold"] == pytest.approx(held_back_quantile(held, level))
        # the first false-alarm figure is the held-back one, said so; the in-sample one is there, named as such
        assert mt["heldout_far"] == pytest.approx((held > mt["threshold"]).mean())  # on the rows it was set on
        # the headline is cross-checked: the threshold set on each time-ordered half, counted on the other
        a, b = held[:60], held[60:]
        by_hand = ((b > held_back_quantile(a, level)).mean() + (a > held_back_quantile(b, level)).mean()) / 2
        assert mt["far_basis"] == "held_back_normal" and mt["far"] == pytest.approx(by_hand)
        assert mt["train_alarm_rate"] is not None
        # no anomalous label: F1 and event F1 cannot be computed, so null (not 0)
        assert mt["f1"] is None and mt["event_f1"] is None and mt["recall"] is None
        report = json.loads((tmp_path / "o" / m["key"] / "report.json").read_text())
        assert report["metrics"]["evaluated_part"] == "validation" and report["metrics"]["evaluated_rows"] == 120
        assert report["metrics"]["pointwise"]["f1"] is None and report["metrics"]["event"]["f1"] is None
    info = json.loads((tmp_path / "o" / "1_pca_mspc" / "report.json").read_text())["detector"]
    assert info["components_rule"] == "parallel_analysis"


def test_without_labels_the_headline_is_the_held_back_false_alarm_rate(tmp_path):
    res = _normal_only(tmp_path, label=False, models=[{"key": "1_pca_mspc", "algorithm": "pca_mspc"}])
    mt = res["models"][0]["metrics"]
    assert mt["far_basis"] == "held_back_normal" and mt["far"] is not None and mt["f1"] is None


def test_a_normal_period_too_short_to_hold_back_a_block_is_refused(tmp_path):
    df = pd.DataFrame({"t": range(200), "a": np.random.default_rng(0).normal(size=200), "b": np.random.default_rng(1).normal(size=200)})
    df.to_parquet(tmp_path / "s.parquet")
    spec = {
        "project_type": "time_series_anomaly_detection_unsupervised",
        "parquet": str(tmp_path / "s.parquet"),
        "time_column": "t",
        "features": ["a", "b"],
        "normal": {"mode": "rows", "rows": 20},  # 14 to fit, 6 held back: too few to set a threshold on; 32 needed
        "output_dir": str(tmp_path / "o"),
        "models": [{"key": "1_pca_mspc", "algorithm": "pca_mspc"}],
    }
    with pytest.raises(UserError) as e:
        run("tsad_train", spec)
    assert e.value.code == "tsad_normal_too_short" and e.value.params["needed"] == 32


def test_f1_and_event_f1_are_null_without_an_anomalous_label_and_0_when_one_is_missed():
    alarm = np.array([0, 1, 0, 0], bool)
    none = MET.pointwise(alarm, np.zeros(4, bool))
    assert none["f1"] is None and none["recall"] is None and none["far"] == 0.25
    assert MET.event_level(alarm, np.zeros(4, bool))["f1"] is None
    missed = np.array([0, 0, 0, 1], bool)
    assert MET.pointwise(alarm, missed)["f1"] == 0.0 and MET.event_level(alarm, missed)["f1"] == 0.0


@pytest.mark.parametrize(
    "algorithm,params,level",
    [
        ("pca_mspc", {"confidence": 0.95}, 0.95),
        ("isolation_forest", {"n_estimators": 20, "percentile": 97}, 0.97),
        ("lof", {"percentile": 99}, 0.99),
        ("ocsvm", {"percentile": 98}, 0.98),
        ("robust_z", {"percentile": 99}, 0.99),
        ("autoencoder", {"epochs": 3, "percentile": 99}, 0.99),
        ("sequence_autoencoder", {"window": 12, "epochs": 2, "filters": 4, "quantile": 0.99, "factor": 1.2}, 0.99),
    ],
)
def test_every_unsupervised_detector_takes_its_threshold_from_the_held_back_normal_rows(tmp_path, algorithm, params, level):
    from mitate_engine.timeseries.detectors import UNSUPERVISED, held_back_quantile

    assert algorithm in UNSUPERVISED
    res = _normal_only(tmp_path, models=[{"key": "m", "algorithm": algorithm, "params": params}])
    m = res["models"][0]
    assert m["state"] == "done", m.get("error")
    series = pd.read_parquet(tmp_path / "o" / "m" / "series.parquet")
    held = series.loc[series["split"] == "validation", "score"].to_numpy()
    factor = params.get("factor", 1.0)
    assert len(held) == 120 and m["metrics"]["threshold"] == pytest.approx(held_back_quantile(held, level) * factor)
    assert m["metrics"]["far_basis"] == "held_back_normal"
