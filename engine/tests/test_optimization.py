"""Optimisation: exact constraints, infeasibility named, each algorithm on analytic optima, seeds, the task on a real model."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.optimization.objective import Target, overall, pareto_mask, scores
from mitate_engine.optimization.refine import refine
from mitate_engine.optimization.search import ALGORITHMS, collect, grid_points, run_search
from mitate_engine.optimization.space import Constraint, Space, parse_constraints
from mitate_engine.task import Context, UserError, get_task
from scipy.optimize import linprog

SHARED = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")  # a worktree may set it


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
        "models": [{"key": "rf", "path": str(tmp / "m" / "model.joblib"), "condition_path": None}],
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
    assert res["search_evaluations"] == 40 and res["max_violation"] <= 1e-9
    # the refinement's budget is stated and counted: screening, local search and polish on top of the 40 trials
    r = res["refinement"]
    assert r["screen_evaluations"] == 8192 and r["local_evaluations"] > 0 and r["best_after"] >= r["best_before"]
    assert res["evaluations"] >= 40 + r["screen_evaluations"] + r["local_evaluations"]
    # the ranked conditions are distinct: no two in the same 1 % cell of every range feature with the same levels
    spans = {f["name"]: f["upper"] - f["lower"] for f in res["features"] if f["kind"] == "range"}
    cells = [(tuple(int((b["features"][f] - df[f].min()) / spans[f] / 0.01) for f in spans), b["features"]["age_days"]) for b in res["best"]]
    assert len(res["best"]) == 10 and len(set(cells)) == 10
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
        models=[
            {"key": "rf", "path": str(tmp / "m" / "model.joblib"), "condition_path": None},
            {"key": "lin", "path": str(tmp_path / "m2" / "model.joblib"), "condition_path": None},
        ],
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


# ---- implied equalities, the default budget, the sum operator (issue 30) ----------------------------------------

# Constraint sets that pin a direction without declaring an equality, and what each pins
PINNED = {
    "sum and a >= pin x3 to its bound": (
        [Constraint("sum", {"x1": 1, "x2": 1, "x3": 1}, "=", 12.0), Constraint("ge", {"x1": 1, "x2": 1}, ">=", 12.0)],
        {"ge", "x3 = 0"},
        2,
    ),
    "x1 - x2 <= 0 and >= 0": (
        [Constraint("le", {"x1": 1, "x2": -1}, "<=", 0.0), Constraint("ge", {"x1": 1, "x2": -1}, ">=", 0.0)],
        {"le", "ge"},
        3,
    ),
    "x1 + x2 = 10 with x1 <= 5 and x2 <= 5": (
        [Constraint("sum", {"x1": 1, "x2": 1}, "=", 10.0), Constraint("a", {"x1": 1}, "<=", 5.0), Constraint("b", {"x2": 1}, "<=", 5.0)],
        {"a", "b"},
        2,
    ),
}
W = np.array([3.0, -1.5, 2.0, -1.0])  # a linear model over x1..x4 in [0, 8] x [0, 8] x [0, 6] x [0, 10]
LO, HI = np.array([0.0, 0.0, 0.0, 0.0]), np.array([8.0, 8.0, 6.0, 10.0])


def pinned_space(cons):
    return Space(["x1", "x2", "x3", "x4"], LO.copy(), HI.copy(), constraints=cons)


def linear_evaluate(w):
    t = [Target("y", "maximize")]

    def ev(X, choices):
        Y = (X @ w)[:, None]
        return overall(t, Y), scores(t, Y)

    return ev


def lp_optimum(s, w):
    res = linprog(
        -w,
        A_ub=s.A_ub if len(s.b_ub) else None,
        b_ub=s.b_ub if len(s.b_ub) else None,
        A_eq=s.A_eq if len(s.b_eq) else None,
        b_eq=s.b_eq if len(s.b_eq) else None,
        bounds=list(zip(LO, HI)),
        method="highs",
    )
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("case", PINNED)
def test_implied_equalities_are_found_and_candidates_spread_over_the_hull(case):
    cons, implied, dim = PINNED[case]
    s = pinned_space(cons)
    assert set(s.implied_equalities) == implied and s.dim == dim
    X = s.sample(500, np.random.default_rng(0))
    assert s.violation(X).max() <= 1e-9
    # the old repair collapsed every candidate onto one point; now they span the region's own directions
    assert np.linalg.matrix_rank(X - X.mean(axis=0), tol=1e-6) == dim
    assert len(np.unique(np.round(X, 6), axis=0)) > 400


@pytest.mark.parametrize("case", PINNED)
@pytest.mark.parametrize("algorithm", ["tpe", "cmaes", "random", "grid"])
def test_the_default_budget_reaches_the_lp_optimum_when_constraints_pin_directions(case, algorithm):
    s = pinned_space(PINNED[case][0])
    ev = linear_evaluate(W)
    h = run_search(s, algorithm, 10, 3, ev, 1)
    extra, info = refine(s, h, ev, 3)
    both = collect([h, extra])
    opt = lp_optimum(s, W)
    span = float(np.abs(W) @ (HI - LO))
    assert s.violation(both.X).max() <= 1e-9
    assert (opt - both.objective.max()) / span <= 1e-6
    assert info.screen == 8192 and info.starts >= 1 and info.improved_to == pytest.approx(both.objective.max())


def test_the_issue_case_sum_and_linear_constraint_within_one_percent():
    # 4 inputs, a sum and a linear constraint: ten TPE trials alone were 10 % short of the LP optimum
    s = Space(
        ["a", "b", "c", "d"],
        np.zeros(4),
        np.full(4, 10.0),
        constraints=[Constraint("sum", {"a": 1, "b": 1, "c": 1, "d": 1}, "=", 20.0), Constraint("lin", {"a": 2, "b": 1, "c": -1}, "<=", 12.0)],
    )
    w = np.array([3.0, 1.0, 2.0, -1.0])
    ev = linear_evaluate(w)
    res = linprog(-w, A_ub=s.A_ub, b_ub=s.b_ub, A_eq=s.A_eq, b_eq=s.b_eq, bounds=[(0, 10)] * 4, method="highs")
    h = run_search(s, "tpe", 10, 0, ev, 1)
    extra, _ = refine(s, h, ev, 0)
    best = max(h.objective.max(), extra.objective.max())
    assert (-res.fun - best) / (np.abs(w).sum() * 10) <= 0.01


def test_refinement_tries_every_level_of_discrete_and_categorical_features():
    s = Space(["x"], np.array([0.0]), np.array([1.0]), discrete={"d": [1.0, 2.0, 3.0]}, categorical={"k": ["p", "q", "r"]})
    t = [Target("y", "maximize")]
    bonus = {"p": 0.0, "q": 5.0, "r": 1.0}

    def ev(X, choices):
        Y = (X[:, 0] + np.asarray(choices["d"], dtype=float) * [bonus[k] for k in choices["k"]])[:, None]
        return overall(t, Y), scores(t, Y)

    h = run_search(s, "random", 3, 0, ev, 1)
    extra, _ = refine(s, h, ev, 0)
    both = collect([h, extra])
    i = int(np.argmax(both.objective))
    assert both.choices["d"][i] == 3.0 and both.choices["k"][i] == "q" and both.X[i, 0] == pytest.approx(1.0)


def test_a_sum_constraint_keeps_its_operator():
    raw = [
        {"name": "le", "type": "sum", "features": ["a", "b"], "operator": "<=", "value": 10},
        {"name": "default", "type": "sum", "features": ["a", "b"], "value": 10},
        {"name": "ge", "type": "sum", "features": ["a", "b"], "operator": ">=", "value": 4},
        {"name": "eq", "type": "sum", "features": ["a", "b"], "operator": "=", "value": 7},
    ]
    assert [c.operator for c in parse_constraints(raw)] == ["<=", "<=", ">=", "="]
    # run as <=: minimising a + b under "a + b <= 10" goes to 0, which the old "=" reading could never reach
    s = Space(["a", "b"], np.zeros(2), np.full(2, 10.0), constraints=parse_constraints(raw[:1]))
    ev = linear_evaluate(np.array([-1.0, -1.0]))
    h = run_search(s, "tpe", 10, 0, ev, 1)
    extra, _ = refine(s, h, ev, 0)
    both = collect([h, extra])
    assert both.objective.max() == pytest.approx(0.0, abs=1e-6) and s.violation(both.X).max() <= 1e-9


def test_integer_features_take_whole_numbers_and_still_satisfy_the_constraints():
    s = Space(
        ["a", "b", "c"],
        np.zeros(3),
        np.full(3, 10.0),
        constraints=[Constraint("sum", {"a": 1, "b": 1, "c": 1}, "=", 12.0), Constraint("lin", {"a": 2, "b": 1}, "<=", 14.5)],
        integer=["a", "b"],
    )
    X = s.sample(2000, np.random.default_rng(0))
    assert s.violation(X).max() <= 1e-9 and s.integral(X).all()
    assert len(np.unique(X[:, :2], axis=0)) > 10  # spread over the whole-number points, not one
    ev = linear_evaluate(np.array([1.0, 3.0, -1.0]))
    h = run_search(s, "tpe", 10, 0, ev, 1)
    extra, _ = refine(s, h, ev, 0)
    both = collect([h, extra])
    assert s.integral(both.X).all() and s.violation(both.X).max() <= 1e-9
    # max a + 3b - c with a + b + c = 12, 2a + b <= 14.5, whole a and b: b = 10, a = 2, c = 0 -> 32
    assert both.objective.max() == pytest.approx(32.0)


def test_an_integer_column_of_the_training_data_is_proposed_as_whole_numbers(concrete_model):
    # age_days is an integer column of uci_concrete: searched over its range, every candidate is a whole number
    tmp, df, feats = concrete_model
    spec = concrete_spec(tmp, df, feats, output_dir=str(tmp / "int"), n_trials=10)
    spec["features"][feats.index("age_days")] = {"name": "age_days", "kind": "range", "lower": 1.5, "upper": 365}
    res = get_task("optimize").run(spec, Context(lambda e: None, tmp / "int"))
    ages = pd.read_csv(tmp / "int" / "trials.csv")["age_days"]
    assert (ages == ages.round()).all() and ages.min() >= 2 and ages.max() <= 365
    assert all(float(b["features"]["age_days"]).is_integer() for b in res["best"])
    assert not (pd.read_csv(tmp / "int" / "trials.csv")["cement"] % 1 == 0).all()  # a float column keeps its fractions


@pytest.mark.parametrize("algorithm", ["tpe", "cmaes", "random", "grid"])
def test_a_region_pinned_to_one_point_is_searched_there(algorithm):
    s = Space(["a", "b"], np.zeros(2), np.full(2, 10.0), constraints=[Constraint("a", {"a": 1}, ">=", 10.0), Constraint("b", {"b": 1}, "<=", 0.0)])
    assert s.dim == 0 and set(s.implied_equalities) >= {"a", "b"}
    ev = linear_evaluate(np.array([1.0, 1.0]))
    h = run_search(s, algorithm, 4, 0, ev, 1)
    extra, _ = refine(s, h, ev, 0)
    both = collect([h, extra])
    assert np.allclose(both.X, [10.0, 0.0]) and both.objective.max() == pytest.approx(10.0)
