"""Issue 15: a downloaded model zip is self-contained. In a fresh Python process (the venv's packages and the unzipped
folder, nothing else on the path) the manifest's two `load` lines on the raw CSV give exactly the prediction job's
output on the same raw rows, for every tabular type; a scaled target comes back in its original units."""

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.preprocessing.condition import Condition
from mitate_engine.task import Context, get_task


def quiet(*a, **k):
    return None


def fair() -> pd.DataFrame:
    import statsmodels.api as sm

    return sm.datasets.fair.load_pandas().data


def condition_of(raw: pd.DataFrame, steps: list[dict], tmp_path, datetime_column=None) -> tuple[pd.DataFrame, str]:
    """Fits a preprocessing condition on raw rows as the preprocessing area does; returns (prepared rows, condition.json)."""
    cond = Condition(steps, datetime_column, "cond")
    prepared = cond.fit_transform(raw).reset_index(drop=True)
    path = tmp_path / "condition.json"
    path.write_text(json.dumps(cond.to_dict()))
    return prepared, str(path)


def api_predictions(model_dir, raw: pd.DataFrame, condition_path: str, tmp_path) -> pd.DataFrame:
    raw.to_parquet(tmp_path / "raw.parquet", index=False)
    out = tmp_path / "api"
    get_task("predict").run(
        {"model": str(model_dir / "model.joblib"), "parquet": str(tmp_path / "raw.parquet"), "condition_path": condition_path, "output_dir": str(out)},
        Context(lambda e: None, out),
    )
    return pd.read_parquet(out / "predictions.parquet")


