"""Training and prediction on tables: each algorithm family against scikit-learn references on bundled and shared data."""

import json
import zipfile
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml import catalogue as cat
from mitate_engine.ml.algorithms import REGISTRY
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.task import Context, UserError, get_task
from sklearn import datasets

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def quiet(*a, **k):
    pass


def parquet(df: pd.DataFrame, tmp_path: Path, name="data.parquet") -> str:
    p = tmp_path / name
    df.to_parquet(p)
    return str(p)


@pytest.fixture(scope="module")
def diabetes():
    d = datasets.load_diabetes(as_frame=True)
    return d.frame


@pytest.fixture(scope="module")
def wine():
    d = datasets.load_wine(as_frame=True)
    f = d.frame.copy()
    f["target"] = f["target"].map({0: "class_0", 1: "class_1", 2: "class_2"})
    return f


def test_catalogue_json_is_current():
    assert cat.PATH.read_text(encoding="utf-8") == cat.render(), "run: python -m mitate_engine.ml.catalogue"
    data = json.loads(cat.render())
    assert [a["key"] for a in data["regression"]] == [
        "linear",
        "ridge",
        "lasso",
        "elastic_net",
        "pls",
        "svr",
        "knn",
        "random_forest",
        "extra_trees",
        "lightgbm",
        "gaussian_process",
        "mlp",
    ]
    assert {a["key"] for a in data["soft_sensor"]} == {"pls", "ridge", "lasso", "random_forest", "lightgbm", "gaussian_process"}


def test_catalogue_texts_are_in_both_languages():
    """The catalogue names algorithms and parameters by message keys only; messages.json says each in en and ja."""
    messages = json.loads((Path(cat.__file__).parent.parent / "messages.json").read_text(encoding="utf-8"))
    data = json.loads(cat.render())
    keys = {a["name_key"] for t in data.values() for a in t}
    keys |= {p[k] for t in data.values() for a in t for p in a["params"] for k in ("label_key", "help_key")}
    choice_keys = {k for t in data.values() for a in t for p in a["params"] for k in p.get("choice_keys") or [] if k}
    assert {"ml_choice_kernel_rbf", "ml_choice_weights_distance", "ml_choice_linkage_ward"} <= choice_keys
    keys |= choice_keys
    assert len(keys) > 100
    for k in sorted(keys):
        assert k in messages, k
        assert messages[k]["en"] and messages[k]["ja"] and messages[k]["en"] != messages[k]["ja"], k
    assert not any("label" in a or "help" in p for t in data.values() for a in t for p in a["params"])


def test_regression_matches_scikit_learn_reference(diabetes, tmp_path):
    """Ridge on diabetes with our split equals scikit-learn's Pipeline(StandardScaler, Ridge) on the same rows."""
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    feats = [c for c in diabetes.columns if c != "target"]
    proj = prepare_project({"project_type": "regression", "target": "target", "features": feats, "cv_folds": 3}, diabetes)
    assert len(proj.X_train) == round(442 * 0.85)
    rep = train_model(proj, "ridge", {"alpha": 2.0}, tmp_path / "m", quiet, quiet, quiet)
    ref = make_pipeline(StandardScaler(), Ridge(alpha=2.0)).fit(proj.X_train, proj.y_train)
    assert rep["metrics"]["r2"] == pytest.approx(r2_score(proj.y_test, ref.predict(proj.X_test)), abs=1e-9)
    assert len(rep["cv"]["folds"]) == 3
    assert rep["charts"]["coefficients"][0]["feature"] == "age"
    # the package: a zip with the model and a manifest, and the model predicts raw rows
    with zipfile.ZipFile(tmp_path / "m" / "model.zip") as z:
        names = z.namelist()
        assert {"manifest.json", "model.joblib", "requirements.txt", "mitate_engine/ml/model.py"} <= set(names)
        manifest = json.loads(z.read("manifest.json"))
    assert manifest["features"] == feats and manifest["metrics"]["r2"] == rep["metrics"]["r2"]
    model = joblib.load(tmp_path / "m" / "model.joblib")
    out = model.predict(diabetes[feats].head(5))
    assert np.allclose(out["predicted_target"], ref.predict(diabetes[feats].head(5)))


