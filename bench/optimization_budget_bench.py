"""Issue 30: the optimisation's default budget on models trained through the product.

1. LP-verifiable: a linear-regression model of y = 3a + b + 2c - d (+ a fifth case per implied-equality set); the
   true constrained optimum is a linear programme on the model's own coefficients (read back by evaluating it).
   Gap = (LP optimum - best found) / (the target's range over the box). Goal: the default run (the wizard's
   settings: TPE, 10 trials) within 1 % in at most 5 s of search.
2. Tree model: a random forest on uci_concrete (maximise strength, cost <= 40). The default run beside long runs of
   batched random search and CMA-ES on the same model, space and seeds. Goal: the default matches the best of them.
Peers in the same run: the previous default (the algorithm's 10 trials alone) and CMA-ES with 10 trials.
"""

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import linprog

sys.path.insert(0, sys.argv[1])
from mitate_engine.ml.trainer import prepare_project, train_model  # noqa: E402
from mitate_engine.optimization.models import predict_targets  # noqa: E402
from mitate_engine.optimization.objective import overall, scores  # noqa: E402
from mitate_engine.optimization.problem import build_problem  # noqa: E402
from mitate_engine.optimization.search import run_search  # noqa: E402
from mitate_engine.task import Context, get_task  # noqa: E402

quick = sys.argv[3] == "quick"
csv = sys.argv[2]
SEEDS = [0, 1] if quick else [0, 1, 2, 3, 4]
tmp = Path(tempfile.mkdtemp())
quiet = (lambda *a: None, lambda *a, **k: None, lambda s: None)


def train(df: pd.DataFrame, target: str, algorithm: str, params: dict, name: str) -> str:
    feats = [c for c in df.columns if c != target]
    proj = prepare_project({"project_type": "regression", "target": target, "features": feats, "cv_folds": 2, "split_ratio": 0.85}, df)
    train_model(proj, algorithm, params, tmp / name, *quiet)
    return str(tmp / name / "model.joblib")


def run(spec: dict, **over) -> dict:
    s = {**spec, **over, "output_dir": str(tmp / "out")}
    (tmp / "out").mkdir(exist_ok=True)
    c0 = time.process_time()
    res = get_task("optimize").run(s, Context(lambda e: None, tmp / "out"))
    res["_cpu_seconds"] = time.process_time() - c0  # the whole task's CPU time: wall time varies with a shared machine's load
    return res


# ---- 1. linear, LP-verifiable ---------------------------------------------------------------------------------
rng = np.random.default_rng(0)
W = np.array([3.0, 1.0, 2.0, -1.0])
X = rng.uniform(0, 10, (400, 4))
lin = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(y=X @ W + 5.0)
lin.to_parquet(tmp / "lin.parquet")
lin_model = train(lin, "y", "linear", {}, "lin")
BOX = {"a": (0, 10), "b": (0, 10), "c": (0, 10), "d": (0, 10)}
CASES = {
    "sum_and_linear (the issue's 4-input case)": [
        {"name": "sum", "type": "sum", "features": ["a", "b", "c", "d"], "operator": "=", "value": 20},
        {"name": "lin", "type": "linear", "coefficients": {"a": 2, "b": 1, "c": -1}, "operator": "<=", "value": 12},
    ],
    "sum = 12 with a >= that pins c to its bound": [
        {"name": "sum", "type": "sum", "features": ["a", "b", "c"], "operator": "=", "value": 12},
        {"name": "ge", "type": "linear", "coefficients": {"a": 1, "b": 1}, "operator": ">=", "value": 12},
    ],
    "a - b <= 0 with a - b >= 0": [
        {"name": "le", "type": "linear", "coefficients": {"a": 1, "b": -1}, "operator": "<=", "value": 0},
        {"name": "ge", "type": "linear", "coefficients": {"a": 1, "b": -1}, "operator": ">=", "value": 0},
    ],
    "a + b = 10 with a <= 5 and b <= 5": [
        {"name": "sum", "type": "sum", "features": ["a", "b"], "operator": "=", "value": 10},
        {"name": "a5", "type": "linear", "coefficients": {"a": 1}, "operator": "<=", "value": 5},
        {"name": "b5", "type": "linear", "coefficients": {"b": 1}, "operator": "<=", "value": 5},
    ],
}
lin_spec = {
    "models": [{"key": "lin", "path": lin_model}],
    "parquet": str(tmp / "lin.parquet"),
    "targets": [{"name": "y", "goal": "maximize"}],
    "features": [{"name": f, "kind": "range", "lower": lo, "upper": hi} for f, (lo, hi) in BOX.items()],
}
p = build_problem({**lin_spec, "constraints": []})
names = ["y"]
base = np.full((1, 4), 5.0)
f0 = predict_targets(p.models, names, p.space.frame(base, {}))[0, 0]
coef = np.array([predict_targets(p.models, names, p.space.frame(base + np.eye(4)[i], {}))[0, 0] - f0 for i in range(4)])
lo = np.array([v[0] for v in BOX.values()], float)
hi = np.array([v[1] for v in BOX.values()], float)
target_range = float(np.abs(coef) @ (hi - lo))
linear = {}
for case, cons in CASES.items():
    sp = build_problem({**lin_spec, "constraints": cons}).space
    lp = linprog(
        -coef,
        A_ub=sp.A_ub if len(sp.b_ub) else None,
        b_ub=sp.b_ub if len(sp.b_ub) else None,
        A_eq=sp.A_eq if len(sp.b_eq) else None,
        b_eq=sp.b_eq if len(sp.b_eq) else None,
        bounds=list(zip(lo, hi)),
    )
    opt = float(-lp.fun + (f0 - coef @ base[0]))
    rows = {}
    for label, over in {
        "default (tpe, 10 trials + refinement)": {},
        "previous default (tpe, 10 trials)": {"refine": False},
        "cmaes, 10 trials": {"algorithm": "cmaes", "refine": False},
    }.items():
        gaps, secs, evals, cpu = [], [], [], []
        for seed in SEEDS:
            res = run({**lin_spec, "constraints": cons}, seed=seed, **over)
            best = res["best"][0]["predictions"]["y"]
            gaps.append((opt - best) / target_range)
            secs.append(res["search_seconds"])
            evals.append(res["evaluations"])
            cpu.append(res["_cpu_seconds"])
            assert res["max_violation"] <= 1e-9
        rows[label] = {
            "gap_share_of_range_max": float(max(gaps)),
            "gap_share_of_range_mean": float(np.mean(gaps)),
            "search_seconds_max": float(max(secs)),
            "task_cpu_seconds_max": float(max(cpu)),
            "evaluations": int(max(evals)),
        }
    d = rows["default (tpe, 10 trials + refinement)"]
    linear[case] = {
        "lp_optimum": opt,
        "implied_equalities": sp.implied_equalities,
        **rows,
        # the accuracy goal, and the 5 s goal both in wall-clock search seconds and in the task's CPU seconds (on a
        # shared machine under load the wall clock measures the neighbours as much as the search)
        "accuracy_goal_met": bool(d["gap_share_of_range_max"] <= 0.01),
        "within_5_s_wall": bool(d["search_seconds_max"] <= 5),
        "within_5_s_cpu": bool(d["task_cpu_seconds_max"] <= 5),
    }