def zip_predictions(model_dir, raw: pd.DataFrame, tmp_path) -> pd.DataFrame:
    """The manifest's two lines, run by a new interpreter in a folder holding only the unzipped model and raw.csv."""
    work = tmp_path / "user"
    (work / "model").mkdir(parents=True)
    with zipfile.ZipFile(model_dir / "model.zip") as z:
        z.extractall(work / "model")
        lines = json.loads(z.read("manifest.json"))["load"]
    raw.to_csv(work / "raw.csv", index=False)
    code = "\n".join([*lines, "predictions.to_csv('out.csv', index=False)"])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    r = subprocess.run([sys.executable, "-I", "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return pd.read_csv(work / "out.csv")


def assert_same(api: pd.DataFrame, mine: pd.DataFrame) -> None:
    for c in mine.columns:
        a, b = api[c], mine[c]
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            assert np.allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-9, atol=1e-9, equal_nan=True), c
        else:
            assert a.astype(str).tolist() == b.astype(str).tolist(), c


def test_zip_has_no_access_to_the_repository_engine(tmp_path):
    """-I (isolated mode) leaves the working folder and PYTHONPATH off sys.path, so the import must come from the zip."""
    r = subprocess.run([sys.executable, "-I", "-c", "import mitate_engine"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0


def test_regression_with_a_scaled_target_predicts_in_original_units(tmp_path):
    raw = fair()
    feats = [c for c in raw.columns if c != "affairs"]
    prepared, cpath = condition_of(
        raw,
        [
            {"process_type": "outliers", "method": "zscore", "columns": ["age"], "params": {"threshold": 3, "action": "clip"}},
            {"process_type": "scaling", "method": "standard", "columns": [*feats, "affairs"], "params": {}},
        ],
        tmp_path,
    )
    proj = prepare_project({"project_type": "regression", "target": "affairs", "features": feats, "cv_folds": 2, "condition_path": cpath}, prepared)
    train_model(proj, "ridge", {}, tmp_path / "m", quiet, quiet, quiet)
    new = raw[feats].head(400)  # raw rows without the target
    api = api_predictions(tmp_path / "m", new, cpath, tmp_path)
    # in the target's own units (sm_fair: mean 0.705), not the scaled ones (mean about 0), beside the uploaded values
    assert 0.4 < api["predicted_affairs"].mean() < 1.0
    assert api["age"].tolist() == new["age"].tolist()
    assert_same(api, zip_predictions(tmp_path / "m", new, tmp_path))


def test_discriminant_analysis_zip(tmp_path):
    from sklearn.datasets import load_wine

    raw = load_wine(as_frame=True).frame
    raw["target"] = raw["target"].map({0: "a", 1: "b", 2: "c"})
    feats = [c for c in raw.columns if c != "target"][:6]
    prepared, cpath = condition_of(raw, [{"process_type": "scaling", "method": "robust", "columns": feats, "params": {}}], tmp_path)
    proj = prepare_project({"project_type": "discriminant_analysis", "target": "target", "features": feats, "cv_folds": 2, "condition_path": cpath}, prepared)
    train_model(proj, "random_forest", {"n_estimators": 30}, tmp_path / "m", quiet, quiet, quiet)
    new = raw[feats]
    api = api_predictions(tmp_path / "m", new, cpath, tmp_path)
    assert (api["predicted_target"] == raw["target"]).mean() > 0.9
    assert_same(api, zip_predictions(tmp_path / "m", new, tmp_path))


def test_soft_sensor_zip_carries_its_lags_and_windows(tmp_path):
    rng = np.random.default_rng(1)
    n = 400
    t = pd.date_range("2024-01-01", periods=n, freq="min")
    x = np.cumsum(rng.normal(0, 1, n))
    raw = pd.DataFrame({"time": t, "x": x, "z": rng.normal(0, 1, n)})
    raw["y"] = 2 * pd.Series(x).shift(2).fillna(0) + rng.normal(0, 0.1, n)
    prepared, cpath = condition_of(raw, [{"process_type": "scaling", "method": "minmax", "columns": ["x", "z", "y"], "params": {}}], tmp_path, "time")
    proj = prepare_project(
        {
            "project_type": "soft_sensor",
            "target": "y",
            "features": ["x", "z"],
            "datetime_column": "time",
            "lags": [1, 2],
            "windows": [3],
            "cv_folds": 2,
            "condition_path": cpath,
        },
        prepared,
    )
    train_model(proj, "pls", {}, tmp_path / "m", quiet, quiet, quiet)
    new = raw[["time", "x", "z"]].tail(120).reset_index(drop=True)
    new["time"] = new["time"].astype(str)  # as a CSV carries it
    api = api_predictions(tmp_path / "m", new, cpath, tmp_path)
    assert api["predicted_y"].isna().sum() == 2  # the warm-up rows of lag 2 / window 3
    ok = api["predicted_y"].notna()
    assert np.corrcoef(api["predicted_y"][ok], raw["y"].tail(120).reset_index(drop=True)[ok])[0, 1] > 0.9
    assert_same(api, zip_predictions(tmp_path / "m", new, tmp_path))


@pytest.mark.parametrize("kind,algorithm", [("clustering", "kmeans"), ("clustering", "hierarchical"), ("dimensional_compression", "pca")])
def test_unsupervised_zip(kind, algorithm, tmp_path):
    raw = fair()
    feats = ["rate_marriage", "age", "yrs_married", "children"]
    prepared, cpath = condition_of(raw, [{"process_type": "scaling", "method": "standard", "columns": feats, "params": {}}], tmp_path)
    proj = prepare_project({"project_type": kind, "features": feats, "condition_path": cpath}, prepared.head(1500))
    train_model(proj, algorithm, {}, tmp_path / "m", quiet, quiet, quiet)
    new = raw[feats].iloc[2000:2300].reset_index(drop=True)
    api = api_predictions(tmp_path / "m", new, cpath, tmp_path)
    assert_same(api, zip_predictions(tmp_path / "m", new, tmp_path))


def test_report_metrics_of_a_scaled_target_are_in_its_original_units(tmp_path):
    """Issue 15: ridge is equivariant under an affine change of the target, so a run whose condition standardises the
    target must report the same RMSE/MAE/MAPE and charts as a run on the target as it is; the report says it scaled."""
    raw = fair()
    feats = [c for c in raw.columns if c != "affairs"]
    reports = {}
    for name, cols in (("scaled", [*feats, "affairs"]), ("plain", feats)):
        (tmp_path / name).mkdir()
        prepared, cpath = condition_of(raw, [{"process_type": "scaling", "method": "standard", "columns": cols, "params": {}}], tmp_path / name)
        proj = prepare_project({"project_type": "regression", "target": "affairs", "features": feats, "cv_folds": 2, "condition_path": cpath}, prepared)
        reports[name] = train_model(proj, "ridge", {"alpha": 1.0}, tmp_path / name / "m", quiet, quiet, quiet)
    scaled, plain = reports["scaled"], reports["plain"]
    assert scaled["target_units"] == {"scaled": True, "target": "affairs", "method": "standard"}
    assert plain["target_units"]["scaled"] is False
    for k in ("rmse", "mae", "r2"):
        assert scaled["metrics"][k] == pytest.approx(plain["metrics"][k], rel=1e-6), k
        assert scaled["train_metrics"][k] == pytest.approx(plain["train_metrics"][k], rel=1e-6), k
    # in the scaled units the RMSE would be about RMSE / σ(affairs) ≈ RMSE / 2.2
    assert scaled["metrics"]["rmse"] > 1.5
    pva = scaled["charts"]["predicted_vs_actual"]
    assert np.allclose(pva["actual"], plain["charts"]["predicted_vs_actual"]["actual"])
    assert 0.4 < float(np.mean(pva["actual"])) < 1.0