def test_linear_regression_reports_ols_p_values(diabetes, tmp_path):
    import statsmodels.api as sm

    feats = ["bmi", "bp", "s5"]
    proj = prepare_project({"project_type": "regression", "target": "target", "features": feats, "cv_folds": 2}, diabetes)
    rep = train_model(proj, "linear", {}, tmp_path / "m", quiet, quiet, quiet)
    X = (proj.X_train - proj.X_train.mean()) / proj.X_train.std(ddof=0)
    ref = sm.OLS(proj.y_train, sm.add_constant(X)).fit()
    got = {c["feature"]: c["p_value"] for c in rep["charts"]["coefficients"]}
    assert got["bmi"] == pytest.approx(ref.pvalues["bmi"], rel=1e-6)


def test_auto_tune_streams_trials_and_never_gets_worse_than_defaults(diabetes, tmp_path):
    feats = [c for c in diabetes.columns if c != "target"]
    proj = prepare_project({"project_type": "regression", "target": "target", "features": feats, "cv_folds": 3, "auto_tune": True, "n_trials": 4}, diabetes)
    events, messages = [], []
    rep = train_model(proj, "lasso", {}, tmp_path / "m", lambda f, m: messages.append(m), lambda t, **d: events.append((t, d)), quiet)
    trials = [d for t, d in events if t == "trial"]
    assert [t["trial"] for t in trials] == [1, 2, 3, 4] and all(t["of"] == 4 for t in trials)
    assert any("trial 4 of 4, best so far" in m for m in messages)
    # trial 1 is the defaults: the chosen parameters score at least as well under CV
    assert rep["auto_tune"]["trials"][0]["params"] == {"alpha": 1.0}
    assert rep["cv"]["mean"] >= rep["auto_tune"]["trials"][0]["value"] - 1e-12


def test_discriminant_analysis_on_wine_against_reference(wine, tmp_path):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    feats = [c for c in wine.columns if c != "target"]
    proj = prepare_project({"project_type": "discriminant_analysis", "target": "target", "features": feats, "cv_folds": 3}, wine)
    rep = train_model(proj, "lda", {}, tmp_path / "lda", quiet, quiet, quiet)
    ref = make_pipeline(StandardScaler(), LinearDiscriminantAnalysis()).fit(proj.X_train, proj.y_train)
    assert rep["metrics"]["accuracy"] == pytest.approx((ref.predict(proj.X_test) == proj.y_test).mean())
    assert rep["metrics"]["roc_auc"] > 0.95
    assert np.array(rep["charts"]["confusion_matrix"]["matrix"]).sum() == len(proj.y_test)
    assert len(rep["charts"]["roc"]) == 3
    # a tree model gets SHAP values, balance on
    proj.balance = True
    rep = train_model(proj, "random_forest", {"n_estimators": 30}, tmp_path / "rf", quiet, quiet, quiet)
    assert rep["shap"] and rep["shap"][0]["mean_abs"] > 0
    model = joblib.load(tmp_path / "rf" / "model.joblib")
    out = model.predict(wine[feats].head(4))
    assert list(out.columns) == ["predicted_target", "probability_class_0", "probability_class_1", "probability_class_2"]
    assert np.allclose(out.filter(like="probability").sum(axis=1), 1)


def test_bad_input_is_named(wine, diabetes):
    feats = [c for c in wine.columns if c != "target"]
    with pytest.raises(UserError, match='"target" is not numeric'):
        prepare_project({"project_type": "regression", "target": "target", "features": feats}, wine)
    with pytest.raises(UserError, match='"alcohol"'):
        prepare_project({"project_type": "regression", "target": "alcohol", "features": ["alcohol", "hue"]}, wine)
    lonely = pd.concat([wine, wine.head(1).assign(target="lonely")])
    with pytest.raises(UserError, match='"lonely"'):
        prepare_project({"project_type": "discriminant_analysis", "target": "target", "features": feats}, lonely)
    with pytest.raises(UserError, match='"flat" is constant'):
        prepare_project({"project_type": "regression", "target": "target", "features": ["bmi", "flat"]}, diabetes.assign(flat=1.0))


