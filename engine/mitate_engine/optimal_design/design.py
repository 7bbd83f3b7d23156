"""One design round from the project's settings: the algorithm, its checks and its figures.

Used by the `optimal_design` job (design and evaluate) and the benchmark, so every number comes from one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..lang import lang_of, say
from ..task import EngineError
from . import region as R
from .bo import propose_batch
from .classical import CLASSICAL, classical
from .criteria import evaluate, moment_matrix, relate
from .estimable import check_estimable
from .exchange import Search, coordinate_exchange, fedorov
from .fit import fit
from .model import Model, build_model
from .space import Space, build_space, format_value, points_from_rows, reason_text, round_points
from .spacefill import maximin_lhs, maximin_select, min_distance

OPTIMAL = ("d_optimal", "i_optimal")
ALGORITHMS = (*OPTIMAL, "space_filling", *CLASSICAL, "bayesian")
REGION_POINTS = 4000
RUN_TOL = 1e-6  # uploaded runs are measured values written with a few decimals
MAX_RUNS = 1000


@dataclass
class Problem:
    space: Space
    model: Model
    existing: np.ndarray
    responses: dict[str, np.ndarray]
    excluded: np.ndarray
    tolerance: float
    rng: np.random.Generator
    seed: int


def parse_problem(spec: dict) -> Problem:
    space = build_space(spec.get("variables") or [], spec.get("constraints") or [], spec.get("mixture_total"))
    m = spec.get("model") or {}
    model = build_model(space, m.get("kind") or "quadratic", m.get("terms"))
    seed = int(spec.get("seed") if spec.get("seed") is not None else 0)
    rng = np.random.default_rng(seed)
    rows = spec.get("existing") or []
    existing = points_from_rows(space, rows, "runs") if rows else np.zeros((0, space.k))
    for r, x in enumerate(existing):
        broken = space.reasons(x, RUN_TOL)
        if broken:
            text = "; ".join(reason_text(b) for b in broken)
            raise EngineError("run_outside", row=r + 1, constraints=text, reasons=broken)
    responses: dict[str, np.ndarray] = {}
    for name in spec.get("responses") or []:
        vals = []
        for row in rows:
            v = row.get(name)
            try:
                vals.append(float(v) if v not in (None, "") else np.nan)
            except (TypeError, ValueError):
                raise EngineError("response_not_number", response=name, value=str(v)) from None
        responses[name] = np.array(vals, dtype=float)
    ex = spec.get("exclude") or {}
    ex_rows = ex.get("rows") or []
    excluded = points_from_rows(space, ex_rows, "exclude") if ex_rows else np.zeros((0, space.k))
    for r, x in enumerate(excluded):
        outside = space.reasons(x, RUN_TOL, ranges_only=True)
        if outside:
            text = "; ".join(reason_text(b) for b in outside)
            raise EngineError("exclude_outside", row=r + 1, constraints=text, reasons=outside)
    tol = float(ex.get("tolerance") or 0.0)
    if not 0 <= tol < 1:
        raise EngineError("tolerance_range")
    return Problem(space, model, existing, responses, excluded, tol, rng, seed)


def excluded_mask(space: Space, X: np.ndarray, excluded: np.ndarray, tol: float) -> np.ndarray:
    """True for points within the tolerance (a fraction of each range) of an excluded point in every variable."""
    if not excluded.shape[0] or not X.shape[0]:
        return np.zeros(X.shape[0], dtype=bool)
    rng_ = np.where(space.hi > space.lo, space.hi - space.lo, 1.0)
    cat = np.zeros(space.k, dtype=bool)
    cat[space.categorical_idx] = True
    lim = np.where(cat, 0.0, np.maximum(tol, 1e-9) * rng_)
    out = np.zeros(X.shape[0], dtype=bool)
    for e in excluded:
        out |= np.all(np.abs(X - e) <= lim + 1e-12, axis=1)
    return out


def _need_runs(model: Model, n_new: int, n_old: int) -> None:
    if n_new + n_old < model.p:
        raise EngineError("too_few_runs", terms=model.p, runs=n_new + n_old, needed=max(1, model.p - n_old))


def _polish(p: Problem, X: np.ndarray, search: Search) -> np.ndarray:
    """Coordinate exchange from the point-exchange result: continuous coordinates move off the grid (box only)."""
    levels, cont = [], []
    for v in p.space.variables:
        if v.kind == "categorical":
            levels.append(np.arange(len(v.levels), dtype=float)), cont.append(False)
        elif v.kind == "discrete":
            levels.append(np.asarray(v.levels, dtype=float)), cont.append(False)
        else:
            levels.append(np.linspace(v.low, v.high, 21)), cont.append(True)
    F0 = p.model.matrix(p.existing) if p.existing.shape[0] else None
    Xp, _ = coordinate_exchange(p.model.matrix, levels, cont, X.shape[0], search, p.rng, F_fixed=F0, start=X, max_passes=5)
    return Xp


def optimal(
    p: Problem,
    n: int,
    criterion: str,
    candidates: np.ndarray,
    W: np.ndarray | None,
    starts: int,
    polish: bool = True,
    progress: Callable[[float], None] | None = None,
) -> tuple[np.ndarray, str]:
    search = Search(criterion, W)
    if candidates.shape[0] == 0:
        raise EngineError("no_candidates")
    F0 = p.model.matrix(p.existing) if p.existing.shape[0] else None
    idx, _ = fedorov(p.model.matrix(candidates), n, search, p.rng, F_fixed=F0, starts=starts, progress=progress)
    X = candidates[idx]
    if polish and not p.space.constrained and not p.excluded.shape[0] and any(v.kind == "continuous" for v in p.space.variables):
        return _polish(p, X, search), "fedorov_exchange+coordinate_exchange"
    return X, "fedorov_exchange"


def _trained_mean(bo: dict, space: Space) -> Callable[[np.ndarray], np.ndarray] | None:
    """A trained Mitate model's prediction as a function of design points, through the prediction job's code."""
    path = bo.get("model_path")
    if not path:
        return None
    import joblib
    import pandas as pd

    from ..tasks.predict import load_condition, predict_frame

    model = joblib.load(path)
    condition = load_condition(bo.get("condition_path"))
    missing = [f for f in model.features if f not in space.names]
    if missing:
        raise EngineError("bo_model_features", variable=missing[0])

    def predict(X: np.ndarray) -> np.ndarray:
        df = pd.DataFrame({v.name: [format_value(v, x) for x in X[:, i]] for i, v in enumerate(space.variables)})
        return predict_frame(model, df, condition).iloc[:, 0].to_numpy(dtype=float)

    return predict


def rows_of(space: Space, X: np.ndarray) -> list[dict]:
    return [{v.name: format_value(v, x[i]) for i, v in enumerate(space.variables)} for x in X]


def make_design(spec: dict, progress: Callable[[float, str], None] = lambda f, m: None) -> dict:
    p = parse_problem(spec)
    sp, model = p.space, p.model
    algorithm = spec.get("algorithm") or "d_optimal"
    if algorithm not in ALGORITHMS:
        raise EngineError("algorithm_unknown", algorithm=algorithm)
    n = int(spec.get("n_runs") or 0)
    if algorithm not in CLASSICAL and not 1 <= n <= MAX_RUNS:
        raise EngineError("runs_range", max=MAX_RUNS)
    starts = int(spec.get("starts") or 10)
    params = spec.get("parameters") or {}
    lang = lang_of(spec)  # what the person who started the job reads
    progress(0.05, say("job_candidate_points", lang))
    candidates = R.candidate_set(sp, p.rng, levels=int(params.get("levels") or 5))
    # a model the region cannot estimate is refused here, before any search, naming the terms and the reason
    check_estimable(sp, model, candidates)
    candidates = candidates[~excluded_mask(sp, candidates, p.excluded, p.tolerance)]
    region = R.uniform_sample(sp, REGION_POINTS, np.random.default_rng(p.seed + 1))
    W = moment_matrix(model, region)
    method = algorithm
    extra: dict = {}
    prog = lambda f: progress(0.1 + 0.7 * f, say("job_searching", lang))  # noqa: E731

    if algorithm in OPTIMAL:
        _need_runs(model, n, p.existing.shape[0])
        X, method = optimal(p, n, "D" if algorithm == "d_optimal" else "I", candidates, W, starts, progress=prog)
    elif algorithm == "space_filling":
        if not sp.constrained and not p.excluded.shape[0] and not p.existing.shape[0]:
            X, method = maximin_lhs(sp, n, p.rng), "maximin_latin_hypercube"
        else:
            pool = np.vstack([candidates, R.uniform_sample(sp, 3000, p.rng)])
            pool = pool[sp.feasible_mask(pool) & ~excluded_mask(sp, pool, p.excluded, p.tolerance)]
            X, method = pool[maximin_select(sp, pool, n, p.rng, p.existing)], "maximin_constrained"
    elif algorithm in CLASSICAL:
        # a quadratic model needs three levels of each continuous variable to estimate its squares
        square = any(len(t) == 2 and t[0] == t[1] for t in model.terms)
        X = classical(
            sp,
            algorithm,
            int(params.get("resolution") or 4),
            int(params.get("center") or 1),
            int(params.get("degree") or 2),
            int(params.get("factorial_levels") or (3 if square else 2)),
        )
        hits = excluded_mask(sp, X, p.excluded, p.tolerance)
        if hits.any():
            raise EngineError("classical_excluded", count=int(hits.sum()))
        n = X.shape[0]
    else:  # bayesian
        bo = spec.get("bo") or {}
        target = bo.get("response")
        if not target or target not in p.responses:
            raise EngineError("bo_response")
        pool = np.vstack([candidates, R.uniform_sample(sp, 3000, p.rng)])
        pool = sp.project(pool)
        pool = pool[sp.feasible_mask(pool) & ~excluded_mask(sp, pool, p.excluded, p.tolerance)]
        # a run already done is not proposed again
        pool = pool[~excluded_mask(sp, pool, p.existing, 1e-6)]
        if pool.shape[0] == 0:
            raise EngineError("no_candidates")
        progress(0.3, say("job_fitting_surrogate", lang))
        out = propose_batch(model.coded, p.existing, p.responses[target], pool, n, bo.get("direction", "maximize") != "minimize", p.seed, _trained_mean(bo, sp))
        X = pool[out.pop("indices")]
        extra["bo"] = {**out, "response": target, "direction": bo.get("direction", "maximize")}
        method = "expected_improvement_kriging_believer"

    progress(0.85, say("job_scoring_design", lang))
    X = round_points(sp, sp.project(X) if sp.mixture else X)
    bad = ~sp.feasible_mask(X)
    if bad.any():  # a bug, never the user's doing: refuse rather than propose an infeasible run
        raise RuntimeError(f"internal: {int(bad.sum())} proposals break {sp.violations(X[np.argmax(bad)])}")
    if excluded_mask(sp, X, p.excluded, p.tolerance).any():
        raise RuntimeError("internal: an excluded point was proposed")
    full = np.vstack([p.existing, X])
    scores = evaluate(model, full, np.vstack([candidates, region[:500]]), region)
    # Reference designs of the same size, model and region: D- and I-optimal searches (a few starts, no polish),
    # so that D, A and I read against the best design found rather than an unreachable orthogonal one.
    refs: list[dict] = []
    if not scores["singular"] and full.shape[0] >= model.p and candidates.shape[0]:
        for crit in ("D", "I"):
            if algorithm == ("d_optimal" if crit == "D" else "i_optimal"):
                continue  # this design is that search's result
            ref_p = Problem(sp, model, p.existing, {}, p.excluded, p.tolerance, np.random.default_rng(p.seed + 2), p.seed)
            Xr, _ = optimal(ref_p, X.shape[0], crit, candidates, W, 3, polish=False)
            refs.append(evaluate(model, np.vstack([p.existing, Xr]), candidates, region))
    if refs:
        relate([scores, *refs])
    else:  # nothing to compare with: no relative figures rather than a design measured against itself
        scores.update(d_relative=None, a_relative=None, i_efficiency=None, i_reference=None)
    fits = {}
    for name, y in p.responses.items():
        ok = np.isfinite(y)
        f = fit(model, p.existing[ok], y[ok]) if ok.sum() else None
        if f:
            fits[name] = f
    progress(1.0, say("job_done", lang))
    return {
        "algorithm": algorithm,
        "method": method,
        "model": {"kind": (spec.get("model") or {}).get("kind") or "quadratic", "terms": model.names},
        "variables": [{"name": v.name, "type": v.kind, "low": v.low, "high": v.high, "levels": v.levels} for v in sp.variables],
        "mixture_total": sp.mixture_total if sp.mixture else None,
        "existing": rows_of(sp, p.existing),
        "runs": rows_of(sp, X),
        "criteria": scores,
        "min_distance": min_distance(sp, full),
        "candidates": int(candidates.shape[0]),
        "region_points": REGION_POINTS,
        "excluded": int(p.excluded.shape[0]),
        "fits": fits,
        "seed": p.seed,
        **extra,
    }


def compare(spec: dict) -> dict:
    """A user's own design beside ours on the same criteria (same model, region and candidate points)."""
    p = parse_problem(spec)
    sp, model = p.space, p.model
    ours = points_from_rows(sp, spec.get("our_design") or [], "ours")
    rows = spec.get("user_design") or []
    if not rows:
        raise EngineError("evaluate_empty")
    user = points_from_rows(sp, rows, "design")
    outside = [(r + 1, sp.violations(x, RUN_TOL)) for r, x in enumerate(user)]
    outside = [(r, b) for r, b in outside if b]
    candidates = R.candidate_set(sp, p.rng)
    region = R.uniform_sample(sp, REGION_POINTS, np.random.default_rng(p.seed + 1))
    a = evaluate(model, np.vstack([p.existing, user]), candidates, region)
    b = evaluate(model, np.vstack([p.existing, ours]), candidates, region) if ours.shape[0] else None
    relate([a, b])  # each against the better of the two
    return {
        "user": a,
        "ours": b,
        "user_runs": len(rows),
        "user_outside": [{"row": r, "constraints": c} for r, c in outside[:20]],
        "model": {"terms": model.names},
    }
