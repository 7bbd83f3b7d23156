"""What a person reads after a search: ranked conditions, convergence, Pareto front, profiler and sensitivity."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .models import predict_targets, uncertainty  # noqa: F401 - re-exported for the tasks
from .objective import pareto_mask
from .problem import Problem
from .search import History

PROFILE_POINTS = 21
MAX_TRIALS_SHOWN = 1000
MAX_CONVERGENCE_POINTS = 500


def candidate_frame(p: Problem, h: History, rows: np.ndarray) -> pd.DataFrame:
    return p.space.frame(h.X[rows], {c: [v[i] for i in rows] for c, v in h.choices.items()})


def predictions(p: Problem, frame: pd.DataFrame) -> np.ndarray:
    return predict_targets(p.models, [t.name for t in p.targets], frame)


def extrapolated(p: Problem, frame: pd.DataFrame) -> list[list[str]]:
    out = [[] for _ in range(len(frame))]
    for f, (lo, hi) in p.ranges.items():
        if f not in frame.columns or f in [t.name for t in p.targets]:
            continue
        v = pd.to_numeric(frame[f], errors="coerce").to_numpy(dtype=float)
        for i in np.flatnonzero((v < lo) | (v > hi)):
            out[i].append(f)
    return out


def _row(p: Problem, frame: pd.DataFrame, Y: np.ndarray, i: int) -> dict:
    return {"features": {c: _plain(frame[c].iloc[i]) for c in p.features}, "predictions": {t.name: float(Y[i, j]) for j, t in enumerate(p.targets)}}


def _plain(v):
    return v.item() if hasattr(v, "item") else v


RANK_CELL = 0.01  # ranked conditions differ by at least this share of some range feature's span (or a level)


def ranked(p: Problem, h: History, top_k: int) -> list[dict]:
    """The best conditions, each the best of its cell: a local search leaves many near-copies of its best point
    (on a tree model all with the same prediction), which would fill the list and tell a person nothing new."""
    order = np.argsort(-h.objective, kind="stable")
    s = p.space
    cells = np.floor((h.X - s.lower) / np.where(s.upper > s.lower, s.upper - s.lower, 1.0) / RANK_CELL) if s.cont else h.X
    seen, rows = set(), []
    for i in order:
        if not np.isfinite(h.objective[i]):
            continue
        key = (tuple(cells[i]), tuple(str(v[i]) for v in h.choices.values()))
        if key in seen:
            continue
        seen.add(key)
        rows.append(i)
        if len(rows) >= top_k:
            break
    rows = np.array(rows, dtype=int)
    if not len(rows):
        return []
    frame = candidate_frame(p, h, rows)
    Y = predictions(p, frame)
    sds = {m.target: uncertainty(m, frame) for m in p.models}
    extra = extrapolated(p, frame)
    cons = p.space.constraint_values(h.X[rows]) if p.space.cont else {}
    out = []
    for r, i in enumerate(rows):
        item = _row(p, frame, Y, r)
        item.update(
            {
                "rank": r + 1,
                "evaluation": int(i) + 1,
                "objective": float(h.objective[i]),
                "uncertainty": {t.name: (float(sds[t.name][r]) if sds.get(t.name) is not None else None) for t in p.targets},
                "desirability": {t.name: float(t.desirability(Y[r : r + 1, j])[0]) for j, t in enumerate(p.targets)} if len(p.targets) > 1 else None,
                "extrapolation": extra[r],
                "constraints": {k: float(v[r]) for k, v in cons.items()},
            }
        )
        out.append(item)
    return out


def convergence(h: History) -> list[dict]:
    best = np.maximum.accumulate(np.where(np.isfinite(h.objective), h.objective, -np.inf))
    n = len(best)
    idx = np.unique(np.linspace(0, n - 1, min(n, MAX_CONVERGENCE_POINTS)).round().astype(int))
    return [{"evaluation": int(i) + 1, "best": float(best[i]), "value": float(h.objective[i])} for i in idx]


def pareto(p: Problem, h: History) -> list[dict]:
    if len(p.targets) < 2:
        return []
    ok = np.all(np.isfinite(h.scores), axis=1)
    rows = np.flatnonzero(ok)[pareto_mask(h.scores[ok])]
    rows = rows[np.argsort(-h.objective[rows], kind="stable")][:500]
    frame = candidate_frame(p, h, rows)
    Y = predictions(p, frame)
    return [{**_row(p, frame, Y, r), "evaluation": int(i) + 1, "objective": float(h.objective[i])} for r, i in enumerate(rows)]


def trials_sample(p: Problem, h: History, seed: int) -> list[dict]:
    n = len(h.objective)
    rows = np.arange(n) if n <= MAX_TRIALS_SHOWN else np.sort(np.random.default_rng(seed).choice(n, MAX_TRIALS_SHOWN, replace=False))
    frame = candidate_frame(p, h, rows)
    Y = predictions(p, frame)
    return [{**_row(p, frame, Y, r), "evaluation": int(i) + 1, "objective": float(h.objective[i])} for r, i in enumerate(rows)]


def profiler(p: Problem, best: dict) -> dict:
    """Each target as one feature moves over its range with the others held at the best condition (a slice, so
    points that break a constraint are marked, not repaired); sensitivity is the spread of the target on the slice."""
    if not best:
        return {"profiles": {}, "sensitivity": {}}
    base = best["features"]
    s = p.space
    profiles, sensitivity = {}, {}
    cont_idx = {c: i for i, c in enumerate(s.cont)}
    for f in [*s.cont, *s.discrete, *s.categorical]:
        if f in cont_idx:
            i = cont_idx[f]
            xs = list(np.linspace(s.lower[i], s.upper[i], PROFILE_POINTS))
            if f in s.integer:  # whole numbers, as the feature takes
                xs = list(np.unique(np.round(xs)))
        else:
            xs = list({**s.discrete, **s.categorical}[f])
        frame = pd.DataFrame([{**base, f: x} for x in xs])
        Y = predictions(p, frame)
        if s.cont:
            X = frame[s.cont].to_numpy(dtype=float)
            feasible = (s.violation(X) <= 1e-9).tolist()
        else:
            feasible = [True] * len(xs)
        profiles[f] = {"x": [_plain(x) for x in xs], "feasible": feasible, "targets": {t.name: [float(v) for v in Y[:, j]] for j, t in enumerate(p.targets)}}
        sensitivity[f] = {t.name: float(np.nanmax(Y[:, j]) - np.nanmin(Y[:, j])) for j, t in enumerate(p.targets)}
    return {"profiles": profiles, "sensitivity": sensitivity}