def test_unseen_category_and_missing_column_are_refused_at_prediction(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=200), "grade": rng.choice(["A", "B"], 200)})
    df["y"] = df.x * 2 + (df.grade == "A") * 3 + rng.normal(scale=0.1, size=200)
    proj = prepare_project({"project_type": "regression", "target": "y", "features": ["x", "grade"], "cv_folds": 2}, df)
    train_model(proj, "ridge", {"alpha": 0.01}, tmp_path / "m", quiet, quiet, quiet)
    model_path = str(tmp_path / "m" / "model.joblib")
    run = lambda frame: get_task("predict").run(
        {"model": model_path, "parquet": parquet(frame, tmp_path, "inf.parquet"), "output_dir": str(tmp_path / "p")}, Context(quiet, tmp_path / "p")
    )
    with pytest.raises(UserError, match='"grade" holds the category "C"'):
        run(pd.DataFrame({"x": [0.0], "grade": ["C"]}))
    with pytest.raises(UserError, match='"grade" is missing'):
        run(pd.DataFrame({"x": [0.0]}))
    res = run(pd.DataFrame({"x": [0.0, 1.0], "grade": ["A", "B"]}))
    assert res["rows"] == 2
    out = pd.read_csv(tmp_path / "p" / "predictions.csv")
    assert list(out.columns) == ["predicted_y", "x", "grade"]
    assert out.predicted_y.tolist() == pytest.approx([3.0, 2.0], abs=0.15)


@pytest.mark.skipif(not (SHARED / "fortuna_soft_sensors" / "debutanizer.csv").exists(), reason="shared data")
def test_soft_sensor_time_features_and_time_ordered_split(tmp_path):
    df = pd.read_csv(SHARED / "fortuna_soft_sensors" / "debutanizer.csv").head(800)
    feats = [f"u{i}" for i in range(1, 8)]
    proj = prepare_project({"project_type": "soft_sensor", "target": "y", "features": feats, "lags": [1, 3], "windows": [4], "cv_folds": 3}, df)
    assert "u1_lag3" in proj.kinds and "u7_mean4" in proj.kinds
    assert len(proj.X_train) + len(proj.X_test) == 800 - 3
    assert proj.time_train[-1] < proj.time_test[0]  # row order is time order: no shuffling
    # the lag column really is the earlier row
    assert proj.X_train["u1_lag1"].iloc[5] == pytest.approx(df["u1"].iloc[3 + 5 - 1])
    rep = train_model(proj, "pls", {"n_components": 4}, tmp_path / "m", quiet, quiet, quiet)
    assert len(rep["charts"]["time_series"]["test"]["actual"]) == len(proj.X_test)
    # validation goes forward in time and ranks by Q², the R² of all forward predictions pooled (not the fold mean)
    from sklearn.cross_decomposition import PLSRegression
    from sklearn.metrics import r2_score
    from sklearn.model_selection import TimeSeriesSplit
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    ys, ps, per_fold = [], [], []
    for tr, va in TimeSeriesSplit(n_splits=3).split(proj.X_train):
        ref = make_pipeline(StandardScaler(), PLSRegression(n_components=4, scale=False)).fit(proj.X_train.iloc[tr], proj.y_train[tr])
        p = np.ravel(ref.predict(proj.X_train.iloc[va]))
        ys.append(proj.y_train[va]), ps.append(p), per_fold.append(r2_score(proj.y_train[va], p))
    assert rep["cv"]["aggregate"] == "pooled_forward"
    assert rep["cv"]["folds"] == pytest.approx(per_fold, abs=1e-9)
    assert rep["cv"]["mean"] == pytest.approx(r2_score(np.concatenate(ys), np.concatenate(ps)), abs=1e-9)
    assert rep["cv"]["fold_mean"] == pytest.approx(np.mean(per_fold), abs=1e-9)
    model = joblib.load(tmp_path / "m" / "model.joblib")
    out = model.predict(df.head(10))
    assert out["predicted_y"].isna().sum() == 3  # the warm-up rows have no lagged inputs


