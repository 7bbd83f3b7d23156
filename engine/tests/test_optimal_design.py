"""Kind `optimal_design`: published reference values, constraints to 1e-9, exclusions, mixture fits, BO."""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mitate_engine.optimal_design.design import make_design, parse_problem
from mitate_engine.optimal_design.exchange import Search, coordinate_exchange, fedorov
from mitate_engine.optimal_design.fit import fit
from mitate_engine.optimal_design.model import build_model
from mitate_engine.optimal_design.space import build_space, points_from_rows
from mitate_engine.task import Context, EngineError, get_task

MIX = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data") / "doe_mixture_examples"  # a worktree may set it
BOX2 = [{"name": n, "type": "continuous", "low": -1, "high": 1} for n in "AB"]
MIX3 = [
    {"name": "A", "type": "mixture", "low": 0.1, "high": 0.6},
    {"name": "B", "type": "mixture", "low": 0.1, "high": 0.7},
    {"name": "C", "type": "mixture", "low": 0.05, "high": 0.5},
]


def code(err: EngineError) -> str:
    return err.code


def test_meyer_nachtsheim_six_run_quadratic_det_267_74():
    """dexpy's test (Meyer & Nachtsheim 1995): det((XᵀX)⁻¹) = 3.73506e-3, i.e. det(XᵀX) = 267.74."""
    sp = build_space(BOX2)
    m = build_model(sp, "quadratic")
    X, _ = coordinate_exchange(m.matrix, [np.linspace(-1, 1, 41)] * 2, [True, True], 6, Search("D"), np.random.default_rng(1), starts=10)
    F = m.matrix(X)
    assert np.linalg.det(F.T @ F) == pytest.approx(267.74, abs=0.05)


def test_algdesign_fourteen_runs_from_three_level_grid_d_0_4630447():
    """R AlgDesign optFederov: 3 factors, quadratic, 14 runs from the 3³ grid: D = det(XᵀX/N)^(1/p) = 0.4630447."""
    sp = build_space([{"name": n, "type": "continuous", "low": -1, "high": 1} for n in "ABC"])
    m = build_model(sp, "quadratic")
    cand = np.array(list(itertools.product([-1, 0, 1], repeat=3)), float)
    idx, _ = fedorov(m.matrix(cand), 14, Search("D"), np.random.default_rng(0), starts=10)
    F = m.matrix(cand[idx])
    assert np.linalg.det(F.T @ F / 14) ** (1 / 10) == pytest.approx(0.4630447, abs=1e-7)


def mixture_spec(**kw):
    return {
        "variables": MIX3,
        "mixture_total": 1,
        "model": {"kind": "scheffe_quadratic"},
        "algorithm": "d_optimal",
        "n_runs": 10,
        "seed": 3,
        "exclude": {"rows": [{"A": 0.6, "B": 0.3, "C": 0.1}, {"A": 0.1, "B": 0.7, "C": 0.2}], "tolerance": 0.01},
        "constraints": [{"type": "linear", "coefficients": {"A": 1, "B": -1}, "op": "<=", "total": 0.3}],
        **kw,
    }


@pytest.mark.parametrize("algorithm", ["d_optimal", "i_optimal", "space_filling"])
def test_every_proposal_satisfies_every_constraint_and_avoids_exclusions(algorithm):
    spec = mixture_spec(algorithm=algorithm)
    r = make_design(spec)
    p = parse_problem(spec)
    X = points_from_rows(p.space, r["runs"], "runs")
    assert X.shape == (10, 3)
    assert np.all(np.abs(X.sum(axis=1) - 1) <= 1e-9)
    lo, hi = p.space.lo, p.space.hi
    assert np.all(X >= lo - 1e-9) and np.all(X <= hi + 1e-9)
    assert np.all(X[:, 0] - X[:, 1] <= 0.3 + 1e-9)
    for e in p.excluded:
        assert not np.any(np.all(np.abs(X - e) <= 0.01 * (hi - lo), axis=1))
    for row in r["runs"]:  # SPEC §9: at most 7 decimals
        for v in row.values():
            assert round(v, 7) == v
    assert r["criteria"]["d_efficiency"] > 0 and not r["criteria"]["singular"]


