// Issue 11 benchmark, on a LightGBM model of uci_concrete (maximise strength, cost ≤ 40, every input within its data range).
// 1. Sample efficiency: best feasible strength per number of model evaluations, our default (multivariate TPE with
//    exact constraint repair) against plain Optuna TPE with its defaults (the constraint given as Optuna's own
//    constraints_func), same model, bounds, constraint and seeds, in the same run. Goal: our default reaches
//    Optuna-default's final value in a quarter of the evaluations.
// 2. Speed: evaluations per second of the LightGBM model through the optimize task (random search, batched). Goal ≥ 5,000/s.
// --quick: 3 seeds × 100 evaluations and 10,000 evaluations for speed (the full run: 5 seeds × 200, 50,000).
import path from 'node:path';
import { python, ROOT, writeResult } from './lib.mjs';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const SEEDS = QUICK ? 3 : 5;
const N = QUICK ? 100 : 200;
const SPEED_N = QUICK ? 10_000 : 50_000;
const CSV = path.resolve(ROOT, '..', 'shared', 'data', 'uci_concrete', 'concrete_data.csv');

const code = String.raw`
import json, sys, time, tempfile
from pathlib import Path
import numpy as np, pandas as pd, optuna
sys.path.insert(0, str(Path(sys.argv[1]) / "engine"))
from mitate_engine.ml.trainer import prepare_project, train_model
from mitate_engine.task import Context, get_task
from mitate_engine.optimization.problem import build_problem
from mitate_engine.optimization.search import run_search, DEFAULT_ALGORITHM
from mitate_engine.optimization.objective import overall, scores
from mitate_engine.optimization.models import predict_targets

csv, seeds, n, speed_n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
optuna.logging.set_verbosity(optuna.logging.WARNING)
tmp = Path(tempfile.mkdtemp())
df = pd.read_csv(csv)
df.to_parquet(tmp / "d.parquet")
T = "compressive_strength_mpa"
feats = [c for c in df.columns if c != T]
proj = prepare_project({"project_type": "regression", "target": T, "features": feats, "cv_folds": 2, "split_ratio": 0.85}, df)
train_model(proj, "lightgbm", {"n_estimators": 300}, tmp / "m", lambda *a: None, lambda *a, **k: None, lambda s: None)
COST = {"cement": 0.1, "blast_furnace_slag": 0.05, "superplasticizer": 1.0}
spec = {"models": [{"key": "lgbm", "path": str(tmp / "m" / "model.joblib")}], "parquet": str(tmp / "d.parquet"),
        "targets": [{"name": T, "goal": "maximize"}],
        "features": [{"name": f, "kind": "range", "lower": float(df[f].min()), "upper": float(df[f].max())} for f in feats],
        "constraints": [{"name": "cost", "type": "linear", "coefficients": COST, "operator": "<=", "value": 40.0}]}
p = build_problem(spec)
names = [T]

def evaluate(X, choices):
    Y = predict_targets(p.models, names, p.space.frame(X, choices))
    return overall(p.targets, Y), scores(p.targets, Y)

def ours(seed):
    h = run_search(p.space, DEFAULT_ALGORITHM, n, seed, evaluate, 1)
    assert p.space.violation(h.X).max() <= 1e-9
    return np.maximum.accumulate(h.objective)

def optuna_default(seed):
    lo, hi = p.space.lower, p.space.upper
    def cost(x): return sum(a * x[p.space.cont.index(f)] for f, a in COST.items())
    def objective(trial):
        x = np.array([trial.suggest_float(f, lo[i], hi[i]) for i, f in enumerate(p.space.cont)])
        trial.set_user_attr("c", cost(x) - 40.0)
        return float(evaluate(x[None, :], {})[0][0])
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed, constraints_func=lambda t: [t.user_attrs["c"]]))
    study.optimize(objective, n_trials=n)
    vals = np.array([t.value if t.user_attrs["c"] <= 0 else -np.inf for t in study.trials])
    return np.maximum.accumulate(vals)

t0 = time.perf_counter(); ours_curves = np.array([ours(s) for s in range(seeds)]); t_ours = time.perf_counter() - t0
t0 = time.perf_counter(); opt_curves = np.array([optuna_default(s) for s in range(seeds)]); t_opt = time.perf_counter() - t0
ours_mean, opt_mean = ours_curves.mean(axis=0), opt_curves.mean(axis=0)
target_value = float(opt_mean[-1])
reach = [int(np.argmax(c >= opt_curves[i, -1]) + 1) if (c >= opt_curves[i, -1]).any() else None for i, c in enumerate(ours_curves)]
mean_reach = np.argmax(ours_mean >= target_value) + 1 if (ours_mean >= target_value).any() else None
fin = lambda v: float(v) if np.isfinite(v) else None  # no feasible point yet
marks = sorted({m for m in (10, 25, 50, 100, 150, 200) if m <= n} | {n})

spec_speed = {**spec, "algorithm": "random", "n_trials": speed_n, "seed": 0, "output_dir": str(tmp / "speed")}
res = get_task("optimize").run(spec_speed, Context(lambda e: None, tmp / "speed"))
print(json.dumps({
    "model": "LightGBM (300 trees) on uci_concrete, 8 inputs",
    "problem": "maximise compressive strength; every input within its data range; 0.1*cement + 0.05*slag + superplasticizer <= 40",
    "seeds": seeds, "evaluations": n, "our_algorithm": DEFAULT_ALGORITHM + " (multivariate, constraint repair)",
    "peer": "optuna.samplers.TPESampler defaults, constraint as constraints_func",
    "best_by_evaluations": {str(m): {"ours": fin(ours_mean[m - 1]), "optuna_default": fin(opt_mean[m - 1])} for m in marks},
    "optuna_default_final": fin(target_value), "ours_final": fin(ours_mean[-1]),
    "ours_evaluations_to_reach_optuna_final_mean_curve": None if mean_reach is None else int(mean_reach),
    "ours_evaluations_to_reach_optuna_final_per_seed": reach,
    "goal_quarter_met": bool(mean_reach is not None and mean_reach <= n / 4),
    "seconds": {"ours": t_ours, "optuna_default": t_opt},
    "speed": {"evaluations": res["evaluations"], "search_seconds": res["search_seconds"], "evaluations_per_second": res["evaluations_per_second"],
              "model_seconds": res["model_seconds"], "max_violation": res["max_violation"], "goal_5000_per_s_met": bool(res["evaluations_per_second"] >= 5000)},
}))
`;

const result = python(code, [ROOT, CSV, String(SEEDS), String(N), String(SPEED_N)]);
writeResult('optimization', { quick: QUICK, ...result });