def test_one_failing_algorithm_fails_only_its_model(diabetes, tmp_path):
    feats = [c for c in diabetes.columns if c != "target"]
    events = []
    spec = {
        "project_type": "regression",
        "parquet": parquet(diabetes, tmp_path),
        "target": "target",
        "features": feats,
        "cv_folds": 2,
        "output_dir": str(tmp_path / "out"),
        "models": [{"key": "1_ridge", "algorithm": "ridge"}, {"key": "2_knn", "algorithm": "knn", "params": {"weights": "nonsense"}}],
    }
    result = get_task("train").run(spec, Context(events.append, tmp_path / "out"))
    states = {m["key"]: m["state"] for m in result["models"]}
    assert states == {"1_ridge": "done", "2_knn": "failed"}
    failed = next(m for m in result["models"] if m["key"] == "2_knn")
    assert "weights" in failed["error"] and failed["log"]
    assert (tmp_path / "out" / "1_ridge" / "report.json").exists()
    assert [(e["state"], e.get("pending", False)) for e in events if e["type"] == "model"] == [
        ("running", False),
        ("done", True),
        ("done", False),
        ("running", False),
        ("failed", False),
    ]


def test_clustering_kmeans_matches_reference_and_assigns_new_rows(tmp_path):
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    from sklearn.preprocessing import StandardScaler

    iris = datasets.load_iris(as_frame=True).frame.drop(columns="target")
    proj = prepare_project({"project_type": "clustering", "features": list(iris.columns)}, iris)
    rep = train_model(proj, "kmeans", {"n_clusters": 3}, tmp_path / "k", quiet, quiet, quiet)
    Z = StandardScaler().fit_transform(iris)
    ref = KMeans(n_clusters=3, n_init=10, random_state=0).fit(Z)
    assert rep["metrics"]["silhouette"] == pytest.approx(silhouette_score(Z, ref.labels_), abs=1e-9)
    assert sum(rep["metrics"]["cluster_sizes"].values()) == 150
    assert rep["charts"]["elbow"]["k"][0] == 2
    rep = train_model(proj, "hierarchical", {"n_clusters": 3}, tmp_path / "h", quiet, quiet, quiet)
    assert rep["charts"]["dendrogram"]["icoord"]
    model = joblib.load(tmp_path / "h" / "model.joblib")
    labels = model.predict(iris)["cluster"].value_counts().sort_index()
    assert {str(k): int(v) for k, v in labels.items()} == rep["metrics"]["cluster_sizes"]


def test_dimensional_compression_pca_and_tsne_embed_new_rows(wine, tmp_path):
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    feats = [c for c in wine.columns if c != "target"]
    proj = prepare_project({"project_type": "dimensional_compression", "target": "target", "features": feats}, wine)
    rep = train_model(proj, "pca", {"n_components": 2}, tmp_path / "p", quiet, quiet, quiet)
    ref = PCA(n_components=2).fit(StandardScaler().fit_transform(wine[feats]))
    assert rep["metrics"]["explained_variance_ratio"] == pytest.approx(ref.explained_variance_ratio_.tolist(), abs=1e-9)
    assert len(rep["charts"]["map"]["color"]) == len(wine)
    rep = train_model(proj, "tsne", {"n_iter": 250, "perplexity": 20}, tmp_path / "t", quiet, quiet, quiet)
    assert rep["metrics"]["trustworthiness"] > 0.85
    out = joblib.load(tmp_path / "t" / "model.joblib").predict(wine[feats].head(7))
    assert list(out.columns) == ["component_1", "component_2"] and out.notna().all().all()