def test_reproducible_with_a_seed():
    a, b = make_design(mixture_spec()), make_design(mixture_spec())
    assert a["runs"] == b["runs"]
    c = make_design(mixture_spec(seed=4))
    assert c["criteria"]["d_efficiency"] == pytest.approx(a["criteria"]["d_efficiency"], rel=0.05)


def test_d_optimal_beats_random_designs_from_the_same_candidates():
    r = make_design(mixture_spec(exclude=None, constraints=[]))
    p = parse_problem(mixture_spec(exclude=None, constraints=[]))
    from mitate_engine.optimal_design.region import candidate_set

    cand = candidate_set(p.space, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    m = p.model
    best = 0
    for _ in range(300):
        F = m.matrix(cand[rng.choice(len(cand), 10, replace=False)])
        s, ld = np.linalg.slogdet(F.T @ F / 10)
        best = max(best, np.exp(ld / m.p) if s > 0 else 0)
    assert r["criteria"]["d_efficiency"] > best


def test_augmenting_keeps_existing_runs_and_improves_on_them():
    existing = [{"A": 0.6, "B": 0.35, "C": 0.05}, {"A": 0.3, "B": 0.2, "C": 0.5}, {"A": 0.1, "B": 0.7, "C": 0.2}]
    r = make_design(mixture_spec(existing=existing, n_runs=4, exclude=None, constraints=[]))
    assert r["existing"] == existing and len(r["runs"]) == 4
    assert r["criteria"]["runs"] == 7 and not r["criteria"]["singular"]


def test_scheffe_fit_matches_the_published_yarn_elongation_example():
    df = pd.read_csv(MIX / "yarn_elongation_cornell.csv")
    expected = json.loads((MIX / "expected_results.json").read_text())["yarn_elongation_cornell.csv"]
    names = ["x1_polyethylene", "x2_polystyrene", "x3_polypropylene"]
    sp = build_space([{"name": n, "type": "mixture", "low": 0, "high": 1} for n in names])
    m = build_model(sp, "scheffe_quadratic")
    f = fit(m, df[names].to_numpy(float), df["elongation"].to_numpy(float))
    got = {t["term"]: t for t in f["terms"]}
    rename = {"x1": names[0], "x2": names[1], "x3": names[2]}
    for key, value in expected["coefficients"].items():
        term = "*".join(rename[p] for p in key.split("*"))
        assert got[term]["estimate"] == pytest.approx(value, abs=1e-9)
        assert abs(got[term]["t"]) == pytest.approx(abs(expected["t_ratios"][key]), abs=0.01)
    assert got[names[0]]["std_error"] == pytest.approx(expected["std_errors"]["linear"], abs=1e-6)
    assert got[f"{names[0]}*{names[1]}"]["std_error"] == pytest.approx(expected["std_errors"]["binary"], abs=1e-6)
    assert f["r2"] == pytest.approx(expected["rsquare_mixture_corrected"], abs=1e-6)
    assert f["r2_adj"] == pytest.approx(expected["rsquare_adj_mixture_corrected"], abs=1e-6)
    assert f["rmse"] == pytest.approx(expected["rmse"], abs=1e-5)
    assert f["error_ss"] == pytest.approx(expected["error_ss"], abs=1e-9)


def test_snee_marquardt_runs_satisfy_their_bounds_and_gallant_row_6_is_flagged():
    df = pd.read_csv(MIX / "snee_marquardt_1976_constrained8.csv")
    bounds = [(0.10, 0.45), (0.05, 0.50), (0, 0.10), (0, 0.10), (0.10, 0.60), (0.05, 0.20), (0, 0.05), (0, 0.05)]
    vars8 = [{"name": f"x{i + 1}", "type": "mixture", "low": lo, "high": hi} for i, (lo, hi) in enumerate(bounds)]
    p = parse_problem({"variables": vars8, "existing": df.to_dict("records"), "responses": ["y"], "model": {"kind": "scheffe_linear"}})
    assert p.existing.shape == (20, 8)
    r = make_design({"variables": vars8, "model": {"kind": "scheffe_linear"}, "algorithm": "d_optimal", "n_runs": 12, "seed": 0})
    X = points_from_rows(p.space, r["runs"], "runs")
    assert np.all(np.abs(X.sum(axis=1) - 1) <= 1e-9)
    burn = pd.read_csv(MIX / "gallant2008_burn_rate.csv")
    bv = [
        {"name": "Course", "type": "mixture", "low": 0.4, "high": 0.71},
        {"name": "Fine", "type": "mixture", "low": 0.16, "high": 0.42},
        {"name": "Binder", "type": "mixture", "low": 0.13, "high": 0.21},
        {"name": "z", "type": "continuous", "low": -1, "high": 1},
    ]
    with pytest.raises(EngineError) as e:
        parse_problem({"variables": bv, "existing": burn.to_dict("records"), "responses": ["y"]})
    assert code(e.value) == "run_outside" and e.value.params["row"] == 4


def test_simplex_lattice_in_pseudocomponents_and_fits_etch_data():
    r = make_design(
        {
            "variables": [{"name": n, "type": "mixture", "low": 0, "high": 1} for n in "ABC"],
            "algorithm": "simplex_centroid",
            "model": {"kind": "scheffe_special_cubic"},
            "seed": 0,
        }
    )
    assert len(r["runs"]) == 7 and r["criteria"]["d_efficiency"] > 0
    lat = make_design(
        {
            "variables": MIX3[:2] + [{"name": "C", "type": "mixture", "low": 0.05, "high": 0.8}],
            "algorithm": "simplex_lattice",
            "model": {"kind": "scheffe_quadratic"},
            "parameters": {"degree": 2},
        }
    )
    assert len(lat["runs"]) == 6


@pytest.mark.parametrize("algorithm,runs", [("central_composite", 25), ("box_behnken", 25), ("full_factorial", 16), ("fractional_factorial", 16)])
def test_classical_designs(algorithm, runs):
    v = [{"name": n, "type": "continuous", "low": 0, "high": 10} for n in "ABCDE"[: (5 if algorithm == "fractional_factorial" else 4)]]
    r = make_design({"variables": v, "algorithm": algorithm, "model": {"kind": "linear"}, "parameters": {"resolution": 5, "center": 1}})
    assert len(r["runs"]) == runs


@pytest.mark.parametrize(
    "spec,expected",
    [
        (
            {"variables": [{"name": "A", "type": "mixture", "low": 0, "high": 0.3}, {"name": "B", "type": "mixture", "low": 0, "high": 0.3}]},
            "mixture_unreachable",
        ),
        ({"variables": BOX2, "constraints": [{"type": "linear", "coefficients": {"A": 1, "B": 1}, "op": ">=", "total": 3}]}, "infeasible"),
        ({"variables": BOX2, "model": {"kind": "quadratic"}, "n_runs": 4}, "too_few_runs"),
        ({"variables": BOX2, "existing": [{"A": 2, "B": 0}]}, "run_outside"),
        ({"variables": BOX2, "existing": [{"A": 0}]}, "file_missing_value"),
        ({"variables": BOX2, "exclude": {"rows": [{"A": 5, "B": 0}]}}, "exclude_outside"),
    ],
)
def test_bad_input_is_said_clearly(spec, expected):
    with pytest.raises(EngineError) as e:
        make_design({"algorithm": "d_optimal", "n_runs": 6, **spec})
    assert code(e.value) == expected


def test_infeasible_constraints_are_named():
    with pytest.raises(EngineError) as e:
        build_space(
            BOX2,
            [
                {"type": "linear", "coefficients": {"A": 1}, "op": "<=", "total": 0.5},
                {"type": "linear", "coefficients": {"A": 1, "B": 1}, "op": ">=", "total": 1.8},
                {"type": "linear", "coefficients": {"B": 1}, "op": "<=", "total": 0.9},
            ],
        )
    msg = e.value.params["constraints"]
    assert "A + B >= 1.8" in msg and "A <= 0.5" in msg


def test_bayesian_batch_proposes_feasible_new_points_near_the_optimum():
    rng = np.random.default_rng(0)
    sp = parse_problem(mixture_spec()).space
    from mitate_engine.optimal_design.region import uniform_sample

    X = uniform_sample(sp, 12, rng)
    y = 10 - 40 * (X[:, 0] - 0.45) ** 2 - 30 * (X[:, 2] - 0.3) ** 2
    runs = [{"A": a, "B": b, "C": c, "y": v} for (a, b, c), v in zip(X, y)]
    spec = {**mixture_spec(algorithm="bayesian", n_runs=4, existing=runs, responses=["y"]), "bo": {"response": "y", "direction": "maximize"}}
    r = make_design(spec)
    assert len(r["runs"]) == 4 and len(r["bo"]["mean"]) == 4 and all(s >= 0 for s in r["bo"]["sd"])
    P = points_from_rows(sp, r["runs"], "runs")
    assert np.all(np.abs(P.sum(axis=1) - 1) <= 1e-9)
    assert len({tuple(p) for p in P}) == 4
    # the first proposal is predicted better than the best run so far, or close to it
    assert r["bo"]["mean"][0] >= np.max(y) - 1.0
    with pytest.raises(EngineError) as e:
        make_design({**spec, "existing": runs[:2]})
    assert code(e.value) == "bo_too_few_runs"


def test_job_writes_result_and_csv(tmp_path):
    out = tmp_path / "out"
    events = []
    r = get_task("optimal_design").run({"output_dir": str(out), **mixture_spec()}, Context(events.append, out))
    assert json.loads((out / "result.json").read_text())["runs"] == r["runs"]
    lines = (out / "design.csv").read_text().strip().splitlines()
    assert lines[0] == "run,A,B,C" and len(lines) == 11
    ev = get_task("optimal_design").run(
        {"output_dir": str(out), "mode": "evaluate", **mixture_spec(), "our_design": r["runs"], "user_design": r["runs"][:8] + r["runs"][:2]},
        Context(events.append, out),
    )
    assert ev["ours"]["d_efficiency"] > ev["user"]["d_efficiency"]
    assert ev["ours"]["i_efficiency"] == 1.0


def test_bayesian_batch_with_a_trained_mitate_model_as_the_mean(tmp_path):
    """The trained model is loaded and run through the prediction job's code; a GP on its residuals gives the sd."""
    from mitate_engine.ml.trainer import prepare_project, train_model

    rng = np.random.default_rng(5)
    train = pd.DataFrame({"A": rng.uniform(0, 10, 200), "B": rng.uniform(0, 10, 200)})
    train["y"] = 2 * train.A - train.B + rng.normal(0, 0.1, 200)
    proj = prepare_project({"project_type": "regression", "target": "y", "features": ["A", "B"], "cv_folds": 2}, train)
    train_model(proj, "linear", {}, tmp_path / "m", lambda *a: None, lambda *a, **k: None, lambda s: None)
    variables = [{"name": "A", "type": "continuous", "low": 0, "high": 10}, {"name": "B", "type": "continuous", "low": 0, "high": 10}]
    runs = [{"A": a, "B": b, "y": 2 * a - b + 0.5} for a, b in [(1, 1), (3, 7), (5, 5), (8, 2), (2, 9)]]
    r = make_design(
        {
            "variables": variables,
            "model": {"kind": "linear"},
            "algorithm": "bayesian",
            "n_runs": 3,
            "seed": 0,
            "existing": runs,
            "responses": ["y"],
            "bo": {"response": "y", "direction": "maximize", "model_path": str(tmp_path / "m" / "model.joblib")},
        }
    )
    assert r["bo"]["surrogate"] == "gp_residual"
    best = max(r["runs"], key=lambda x: 2 * x["A"] - x["B"])
    assert 2 * best["A"] - best["B"] > 15  # the model's maximum is at A = 10, B = 0 (value 20)
    assert r["bo"]["mean"][0] > 15


# ---- a model the region cannot estimate is refused before any design (issue 30) -----------------------------


def _refused(spec: dict):
    with pytest.raises(EngineError) as e:
        make_design({"algorithm": "d_optimal", "n_runs": 12, "seed": 0, **spec})
    return e.value.as_dict()


def test_a_sum_that_ties_the_variables_refuses_a_quadratic_model_naming_the_terms():
    box3 = [{"name": n, "type": "continuous", "low": -1, "high": 1} for n in "ABC"]
    err = _refused({"variables": box3, "constraints": [{"type": "sum", "variables": ["A", "B", "C"], "op": "=", "total": 0}], "model": {"kind": "quadratic"}})
    assert err["code"] == "model_not_estimable"
    # on A + B + C = 0, C = -(A + B) and the three squares are combinations of the interactions
    assert err["params"]["terms"] == ["C", "A^2", "B^2", "C^2"] and err["params"]["equalities"] == ["A + B + C = 0"]
    # the same region with the terms it can estimate is accepted and not singular
    ok = make_design(
        {
            "variables": box3,
            "constraints": [{"type": "sum", "variables": ["A", "B", "C"], "op": "=", "total": 0}],
            "model": {"kind": "custom", "terms": ["1", "A", "B", "A*B", "A*C", "B*C"]},
            "algorithm": "d_optimal",
            "n_runs": 8,
            "seed": 0,
        }
    )
    assert not ok["criteria"]["singular"]


def test_an_inequality_that_pins_two_variables_is_named_as_the_equalities_it_implies():
    box3 = [{"name": n, "type": "continuous", "low": 0, "high": 1} for n in "ABC"]
    err = _refused(
        {"variables": box3, "constraints": [{"type": "linear", "coefficients": {"A": 1, "B": 1}, "op": ">=", "total": 2}], "model": {"kind": "quadratic"}}
    )
    assert err["code"] == "model_not_estimable"
    assert set(err["params"]["terms"]) == {"A", "B", "A*B", "A*C", "B*C", "A^2", "B^2"}
    assert err["params"]["equalities"] == ["A + B = 2", "A = 1", "B = 1"]


def test_a_square_of_a_two_level_variable_is_refused_for_its_levels_and_ordinary_regions_pass():
    err = _refused(
        {
            "variables": [{"name": "A", "type": "discrete", "levels": [0, 1]}, {"name": "B", "type": "continuous", "low": 0, "high": 1}],
            "model": {"kind": "custom", "terms": ["1", "A", "B", "A^2"]},
        }
    )
    assert err["code"] == "model_not_estimable_levels" and err["params"]["terms"] == ["A^2"]
    # a constrained box and a mixture are estimable and pass unchanged
    box3 = [{"name": n, "type": "continuous", "low": 0, "high": 1} for n in "ABC"]
    r = make_design(
        {
            "variables": box3,
            "constraints": [{"type": "linear", "coefficients": {"A": 1, "B": 1}, "op": "<=", "total": 1.5}],
            "model": {"kind": "quadratic"},
            "algorithm": "d_optimal",
            "n_runs": 12,
            "seed": 0,
        }
    )
    assert not r["criteria"]["singular"]
    assert not make_design(mixture_spec())["criteria"]["singular"]


def test_simplex_lattice_reads_fully_efficient_against_the_best_design_found():
    """Issue 33: the {3,2} lattice is the textbook D-optimal design for a Scheffé quadratic; its absolute D (4.2 %
    on the cube's scale) must not be the figure a person reads: relative to the best design found it is 100 %."""
    spec = {
        "variables": [{"name": n, "type": "mixture", "low": 0, "high": 1} for n in "ABC"],
        "mixture_total": 1,
        "model": {"kind": "scheffe_quadratic"},
        "algorithm": "simplex_lattice",
        "parameters": {"degree": 2},
        "seed": 1,
    }
    c = make_design(spec)["criteria"]
    assert c["d_efficiency"] == pytest.approx((1 / 6) * (1 / 16) ** (1 / 2), rel=1e-9)  # det(XᵀX/6)^(1/6), 3 vertices, 3 midpoints
    assert c["d_relative"] == pytest.approx(1.0, abs=1e-9)
    assert c["a_relative"] == pytest.approx(1.0, abs=1e-6)
    assert c["i_efficiency"] > 0.99  # an I-optimal search of 6 runs finds one a hair better (99.9 %)


def test_a_poor_design_reads_below_the_best_found():
    """A design of axial points only (no blends) with a quadratic mixture model beside a D-optimal one."""
    spec = mixture_spec(algorithm="space_filling", exclude={"rows": []}, constraints=[])
    c = make_design(spec)["criteria"]
    assert 0 < c["d_relative"] < 1 and 0 < c["a_relative"] <= 1
