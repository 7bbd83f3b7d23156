"""Issue 12 benchmark: D- and I-efficiency of 16-run designs, ours beside pyDOE3's and a random search, same run.

Case 1: 4 factors on [-1, 1], quadratic model (15 terms): our D- and I-optimal designs; pyDOE3's DETMAX and
Fedorov D-optimal designs over the 3^4 and 5^4 grids; the best of N random 16-run subsets of the 5^4 grid.
Case 2: a constrained 4-component mixture (bounds plus x1 + x2 <= 0.8), Scheffé quadratic (10 terms): ours beside
a random search over the same candidate points (pyDOE3's models carry an intercept and cannot fit a Scheffé model).
Every design is scored by the same function (mitate_engine.optimal_design.criteria.evaluate) on the same region sample.
"""

import itertools
import json
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
from mitate_engine.optimal_design import region as R  # noqa: E402
from mitate_engine.optimal_design.criteria import evaluate  # noqa: E402
from mitate_engine.optimal_design.design import make_design, parse_problem  # noqa: E402
from mitate_engine.optimal_design.space import points_from_rows  # noqa: E402

QUICK = len(sys.argv) > 2 and sys.argv[2] == "quick"
RANDOM_TRIES = 2000 if QUICK else 20000
SEEDS = [0, 1] if QUICK else [0, 1, 2, 3, 4]


def score_all(spec: dict, designs: dict) -> dict:
    p = parse_problem(spec)
    cand = R.candidate_set(p.space, np.random.default_rng(99))
    region = R.uniform_sample(p.space, 4000, np.random.default_rng(98))
    out = {}
    for name, (X, seconds) in designs.items():
        c = evaluate(p.model, X, cand, region)
        out[name] = {
            "d_efficiency": c["d_efficiency"],
            "a_efficiency": c["a_efficiency"],
            "g_efficiency": c["g_efficiency"],
            "i_value": c["i_value"],
            "seconds": seconds,
        }
    best_i = min(v["i_value"] for v in out.values() if v["i_value"])
    for v in out.values():
        v["i_efficiency"] = best_i / v["i_value"] if v["i_value"] else None
    return out


def ours(spec: dict, algorithm: str) -> list:
    runs = []
    for seed in SEEDS:
        t0 = time.perf_counter()
        r = make_design({**spec, "algorithm": algorithm, "seed": seed})
        p = parse_problem(spec)
        runs.append((points_from_rows(p.space, r["runs"], "runs"), time.perf_counter() - t0, r["criteria"]["d_efficiency"]))
    return runs


def random_search(spec: dict, candidates: np.ndarray, n: int, rng: np.random.Generator):
    p = parse_problem(spec)
    t0 = time.perf_counter()
    best, best_d = None, -1.0
    for _ in range(RANDOM_TRIES):
        idx = rng.choice(len(candidates), n, replace=False)
        F = p.model.matrix(candidates[idx])
        s, ld = np.linalg.slogdet(F.T @ F / n)
        d = np.exp(ld / p.model.p) if s > 0 else 0.0
        if d > best_d:
            best, best_d = idx, d
    return candidates[best], time.perf_counter() - t0


def case_box() -> dict:
    from pyDOE3.doe_optimal import optimal_design

    spec = {"variables": [{"name": f"x{i + 1}", "type": "continuous", "low": -1, "high": 1} for i in range(4)], "model": {"kind": "quadratic"}, "n_runs": 16}
    designs = {}
    for algorithm in ("d_optimal", "i_optimal"):
        runs = ours(spec, algorithm)
        X, seconds, _ = max(runs, key=lambda r: r[2]) if algorithm == "d_optimal" else runs[0]
        designs[f"mitate_{algorithm}"] = (X, float(np.median([r[1] for r in runs])))
    for levels in (3, 5):
        grid = np.array(list(itertools.product(np.linspace(-1, 1, levels), repeat=4)))
        for method in ("detmax", "fedorov"):
            t0 = time.perf_counter()
            X, _ = optimal_design(grid, n_points=16, degree=2, criterion="D", method=method)
            designs[f"pydoe3_{method}_{levels}level"] = (np.asarray(X, float), time.perf_counter() - t0)
    grid5 = np.array(list(itertools.product(np.linspace(-1, 1, 5), repeat=4)))
    designs["random_search_5level"] = random_search(spec, grid5, 16, np.random.default_rng(0))
    return score_all(spec, designs)


def case_mixture() -> dict:
    bounds = [(0.1, 0.5), (0.1, 0.6), (0.05, 0.3), (0.0, 0.2)]
    spec = {
        "variables": [{"name": f"x{i + 1}", "type": "mixture", "low": lo, "high": hi} for i, (lo, hi) in enumerate(bounds)],
        "constraints": [{"type": "linear", "coefficients": {"x1": 1, "x2": 1}, "op": "<=", "total": 0.8}],
        "model": {"kind": "scheffe_quadratic"},
        "n_runs": 16,
    }
    designs = {}
    for algorithm in ("d_optimal", "i_optimal"):
        runs = ours(spec, algorithm)
        X, _, _ = runs[0]
        designs[f"mitate_{algorithm}"] = (X, float(np.median([r[1] for r in runs])))
    p = parse_problem(spec)
    cand = R.candidate_set(p.space, np.random.default_rng(0))
    designs["random_search_same_candidates"] = random_search(spec, cand, 16, np.random.default_rng(0))
    out = score_all(spec, designs)
    out["_candidates"] = int(len(cand))
    return out


print(
    json.dumps(
        {"box_4factor_quadratic_16runs": case_box(), "mixture_4component_constrained_16runs": case_mixture(), "random_tries": RANDOM_TRIES, "seeds": SEEDS}
    )
)