@pytest.mark.parametrize("t", list(REGISTRY))
def test_every_algorithm_trains_on_small_data(t, tmp_path):
    rng = np.random.default_rng(1)
    n = 120
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.choice(["u", "v", "w"], n)})
    df["y"] = df.a * 2 - df.b + rng.normal(scale=0.2, size=n) if t in ("regression", "soft_sensor") else np.where(df.a + df.b > 0, "hi", "lo")
    target = "y" if t in ("regression", "soft_sensor", "discriminant_analysis") else None
    proj = prepare_project({"project_type": t, "target": target, "features": ["a", "b", "c"], "cv_folds": 2}, df)
    for key in REGISTRY[t]:
        params = {"n_iter": 250} if key == "tsne" else {"reg_param": 0.1} if key == "qda" else {}
        rep = train_model(proj, key, params, tmp_path / key, quiet, quiet, quiet)
        assert rep["metrics"], key
        assert (tmp_path / key / "model.zip").exists()


def test_auto_tune_starts_from_the_library_defaults_even_with_user_values(tmp_path):
    """Issue 15 (breast cancer, logistic): tuning must never end below the default configuration under validation.
    Trial 1 is the algorithm's defaults, trial 2 the user's own values; the chosen one's CV is at least both."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    df = load_breast_cancer(as_frame=True).frame
    feats = [c for c in df.columns if c != "target"]
    proj = prepare_project(
        {"project_type": "discriminant_analysis", "target": "target", "features": feats, "cv_folds": 5, "auto_tune": True, "n_trials": 4}, df
    )
    rep = train_model(proj, "logistic", {"C": 0.001}, tmp_path / "m", quiet, quiet, quiet)
    trials = rep["auto_tune"]["trials"]
    assert trials[0]["params"] == {"C": 1.0} and trials[1]["params"] == {"C": 0.001}
    default_cv = cross_val_score(
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        proj.X_train,
        proj.y_train,
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
        scoring="accuracy",
    ).mean()
    assert trials[0]["value"] == pytest.approx(default_cv, abs=1e-9)
    assert rep["cv"]["mean"] >= max(trials[0]["value"], trials[1]["value"]) - 1e-12


def test_small_test_sets_make_repeated_cross_validation_the_headline(tmp_path):
    """Issue 15 (statsmodels stackloss, 21 rows): 85/15 leaves 3 test rows, whose R² swings wildly; the report says so
    and repeated cross-validation becomes the headline. Cross-validation only uses every row and has no test set."""
    import statsmodels.api as sm
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import RepeatedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    df = sm.datasets.stackloss.load_pandas().data
    feats = ["AIRFLOW", "WATERTEMP", "ACIDCONC"]
    spec = {"project_type": "regression", "target": "STACKLOSS", "features": feats, "cv_folds": 3}
    rep = train_model(prepare_project(spec, df), "linear", {}, tmp_path / "h", quiet, quiet, quiet)
    ev = rep["evaluation"]
    assert rep["test_rows"] == 3 and ev["small_test"] and ev["headline"] == "repeated_cv" and ev["threshold"] == 30
    proj = prepare_project({**spec, "evaluation": "cv_only"}, df)
    assert len(proj.X_train) == 21 and proj.X_test is None
    rep = train_model(proj, "linear", {}, tmp_path / "c", quiet, quiet, quiet)
    ev = rep["evaluation"]
    assert ev["mode"] == "cv_only" and not ev["small_test"] and ev["headline"] == "repeated_cv" and rep["test_rows"] == 0
    ref = cross_val_score(
        make_pipeline(StandardScaler(), LinearRegression()),
        df[feats],
        df["STACKLOSS"],
        cv=RepeatedKFold(n_splits=3, n_repeats=10, random_state=0),
        scoring="r2",
    )
    assert ev["repeated_cv"]["mean"] == pytest.approx(ref.mean(), abs=1e-9) and ev["repeated_cv"]["repeats"] == 10
    assert 0.5 < ev["repeated_cv"]["mean"] < 0.95  # the honest figure, not the 3-row test R² of -4.6 to -85
    assert rep["permutation_importance"] == []  # no unseen rows to measure it on
    # the metrics are those of out-of-fold predictions of all 21 rows
    assert len(rep["charts"]["predicted_vs_actual"]["actual"]) == 21
    big = pd.concat([df] * 100, ignore_index=True)
    with pytest.raises(UserError, match="at most 2,000 rows"):
        prepare_project({**spec, "evaluation": "cv_only"}, big)