# ---- 2. a tree model -----------------------------------------------------------------------------------------
df = pd.read_csv(csv)
df.to_parquet(tmp / "concrete.parquet")
T = "compressive_strength_mpa"
feats = [c for c in df.columns if c != T]
rf_model = train(df, T, "random_forest", {"n_estimators": 100}, "rf")
tree_spec = {
    "models": [{"key": "rf", "path": rf_model}],
    "parquet": str(tmp / "concrete.parquet"),
    "targets": [{"name": T, "goal": "maximize"}],
    "features": [{"name": f, "kind": "range", "lower": float(df[f].min()), "upper": float(df[f].max())} for f in feats],
    "constraints": [
        {
            "name": "cost",
            "type": "linear",
            "coefficients": {"cement": 0.1, "blast_furnace_slag": 0.05, "superplasticizer": 1.0},
            "operator": "<=",
            "value": 40.0,
        }
    ],
}
tp = build_problem(tree_spec)


def evaluate(X, choices):
    Y = predict_targets(tp.models, [T], tp.space.frame(X, choices))
    return overall(tp.targets, Y), scores(tp.targets, Y)


LONG_RANDOM = 50_000 if quick else 200_000
LONG_CMAES = 1000 if quick else 3000
tree = {"model": "random forest (100 trees) on uci_concrete, 8 inputs", "problem": "maximise strength, cost <= 40", "runs": {}}
for seed in SEEDS:
    res = run(tree_spec, seed=seed)
    row = {
        "default": res["best"][0]["predictions"][T],
        "default_search_seconds": res["search_seconds"],
        "default_task_cpu_seconds": res["_cpu_seconds"],
        "default_evaluations": res["evaluations"],
    }
    t0 = time.perf_counter()
    h = run_search(tp.space, "random", LONG_RANDOM, seed, evaluate, 1)
    row[f"random_{LONG_RANDOM}"] = float(h.objective.max())
    row["random_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    h = run_search(tp.space, "cmaes", LONG_CMAES, seed, evaluate, 1)
    row[f"cmaes_{LONG_CMAES}"] = float(h.objective.max())
    row["cmaes_seconds"] = time.perf_counter() - t0
    row["previous_default"] = run(tree_spec, seed=seed, refine=False)["best"][0]["predictions"][T]
    tree["runs"][str(seed)] = row
span = float(df[T].max() - df[T].min())
best_default = [r["default"] for r in tree["runs"].values()]
best_peer = [max(r[f"random_{LONG_RANDOM}"], r[f"cmaes_{LONG_CMAES}"]) for r in tree["runs"].values()]
tree["default_minus_best_long_run_share_of_range"] = [float((a - b) / span) for a, b in zip(best_default, best_peer)]
tree["default_search_seconds_max"] = float(max(r["default_search_seconds"] for r in tree["runs"].values()))
# "matches": no seed more than 0.1 % of the target's training range below the best long run
tree["default_task_cpu_seconds_max"] = float(max(r["default_task_cpu_seconds"] for r in tree["runs"].values()))
tree["accuracy_goal_met"] = bool(min(tree["default_minus_best_long_run_share_of_range"]) >= -0.001)
tree["within_5_s_wall"] = bool(tree["default_search_seconds_max"] <= 5)
tree["within_5_s_cpu"] = bool(tree["default_task_cpu_seconds_max"] <= 5)
cases = [*linear.values(), tree]
print(
    json.dumps(
        {
            "seeds": SEEDS,
            "linear": linear,
            "tree": tree,
            "accuracy_goal_met": all(c["accuracy_goal_met"] for c in cases),
            "within_5_s_wall": all(c["within_5_s_wall"] for c in cases),
            "within_5_s_cpu": all(c["within_5_s_cpu"] for c in cases),
        }
    )
)
