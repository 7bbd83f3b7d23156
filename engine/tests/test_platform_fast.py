"""The compiled single-row predictor of hosted APIs equals the shared model path (within 1e-9) for every servable
model kind, and hands anything it does not know exactly back to the shared path."""

import json

import joblib
import numpy as np
import pandas as pd
import pytest
from mitate_engine.encoding import to_jsonable
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.platform.fast import compile_model, shared_rows
from mitate_engine.platform.serve import ModelCache, answer

N = 240


def table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "x1": rng.normal(10, 3, N),
            "x2": rng.uniform(-5, 5, N),
            "x3": rng.integers(0, 100, N).astype(float),
            "g": rng.choice(["a", "b", "c"], N),
            "h": rng.choice(["p", "q"], N),
        }
    )
    df["y"] = 2 * df.x1 - df.x2 + 0.05 * df.x3 + (df.g == "b") * 3 - (df.h == "q") * 2 + rng.normal(0, 0.3, N)
    df["cls"] = np.where(df.y > df.y.median(), "high", np.where(df.x2 > 0, "mid", "low"))
    df.loc[rng.choice(N, 12, replace=False), "x2"] = np.nan
    df.loc[rng.choice(N, 8, replace=False), "g"] = None
    return df


FEATURES = ["x1", "x2", "x3", "g", "h"]
KINDS = [
    *[("regression", a) for a in ["linear", "ridge", "lasso", "elastic_net", "pls", "svr", "knn", "random_forest", "extra_trees", "lightgbm", "mlp"]],
    *[("discriminant_analysis", a) for a in ["lda", "logistic", "svm", "knn", "random_forest", "lightgbm"]],
    *[("clustering", a) for a in ["kmeans", "hierarchical", "dbscan", "gaussian_mixture"]],
    ("dimensional_compression", "pca"),
    ("soft_sensor", "ridge"),
    ("soft_sensor", "lightgbm"),
]


def train(tmp_path_factory, project_type: str, algorithm: str, **extra):
    df = table()
    spec = {"project_type": project_type, "features": FEATURES, "cv_folds": 2, **extra}
    if project_type in ("regression", "soft_sensor"):
        spec["target"] = "y"
    elif project_type == "discriminant_analysis":
        spec["target"] = "cls"
    proj = prepare_project(spec, df.drop(columns=[c for c in ("y", "cls") if c != spec.get("target")]))
    d = tmp_path_factory.mktemp(f"{project_type}_{algorithm}")
    train_model(proj, algorithm, {}, d, lambda *a: None, lambda *a, **k: None, lambda s: None)
    return d, joblib.load(d / "model.joblib")


def request_rows(seed: int = 1) -> list[dict]:
    """Inference rows as JSON callers send them: numbers, ints, nulls, known categories."""
    df = table(seed)
    rows = []
    for i, r in enumerate(df.to_dict("records")):
        row = {c: (None if isinstance(r[c], float) and np.isnan(r[c]) else r[c]) for c in FEATURES}
        if i % 7 == 3:
            row["x3"] = int(row["x3"])  # an integer where training saw floats
        rows.append(row)
    return rows


def assert_equal(a: list[dict], b: list[dict]) -> None:
    a, b = to_jsonable(a), to_jsonable(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], float) or isinstance(y[k], float):
                assert x[k] is not None and y[k] is not None, (k, x[k], y[k])
                assert abs(x[k] - y[k]) <= 1e-9, (k, x[k], y[k])
            else:
                assert x[k] == y[k], (k, x[k], y[k])


@pytest.mark.parametrize(("project_type", "algorithm"), KINDS)
def test_the_compiled_predictor_equals_the_shared_path(tmp_path_factory, project_type, algorithm):
    _, model = train(tmp_path_factory, project_type, algorithm)
    fast = compile_model(model)
    assert fast is not None, f"{project_type}/{algorithm} should compile"
    rows = request_rows()
    names, expected = shared_rows(model, rows)
    got = fast.predict_rows(rows)
    assert got is not None and got[0] == names
    assert_equal(got[1], expected)
    for row, want in zip(rows[:40], expected[:40]):  # one row per request, as the benchmark sends them
        one = fast.predict_rows([row])
        assert one is not None
        assert_equal(one[1], [want])


