"""Kind `optimize`: the input conditions that give the targets a person wants, from one or more trained models.

Spec: models [{key, path, condition_path}], parquet (training dataset, for the ranges the models have seen),
targets [{name, goal, value, lower, upper, weight}], features [{name, kind: range|discrete|fixed, lower, upper,
values, value, unit}], constraints [{name, type: sum|linear, features | coefficients, operator, value}],
algorithm (tpe|cmaes|nsga2|gp|random|grid), n_trials, seed, forbid_extrapolation, top_k, refine (default true),
output_dir. The algorithm proposes n_trials trials (SPEC §9's 10 by default); then, except for NSGA-II whose product
is the Pareto front, a refinement with a stated budget (optimization/refine.py) searches on from the best.
Writes trials.csv (every evaluation kept as a candidate) and best.csv (the ranked conditions) to output_dir.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..lang import lang_of, say
from ..optimization import report as R
from ..optimization.objective import overall, scores
from ..optimization.problem import build_problem
from ..optimization.refine import refine
from ..optimization.search import DEFAULT_ALGORITHM, collect, run_search
from ..task import Context, EngineError, Task

DEFAULT_TRIALS = 10  # SPEC §9


class Optimize(Task):
    kind = "optimize"

    def run(self, spec: dict, ctx: Context) -> dict:
        t0 = time.monotonic()
        lang = lang_of(spec)  # what the person who started the job reads
        ctx.progress(0.0, say("job_loading_models", lang))
        p = build_problem(spec)
        algorithm = spec.get("algorithm") or DEFAULT_ALGORITHM
        n = int(spec.get("n_trials") or DEFAULT_TRIALS)
        seed = int(spec.get("seed") or 0)
        names = [t.name for t in p.targets]
        model_seconds = [0.0]

        def evaluate(X: np.ndarray, choices: dict[str, list]):
            s = time.monotonic()
            Y = R.predict_targets(p.models, names, p.space.frame(X, choices))
            model_seconds[0] += time.monotonic() - s
            return overall(p.targets, Y), scores(p.targets, Y)

        ctx.log(
            f"{algorithm}: {n} evaluations of {len(p.models)} model(s), {len(p.space.cont)} range, "
            f"{len(p.space.discrete) + len(p.space.categorical)} discrete/categorical and {len(p.space.fixed)} fixed features, "
            f"{len(p.space.constraints)} constraint(s)"
        )
        t_search = time.monotonic()
        refining = spec.get("refine", True) is not False and algorithm != "nsga2"
        share = 0.3 if refining else 0.8
        h = run_search(
            p.space,
            algorithm,
            n,
            seed,
            evaluate,
            len(p.targets),
            lambda done: ctx.progress(0.05 + share * done / n, say("job_trials_done", lang, done=done, n=n)),
        )
        trials_done = len(h.X)
        refinement = None
        if refining:
            extra, info = refine(p.space, h, evaluate, seed, lambda f: ctx.progress(0.35 + 0.5 * f, say("job_refining", lang)))
            h = collect([h, extra])
            refinement = info.as_dict()
            ctx.log(
                f"refinement: {info.screen:,} screening, {info.local:,} local-search ({info.rounds} rounds from {info.starts} starts) "
                f"and {info.polish:,} SLSQP evaluations; best {info.improved_from} -> {info.improved_to}"
            )
        search_seconds = time.monotonic() - t_search
        ctx.progress(0.87, say("job_ranking", lang))
        violation = float(p.space.violation(h.X).max()) if p.space.cont and len(h.X) else 0.0
        best = R.ranked(p, h, int(spec.get("top_k") or 10))
        ctx.progress(0.92, say("job_profiling", lang))
        prof = R.profiler(p, best[0] if best else {})
        out = ctx.work_dir
        frame = R.candidate_frame(p, h, np.arange(len(h.X)))
        Y = R.predictions(p, frame)
        trials = pd.concat(
            [
                pd.DataFrame({"evaluation": np.arange(1, len(h.X) + 1), "objective": h.objective}),
                frame,
                pd.DataFrame({f"predicted_{t}": Y[:, j] for j, t in enumerate(names)}),
            ],
            axis=1,
        )
        trials.to_csv(out / "trials.csv", index=False)
        best_rows = [
            {
                "rank": b["rank"],
                **b["features"],
                **{f"predicted_{k}": v for k, v in b["predictions"].items()},
                **{f"uncertainty_{k}": v for k, v in b["uncertainty"].items()},
                "extrapolation": ";".join(b["extrapolation"]),
            }
            for b in best
        ]
        pd.DataFrame(best_rows).to_csv(out / "best.csv", index=False)
        extrap = R.extrapolated(p, frame)
        ctx.progress(1.0, say("job_done", lang))
        return {
            "algorithm": algorithm,
            "n_trials": n,
            "search_evaluations": trials_done,
            "evaluations": int(len(h.X)) + (refinement["gradient_points_outside"] if refinement else 0),
            "refinement": refinement,
            "implied_equalities": p.space.implied_equalities,
            "seed": seed,
            "seconds": time.monotonic() - t0,
            "search_seconds": search_seconds,
            "evaluations_per_second": len(h.X) / search_seconds if search_seconds > 0 else None,
            "model_seconds": model_seconds[0],
            "max_violation": violation,
            "extrapolated_share": float(np.mean([bool(e) for e in extrap])) if extrap else 0.0,
            "objective": "prediction" if len(p.targets) == 1 else "desirability",
            "targets": [
                {
                    "name": t.name,
                    "goal": t.goal,
                    "value": t.value,
                    "lower": t.lower,
                    "upper": t.upper,
                    "weight": t.weight,
                    "training_min": t.low,
                    "training_max": t.high,
                }
                for t in p.targets
            ],
            "features": [
                {
                    "name": f,
                    "kind": _kind(p, f),
                    "lower": _bound(p, f, 0),
                    "upper": _bound(p, f, 1),
                    "values": p.space.discrete.get(f) or p.space.categorical.get(f),
                    "value": p.space.fixed.get(f),
                    "unit": p.space.units.get(f),
                    "training_min": p.ranges.get(f, (None, None))[0],
                    "training_max": p.ranges.get(f, (None, None))[1],
                }
                for f in p.features
            ],
            "constraints": [{"name": c.name, "coefficients": c.coefficients, "operator": c.operator, "value": c.value} for c in p.space.constraints],
            "best": best,
            "convergence": R.convergence(h),
            "pareto": R.pareto(p, h),
            "trials": R.trials_sample(p, h, seed),
            **prof,
        }


def _kind(p, f: str) -> str:
    s = p.space
    return "range" if f in s.cont else "discrete" if f in s.discrete else "categorical" if f in s.categorical else "fixed"


def _bound(p, f: str, which: int):
    s = p.space
    if f in s.cont:
        i = s.cont.index(f)
        return float(s.lower[i] if which == 0 else s.upper[i])
    return None


class OptimizeCheck(Task):
    """Kind `optimize_check`: the same spec, only built (models loaded, rules and constraint feasibility checked),
    so the server can refuse bad settings before storing them."""

    kind = "optimize_check"

    def run(self, spec: dict, ctx: Context) -> dict:
        p = build_problem(spec)
        return {
            "features": p.features,
            "targets": [t.name for t in p.targets],
            "range_features": p.space.cont,
            "center": dict(zip(p.space.cont, map(float, p.space.center))),
        }


class OptimizePredict(Task):
    """Kind `optimize_predict`: given conditions (one dict of feature values each) through the project's models,
    with uncertainty, extrapolation flags and constraint values."""

    kind = "optimize_predict"

    def run(self, spec: dict, ctx: Context) -> dict:
        p = build_problem(spec)
        rows = spec.get("conditions") or []
        frame = pd.DataFrame([{f: r.get(f, p.space.fixed.get(f)) for f in p.features} for r in rows])
        for f in p.features:
            if f not in p.categories:
                bad = frame[f][pd.to_numeric(frame[f], errors="coerce").isna()]
                if len(bad):
                    raise EngineError("optimization.not_number", feature=f, value=str(bad.iloc[0]))
                frame[f] = pd.to_numeric(frame[f])
        Y = R.predictions(p, frame)
        sds = {m.target: R.uncertainty(m, frame) for m in p.models}
        extra = R.extrapolated(p, frame)
        X = frame[p.space.cont].to_numpy(dtype=float) if p.space.cont else np.zeros((len(frame), 0))
        viol = p.space.violation(X) if p.space.cont else np.zeros(len(frame))
        cons = p.space.constraint_values(X) if p.space.cont else {}
        return {
            "predictions": [
                {
                    "features": {f: R._plain(frame[f].iloc[i]) for f in p.features},
                    "predictions": {t.name: float(Y[i, j]) for j, t in enumerate(p.targets)},
                    "uncertainty": {t.name: (float(sds[t.name][i]) if sds.get(t.name) is not None else None) for t in p.targets},
                    "extrapolation": extra[i],
                    "feasible": bool(viol[i] <= 1e-9),
                    "constraints": {k: float(v[i]) for k, v in cons.items()},
                }
                for i in range(len(frame))
            ]
        }
