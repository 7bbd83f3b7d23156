"""Optimisation: exact constraints, infeasibility named, each algorithm on analytic optima, seeds, the task on a real model."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.optimization.objective import Target, overall, pareto_mask, scores
from mitate_engine.optimization.search import ALGORITHMS, grid_points, run_search
from mitate_engine.optimization.space import Constraint, Space
from mitate_engine.task import Context, UserError, get_task

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def mixture_space():
    # three components summing to 100, a cost limit 2a + b + 3c <= 180, box bounds
    return Space(
        ["a", "b", "c"],
        np.array([0.0, 10.0, 5.0]),
        np.array([80.0, 90.0, 60.0]),
        constraints=[Constraint("sum", {"a": 1, "b": 1, "c": 1}, "=", 100.0), Constraint("cost", {"a": 2, "b": 1, "c": 3}, "<=", 180.0)],
    )


def test_repair_puts_every_point_inside_to_1e9_and_keeps_feasible_points():
    s = mixture_space()
    rng = np.random.default_rng(0)
    Z = rng.uniform(-50, 200, (20000, 3))
    X = s.repair(Z)
    assert s.violation(X).max() <= 1e-9
    inside = s.sample(500, rng)
    assert np.allclose(s.repair(inside), inside, atol=1e-12)


def test_infeasible_constraints_are_named():
    s_args = dict(cont=["a", "b"], lower=np.array([0.0, 0.0]), upper=np.array([10.0, 10.0]))
    with pytest.raises(UserError) as e:
        Space(
            **s_args,
            constraints=[
                Constraint("total", {"a": 1, "b": 1}, "=", 15.0),
                Constraint("cheap", {"a": 1, "b": 1}, "<=", 12.0),
                Constraint("harmless", {"a": 1}, ">=", 1.0),
            ],
        )
    msg = e.value.as_dict()
    assert msg["code"] == "optimization.infeasible"
    assert set(msg["params"]["constraints"]) == {"total", "cheap"}
    with pytest.raises(UserError, match="total"):
        Space(**s_args, constraints=[Constraint("total", {"a": 1, "b": 1}, "=", 25.0)])


def bowl(space, centre):
    t = [Target("y", "minimize")]

    def evaluate(X, choices):
        Y = ((X - centre) ** 2).sum(axis=1, keepdims=True)
        return overall(t, Y), scores(t, Y)

    return evaluate


BUDGET = {"tpe": 120, "cmaes": 200, "nsga2": 300, "gp": 30, "random": 2000, "grid": 2500}
TOL = {"tpe": 0.5, "cmaes": 0.05, "nsga2": 0.5, "gp": 0.05, "random": 0.5, "grid": 0.5}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_each_algorithm_finds_a_quadratic_bowl_and_a_constrained_linear_programme(algorithm):
    s = Space(["x", "y"], np.array([-5.0, -5.0]), np.array([5.0, 5.0]))
    h = run_search(s, algorithm, BUDGET[algorithm], 1, bowl(s, np.array([1.5, -2.0])), 1)
    assert len(h.X) <= BUDGET[algorithm]
    assert -h.objective.max() < TOL[algorithm]
    # max x + 2y  s.t. x + y <= 4, x - y <= 1, box [0, 5]: optimum (0, 4) -> 8
    lp = Space(
        ["x", "y"],
        np.array([0.0, 0.0]),
        np.array([5.0, 5.0]),
        constraints=[Constraint("c1", {"x": 1, "y": 1}, "<=", 4.0), Constraint("c2", {"x": 1, "y": -1}, "<=", 1.0)],
    )
    t = [Target("v", "maximize")]

    def ev(X, choices):
        Y = (X[:, 0] + 2 * X[:, 1])[:, None]
        return overall(t, Y), scores(t, Y)

    h = run_search(lp, algorithm, BUDGET[algorithm], 1, ev, 1)
    assert lp.violation(h.X).max() <= 1e-9
    assert h.objective.max() > 8 - 8 * 0.06


@pytest.mark.parametrize("algorithm", ["tpe", "cmaes", "random", "nsga2"])
def test_seeded_runs_repeat_and_proposals_satisfy_sum_and_cost(algorithm):
    s = mixture_space()
    ev = bowl(s, np.array([30.0, 50.0, 20.0]))
    h1 = run_search(s, algorithm, 60, 7, ev, 1)
    h2 = run_search(s, algorithm, 60, 7, ev, 1)
    assert np.array_equal(h1.X, h2.X)
    assert s.violation(h1.X).max() <= 1e-9


def test_grid_covers_levels_and_respects_the_budget():
    s = Space(["x"], np.array([0.0]), np.array([1.0]), discrete={"d": [1.0, 2.0]}, categorical={"k": ["p", "q"]})
    X, ch = grid_points(s, 40)
    assert len(X) <= 40 and set(ch["k"]) == {"p", "q"} and set(ch["d"]) == {1.0, 2.0}
    assert X.min() == 0.0 and X.max() == 1.0


def test_pareto_mask():
    S = np.array([[1, 1], [2, 0], [0, 2], [0.5, 0.5], [2, 0]])
    assert pareto_mask(S).tolist() == [True, True, True, False, True]


@pytest.fixture(scope="module")
def concrete_model(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("concrete")
    df = pd.read_csv(SHARED / "uci_concrete" / "concrete_data.csv")
    df.to_parquet(tmp / "data.parquet")
    feats = [c for c in df.columns if c != "compressive_strength_mpa"]
    proj = prepare_project({"project_type": "regression", "target": "compressive_strength_mpa", "features": feats, "cv_folds": 2, "split_ratio": 0.85}, df)
    train_model(proj, "random_forest", {"n_estimators": 40}, tmp / "m", lambda *a: None, lambda *a, **k: None, lambda s: None)
    return tmp, df, feats


def concrete_spec(tmp, df, feats, **over):
    settings = [{"name": f, "kind": "range", "lower": float(df[f].min()), "upper": float(df[f].max())} for f in feats]
    settings[feats.index("age_days")] = {"name": "age_days", "kind": "discrete", "values": [7, 28, 90]}
    spec = {
        "models": [{"key": "rf", "path": str(tmp / "m" / "model.joblib")}],
        "parquet": str(tmp / "data.parquet"),
        "targets": [{"name": "compressive_strength_mpa", "goal": "maximize"}],
        "features": settings,
        "constraints": [
            {
                "name": "cost",
                "type": "linear",
                "coefficients": {"cement": 0.1, "blast_furnace_slag": 0.05, "superplasticizer": 1.0},
                "operator": "<=",
                "value": 40.0,
            }
        ],
        "algorithm": "tpe",
        "n_trials": 40,
        "seed": 3,
        "output_dir": str(tmp / "out"),
    }
    spec.update(over)
    return spec


def test_task_on_a_concrete_model_honours_the_cost_and_reports(concrete_model):
    tmp, df, feats = concrete_model
    spec = concrete_spec(tmp, df, feats)
    res = get_task("optimize").run(spec, Context(lambda e: None, tmp / "out"))
    assert res["evaluations"] == 40 and res["max_violation"] <= 1e-9
    b = res["best"][0]
    cost = 0.1 * b["features"]["cement"] + 0.05 * b["features"]["blast_furnace_slag"] + b["features"]["superplasticizer"]
    assert cost <= 40 + 1e-9 and b["features"]["age_days"] in (7, 28, 90)
    assert b["predictions"]["compressive_strength_mpa"] == pytest.approx(max(h["best"] for h in res["convergence"]))
    assert b["uncertainty"]["compressive_strength_mpa"] is not None  # a forest's spread over its trees
    assert set(res["profiles"]) >= {"cement", "age_days"} and "cement" in res["sensitivity"]
    assert (tmp / "out" / "trials.csv").exists() and (tmp / "out" / "best.csv").exists()


def test_two_targets_give_a_pareto_front_and_desirability(concrete_model, tmp_path):
    tmp, df, feats = concrete_model
    # a second model on the same inputs predicts a cost column, to be minimised while strength is maximised
    df2 = df.assign(cost=0.1 * df.cement + 0.05 * df.blast_furnace_slag + df.superplasticizer)
    df2.to_parquet(tmp_path / "d2.parquet")
    proj = prepare_project({"project_type": "regression", "target": "cost", "features": feats, "cv_folds": 2, "split_ratio": 0.85}, df2)
    train_model(proj, "linear", {}, tmp_path / "m2", lambda *a: None, lambda *a, **k: None, lambda s: None)
    spec = concrete_spec(
        tmp,
        df,
        feats,
        algorithm="nsga2",
        n_trials=80,
        constraints=[],
        parquet=str(tmp_path / "d2.parquet"),
        models=[{"key": "rf", "path": str(tmp / "m" / "model.joblib")}, {"key": "lin", "path": str(tmp_path / "m2" / "model.joblib")}],
        targets=[{"name": "compressive_strength_mpa", "goal": "maximize"}, {"name": "cost", "goal": "minimize", "weight": 2}],
        output_dir=str(tmp_path / "o"),
    )
    res = get_task("optimize").run(spec, Context(lambda e: None, tmp_path / "o"))
    assert res["objective"] == "desirability" and len(res["pareto"]) >= 2
    assert res["best"][0]["desirability"]["cost"] > 0


@pytest.mark.parametrize(
    "change,code",
    [
        (lambda s: s["features"][0].update(lower=600, upper=100), "optimization.range_inverted"),
        (lambda s: s["features"].pop(0), "optimization.feature_unset"),
        (lambda s: s["features"][-1].update(values=[7, "x"]), "optimization.not_number"),
        (lambda s: s["targets"].append({"name": "compressive_strength_mpa", "goal": "minimize"}), "optimization.duplicate_target"),
        (lambda s: s["models"][0].update(path="/nonexistent/model.joblib"), "optimization.model_missing"),
        (
            lambda s: s["constraints"].append({"name": "impossible", "type": "linear", "coefficients": {"cement": 1}, "operator": ">=", "value": 5000}),
            "optimization.infeasible",
        ),
    ],
)
def test_bad_input_is_refused_with_a_code(concrete_model, change, code):
    tmp, df, feats = concrete_model
    spec = concrete_spec(tmp, df, feats)
    change(spec)
    with pytest.raises(UserError) as e:
        get_task("optimize").run(spec, Context(lambda e: None, tmp / "bad"))
    assert e.value.code == code


def test_forbidding_extrapolation_keeps_candidates_inside_the_training_ranges(concrete_model):
    tmp, df, feats = concrete_model
    spec = concrete_spec(tmp, df, feats, forbid_extrapolation=True, n_trials=30)
    spec["features"][0].update(lower=0, upper=2000)  # cement beyond the data on both sides
    res = get_task("optimize").run(spec, Context(lambda e: None, tmp / "fx"))
    assert all(not b["extrapolation"] for b in res["best"])
    spec = concrete_spec(tmp, df, feats, n_trials=30, output_dir=str(tmp / "fx2"))
    spec["features"][0].update(lower=0, upper=2000)
    res = get_task("optimize").run(spec, Context(lambda e: None, tmp / "fx2"))
    assert res["extrapolated_share"] > 0