def test_what_it_cannot_take_goes_the_shared_way(tmp_path_factory):
    d, model = train(tmp_path_factory, "regression", "lightgbm")
    fast = compile_model(model)
    good = {"x1": 10.0, "x2": 1.0, "x3": 5, "g": "a", "h": "p"}
    assert fast.predict_rows([good]) is not None
    for bad in ({**good, "x1": "10.5"}, {**good, "g": "zzz"}, {k: v for k, v in good.items() if k != "x2"}, {**good, "h": 3}, {**good, "x1": True}):
        assert fast.predict_rows([bad]) is None
    # ... and the serving answer is then the shared path's: a number given as text is read, the others are 422
    as_text, unseen, missing = answer(
        ModelCache(),
        {
            "model": {"key": "k", "dir": str(d)},
            "requests": [{"rows": [{**good, "x1": "10.0"}]}, {"rows": [{**good, "g": "zzz"}]}, {"rows": [{"x1": 1.0, "x3": 1, "g": "a", "h": "p"}]}],
        },
    )
    (plain,) = answer(ModelCache(), {"model": {"key": "k", "dir": str(d)}, "requests": [{"rows": [good]}]})
    assert as_text["predictions"][0]["predicted_y"] == pytest.approx(plain["predictions"][0]["predicted_y"], abs=1e-9)
    assert (unseen["status"], unseen["column"]) == (422, "g")
    assert (missing["status"], missing["column"]) == (422, "x2")


def test_models_it_cannot_compile_are_served_by_the_shared_path(tmp_path_factory):
    d, model = train(tmp_path_factory, "soft_sensor", "ridge", lags=[1], windows=[2])
    assert compile_model(model) is None  # lags need the rows before: the shared path
    cond = {
        "name": "c",
        "steps": [
            {"process_type": "scaling", "method": "standard", "columns": ["x1"], "params": {}, "fitted": {"columns": {"x1": {"center": 1.0, "scale": 2.0}}}}
        ],
    }
    _, reg = train(tmp_path_factory, "regression", "linear")
    assert compile_model(reg, cond) is None
    (d / "condition.json").write_text(json.dumps(cond))
    cache = ModelCache()
    rows = request_rows()[:30]
    (r,) = answer(cache, {"model": {"key": "k", "dir": str(d)}, "requests": [{"rows": rows}]})
    assert cache.get("k", str(d))[2] is None
    assert len(r["predictions"]) == 30


def test_batched_requests_get_their_own_rows_back(tmp_path_factory):
    d, model = train(tmp_path_factory, "discriminant_analysis", "lightgbm")
    cache = ModelCache()
    rows = request_rows()[:20]
    assert cache.get("k", str(d))[2] is not None
    results = answer(cache, {"model": {"key": "k", "dir": str(d)}, "requests": [{"rows": [r]} for r in rows] + [{"rows": [{**rows[0], "g": "zzz"}]}]})
    _, expected = shared_rows(model, rows)
    for r, want in zip(results[:20], expected):
        assert_equal(r["predictions"], [want])
    assert (results[20]["status"], results[20]["column"]) == (422, "g")


# ---- serving plans: the compiled predictor as JSON data for the server (server/src/features/platform/plan.ts) -----


def plan_matrix(plan: dict, rows: list[dict]) -> np.ndarray:
    """The model matrix from the plan's arrays alone (a reference for this test)."""
    out = []
    for row in rows:
        parts = []
        for b in plan["blocks"]:
            if b["kind"] == "num":
                v = np.array([np.nan if row[c] is None else float(row[c]) for c in b["columns"]])
                if b["keep"] is not None:
                    v = v[np.array(b["keep"])]
                if b["fill"] is not None:
                    v = np.where(np.isnan(v), b["fill"], v)
                if b["select"] is not None:
                    v = v[np.array(b["select"])]
                if b["mean"] is not None:
                    v = v - np.array(b["mean"])
                if b["scale"] is not None:
                    v = v / np.array(b["scale"])
                parts.append(v)
            else:
                for c in b["columns"]:
                    vec = b["vectors"][c]
                    parts.append(np.array(vec["missing"] if row[c] is None else vec["values"][row[c]]))
        out.append(np.concatenate(parts))
    return np.array(out)


