"""The search: algorithms propose candidates, the space repairs them, the evaluator predicts them in batches.

Every algorithm works on the same box parameterisation (Optuna's ask/tell for TPE, CMA-ES, NSGA-II and GP-BO;
vectorised for random and grid) and every proposal is repaired into the feasible polytope before it is
evaluated, so the history an algorithm learns from holds only feasible, evaluated points. Seeded throughout.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..task import EngineError
from .space import Space

ALGORITHMS = ("tpe", "cmaes", "nsga2", "gp", "random", "grid")
DEFAULT_ALGORITHM = "tpe"

# Evaluate(X, choices) -> (objective per row, scores per row and target); objective is maximised
Evaluate = Callable[[np.ndarray, dict[str, list]], tuple[np.ndarray, np.ndarray]]


@dataclass
class History:
    X: np.ndarray  # repaired range features, one row per evaluation
    choices: dict[str, list]  # discrete and categorical values per evaluation
    objective: np.ndarray
    scores: np.ndarray


def run_search(
    space: Space, algorithm: str, n_trials: int, seed: int, evaluate: Evaluate, n_objectives: int, progress: Callable[[int], None] = lambda done: None
) -> History:
    if algorithm not in ALGORITHMS:
        raise EngineError("optimization.algorithm", algorithm=algorithm)
    if n_trials < 1:
        raise EngineError("optimization.trials")
    if algorithm == "random":
        return _random(space, n_trials, seed, evaluate, progress)
    if algorithm == "grid":
        return _grid(space, n_trials, evaluate, progress)
    return _optuna(space, algorithm, n_trials, seed, evaluate, n_objectives, progress)


def collect(parts: list[History]) -> History:
    """One history from several, in order."""
    keys = parts[0].choices.keys() if parts else []
    return History(
        np.vstack([p.X for p in parts]),
        {k: list(itertools.chain.from_iterable(p.choices[k] for p in parts)) for k in keys},
        np.concatenate([p.objective for p in parts]),
        np.vstack([p.scores for p in parts]),
    )


CHUNK = 4096  # candidates per model call: large enough to amortise the call, small enough for memory


def _random(space: Space, n: int, seed: int, evaluate: Evaluate, progress) -> History:
    rng = np.random.default_rng(seed)
    parts, done = [], 0
    while done < n:
        k = min(CHUNK, n - done)
        X = space.sample(k, rng)
        choices = {c: [vals[i] for i in rng.integers(0, len(vals), k)] for c, vals in {**space.discrete, **space.categorical}.items()}
        obj, sc = evaluate(X, choices)
        parts.append(History(X, choices, obj, sc))
        done += k
        progress(done)
    return collect(parts)


def grid_points(space: Space, n: int) -> tuple[np.ndarray, dict[str, list]]:
    """A full factorial: all discrete and categorical levels, as many equally spaced levels per range feature as
    the budget allows (at least 2); points outside the constraints are repaired and duplicates dropped."""
    levels_fixed = [list(v) for v in {**space.discrete, **space.categorical}.values()]
    n_fixed = math.prod(len(v) for v in levels_fixed) if levels_fixed else 1
    d = space.dim  # the grid spans the region's own directions (its affine hull)
    k = max(2, int((max(n, 1) / n_fixed) ** (1 / d))) if d else 1
    z_lo, z_hi = space.z_box() if d else (np.zeros(0), np.zeros(0))
    axes = [np.linspace(lo, hi, k) for lo, hi in zip(z_lo, z_hi)]
    cont = np.array(np.meshgrid(*axes, indexing="ij")).reshape(d, -1).T if d else np.zeros((1, 0))
    combos = list(itertools.product(*levels_fixed)) if levels_fixed else [()]
    X = np.repeat(space.from_z(cont) if d else np.repeat(space.center[None, :], len(cont), axis=0), len(combos), axis=0)
    names = list({**space.discrete, **space.categorical})
    choices = {c: [combo[j] for _ in range(len(cont)) for combo in combos] for j, c in enumerate(names)}
    # keep at most n points, spread evenly over the full grid
    if len(X) > n:
        pick = np.unique(np.linspace(0, len(X) - 1, n).round().astype(int))
        X = X[pick]
        choices = {c: [v[i] for i in pick] for c, v in choices.items()}
    key = np.round(X, 9)
    _, first = np.unique(
        np.column_stack([key, *[np.unique(np.asarray(v, dtype=str), return_inverse=True)[1] for v in choices.values()]]) if choices else key,
        axis=0,
        return_index=True,
    )
    first = np.sort(first)
    return X[first], {c: [v[i] for i in first] for c, v in choices.items()}


def _grid(space: Space, n: int, evaluate: Evaluate, progress) -> History:
    X, choices = grid_points(space, n)
    parts = []
    for s in range(0, len(X), CHUNK):
        sl = slice(s, s + CHUNK)
        ch = {c: v[sl] for c, v in choices.items()}
        obj, sc = evaluate(X[sl], ch)
        parts.append(History(X[sl], ch, obj, sc))
        progress(min(len(X), s + CHUNK))
    return collect(parts)


def _sampler(algorithm: str, seed: int, n_trials: int, space: Space):
    import optuna

    if algorithm == "tpe":
        # multivariate TPE models the features jointly (they interact through the constraints); a liar lets a batch differ
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True, n_startup_trials=min(10, max(3, n_trials // 5)))
    if algorithm == "cmaes":
        return optuna.samplers.CmaEsSampler(
            seed=seed,
            n_startup_trials=min(10, max(1, n_trials // 10)),
            warn_independent_sampling=False,
            independent_sampler=optuna.samplers.RandomSampler(seed=seed),
        )
    if algorithm == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=_population(n_trials))
    return optuna.samplers.GPSampler(seed=seed, n_startup_trials=min(10, max(2, n_trials // 5)))


def _population(n_trials: int) -> int:
    return int(min(50, max(4, n_trials // 10)))


def _batch(algorithm: str, n_trials: int, d: int) -> int:
    if algorithm == "nsga2":
        return _population(n_trials)
    if algorithm == "cmaes":
        return 4 + int(3 * math.log(max(d, 1)))
    if algorithm == "tpe" and n_trials > 200:
        return 16
    return 1


def _optuna(space: Space, algorithm: str, n: int, seed: int, evaluate: Evaluate, n_objectives: int, progress) -> History:
    import optuna
    from optuna.distributions import CategoricalDistribution, FloatDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    directions = ["maximize"] * (n_objectives if algorithm == "nsga2" else 1)
    study = optuna.create_study(directions=directions, sampler=_sampler(algorithm, seed, n, space))
    # range features as the hull's coordinates (the features themselves when no direction is tied)
    z_lo, z_hi = space.z_box() if space.dim else (np.zeros(0), np.zeros(0))
    z_names = list(space.cont) if space.untied() else [f"z{j}" for j in range(space.dim)]
    dists = {c: FloatDistribution(float(lo), float(hi)) for c, lo, hi in zip(z_names, z_lo, z_hi) if hi > lo}
    z_fixed = {c: float(lo) for c, lo, hi in zip(z_names, z_lo, z_hi) if not hi > lo}
    dists.update({c: CategoricalDistribution([float(v) for v in vals]) for c, vals in space.discrete.items()})
    dists.update({c: CategoricalDistribution(list(vals)) for c, vals in space.categorical.items()})
    batch = _batch(algorithm, n, len(space.cont))
    parts, done = [], 0
    while done < n:
        k = min(batch, n - done)
        trials = [study.ask(dists) for _ in range(k)]
        Z = np.array([[t.params[c] if c in t.params else z_fixed[c] for c in z_names] for t in trials]).reshape(k, len(z_names))
        X = space.from_z(Z) if space.dim else np.repeat(space.center[None, :], k, axis=0)
        choices = {c: [t.params[c] for t in trials] for c in [*space.discrete, *space.categorical]}
        obj, sc = evaluate(X, choices)
        for i, t in enumerate(trials):
            value = [float(v) for v in sc[i]] if algorithm == "nsga2" else float(obj[i])
            if not np.all(np.isfinite(value)):
                study.tell(t, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(t, value)
        parts.append(History(X, choices, obj, sc))
        done += k
        progress(done)
    return collect(parts)