def plan_scores(est: dict, X: np.ndarray) -> np.ndarray:
    """Raw scores per row (and class) from the plan's estimator data."""
    if est["kind"] == "linear":
        return X @ np.array(est["coef"]) + est["intercept"]
    if est["kind"] == "logistic":
        return X @ np.array(est["coef"]).T + np.array(est["intercept"])
    if est["kind"] == "forest":
        k = est["num_class"]
        total = np.zeros((len(X), k))
        for tree in est["trees"]:
            for i, x in enumerate(X.astype(np.float32)):  # scikit-learn's trees read X as float32
                node = 0
                while tree["left"][node] != -1:
                    f = float(x[tree["feature"][node]])
                    node = tree["left"][node] if f <= tree["threshold"][node] else tree["right"][node]
                v = np.array(tree["value"][node * k : (node + 1) * k])
                total[i] += v if k == 1 else v / (v.sum() or 1.0)  # a classifier's leaf: class shares
        return (total / len(est["trees"])).ravel() if k == 1 else total / len(est["trees"])
    k = est["num_tree_per_iteration"]
    raw = np.zeros((len(X), k))
    for t, tree in enumerate(est["trees"]):
        for i, x in enumerate(X):
            node = 0 if tree["threshold"] else -1
            while node >= 0:
                f = x[tree["split_feature"][node]]
                node = tree["left"][node] if f <= tree["threshold"][node] else tree["right"][node]
            raw[i, t % k] += tree["leaf_value"][~node]
    return raw


PLANNED = [
    ("regression", "lightgbm"),
    ("regression", "linear"),
    ("regression", "ridge"),
    ("regression", "lasso"),
    ("regression", "random_forest"),
    ("regression", "extra_trees"),
    ("discriminant_analysis", "lightgbm"),
    ("discriminant_analysis", "logistic"),
    ("discriminant_analysis", "random_forest"),
]


@pytest.mark.parametrize(("project_type", "algorithm"), PLANNED)
def test_the_serving_plan_reproduces_the_model(tmp_path_factory, project_type, algorithm):
    d, model = train(tmp_path_factory, project_type, algorithm)
    fast = compile_model(model)
    plan = fast.plan()
    assert plan is not None
    assert json.loads(json.dumps(plan, allow_nan=False)) == plan  # plain JSON
    rows = request_rows()
    # the arrays rebuild the pipeline's own matrix exactly
    assert np.array_equal(plan_matrix(plan, rows), fast.matrix(rows))
    X = fast.matrix(rows)
    scores = plan_scores(plan["estimator"], X)
    _, expected = shared_rows(model, rows)
    est = fast.estimator
    if project_type == "regression":
        want = np.array([r["predicted_y"] for r in expected])
        assert np.allclose(scores.ravel(), want, rtol=0, atol=1e-9)
        assert plan["output"] == {"type": "regression", "columns": ["predicted_y"], "target_affine": []}
    else:
        if algorithm == "random_forest":
            raw = est.predict_proba(X)  # the plan's forest gives the probabilities themselves
        else:
            raw = est.booster_.predict(X, raw_score=True) if algorithm == "lightgbm" else est.decision_function(X)
        assert np.allclose(scores, raw, rtol=0, atol=1e-9)
        assert plan["output"]["labels"] == [str(c) for c in est.classes_] and len(plan["output"]["labels"]) == 3
        assert plan["output"]["columns"] == list(expected[0])
    # the samples the server checks its evaluation against are the shared path's answers
    assert fast.samples["outputs"] == list(expected[0])
    names, want = shared_rows(model, fast.samples["rows"])
    assert names == fast.samples["outputs"]
    assert_equal(fast.samples["predictions"], want)
    # and the serving process hands both out on request
    (got,) = answer(ModelCache(), {"model": {"key": "k", "dir": str(d)}, "requests": [{"plan": True}]})
    assert got["plan"] == plan and got["samples"]["outputs"] == names


def test_models_without_a_plan_say_so(tmp_path_factory):
    d, model = train(tmp_path_factory, "regression", "svr")
    fast = compile_model(model)
    assert fast is not None and fast.plan() is None  # compiled for this process, no plan for the server
    (got,) = answer(ModelCache(), {"model": {"key": "k", "dir": str(d)}, "requests": [{"plan": True}]})
    assert got == {"plan": None, "samples": None}
    d2, _ = train(tmp_path_factory, "soft_sensor", "ridge", lags=[1], windows=[2])
    plan_answer, prediction = answer(ModelCache(), {"model": {"key": "s", "dir": str(d2)}, "requests": [{"plan": True}, {"rows": request_rows()[:5]}]})
    assert plan_answer == {"plan": None, "samples": None}  # not compiled at all
    assert len(prediction["predictions"]) == 5
