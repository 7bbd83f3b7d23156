"""After the algorithm's trials: a refinement with a real budget, because a model evaluation costs well under a
millisecond when candidates are predicted in batches.

Three stages, all inside the feasible region (its affine hull, repaired), each with a stated number of evaluations:
1. screening: SCREEN random feasible candidates (discrete and categorical levels drawn at random), in batches;
2. local search: from the STARTS best distinct candidates so far, a batched pattern search in the hull coordinates
   (± each axis and random directions, step halved on failure; other levels of discrete and categorical features
   tried too), all starts in one model call per round, at most LOCAL_ROUNDS rounds. It needs no gradient, so it
   also climbs tree models' piecewise-constant surfaces;
3. polish: SLSQP from the best few, in hull coordinates with every inequality that still binds as a linear
   constraint and a forward-difference gradient evaluated as one batch: on smooth models (linear, GP, networks)
   it lands on the constrained optimum; on trees the gradient is zero and it stops at once.
Every evaluation is kept in the history the report ranks, so "evaluations" counts them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .search import CHUNK, Evaluate, History, collect
from .space import Space

SCREEN = 8192
STARTS = 8
LOCAL_ROUNDS = 30
DIRECTIONS = 12  # random directions per start and round, beside ± each hull axis
POLISH_STARTS = 2
POLISH_ITERATIONS = 40


@dataclass
class Refinement:
    screen: int = 0
    local: int = 0
    polish: int = 0
    discarded: int = 0  # difference points outside the region: evaluated for a gradient, not kept as candidates
    starts: int = 0
    rounds: int = 0
    improved_from: float | None = None  # the best objective before the refinement
    improved_to: float | None = None

    def as_dict(self) -> dict:
        return {
            "screen_evaluations": self.screen,
            "local_evaluations": self.local,
            "polish_evaluations": self.polish,
            "gradient_points_outside": self.discarded,
            "starts": self.starts,
            "local_rounds": self.rounds,
            "best_before": self.improved_from,
            "best_after": self.improved_to,
        }


def _choice_names(space: Space) -> list[str]:
    return [*space.discrete, *space.categorical]


def _levels(space: Space) -> dict[str, list]:
    return {**space.discrete, **space.categorical}


def _evaluate_all(evaluate: Evaluate, X: np.ndarray, choices: dict[str, list]) -> History:
    parts = []
    for s in range(0, len(X), CHUNK):
        sl = slice(s, s + CHUNK)
        ch = {c: v[sl] for c, v in choices.items()}
        obj, sc = evaluate(X[sl], ch)
        parts.append(History(X[sl], ch, np.asarray(obj, dtype=float), np.asarray(sc, dtype=float)))
    return collect(parts)


def _best_distinct(h: History, k: int) -> list[int]:
    order = np.argsort(-np.where(np.isfinite(h.objective), h.objective, -np.inf), kind="stable")
    seen, out = set(), []
    for i in order:
        if not np.isfinite(h.objective[i]):
            break
        key = (tuple(np.round(h.X[i], 9)), tuple(str(v[i]) for v in h.choices.values()))
        if key in seen:
            continue
        seen.add(key)
        out.append(int(i))
        if len(out) >= k:
            break
    return out


def refine(space: Space, found: History, evaluate: Evaluate, seed: int, progress: Callable[[float], None] = lambda f: None) -> tuple[History, Refinement]:
    """The refinement's own evaluations (to append to the algorithm's) and what was done."""
    rng = np.random.default_rng(seed + 7919)
    info = Refinement()
    finite = found.objective[np.isfinite(found.objective)]
    info.improved_from = float(finite.max()) if len(finite) else None
    levels = _levels(space)
    names = _choice_names(space)
    parts: list[History] = []

    # 1. screening
    X = space.sample(SCREEN, rng) if space.cont else np.zeros((SCREEN, 0))
    choices = {c: [levels[c][i] for i in rng.integers(0, len(levels[c]), SCREEN)] for c in names}
    parts.append(_evaluate_all(evaluate, X, choices))
    info.screen = SCREEN
    progress(0.3)

    # 2. batched pattern search from the best distinct candidates
    pool = collect([found, *parts])
    starts = _best_distinct(pool, STARTS)
    info.starts = len(starts)
    k = space.dim
    z_lo, z_hi = space.z_box() if k else (np.zeros(0), np.zeros(0))
    span = np.maximum(z_hi - z_lo, 1e-12)
    Z = space.to_z(pool.X[starts]) if k else np.zeros((len(starts), 0))
    ch = [{c: pool.choices[c][i] for c in names} for i in starts]
    f = pool.objective[starts].copy()
    step = np.full(len(starts), 0.2)  # a share of each hull coordinate's range
    for r in range(LOCAL_ROUNDS):
        active = np.flatnonzero(step > 1e-6)
        if not len(active):
            break
        info.rounds = r + 1
        rows_z, rows_ch, owner = [], [], []
        for s in active:
            moves = []
            if k:
                eye = np.eye(k) * span * step[s]
                moves += [eye, -eye, rng.normal(size=(DIRECTIONS, k)) * span * step[s] / np.sqrt(k)]
                cand = Z[s] + np.vstack(moves)
                rows_z.append(cand)
                rows_ch += [ch[s]] * len(cand)
                owner += [s] * len(cand)
            for c in names:  # another level of one discrete or categorical feature, the rest held
                for v in levels[c]:
                    if v != ch[s][c]:
                        rows_z.append(Z[s][None, :])
                        rows_ch.append({**ch[s], c: v})
                        owner.append(s)
        if not owner:
            break
        Zc = np.vstack(rows_z) if rows_z else np.zeros((0, k))
        Xc = space.from_z(Zc) if k else np.repeat(space.center[None, :], len(owner), axis=0) if space.cont else np.zeros((len(owner), 0))
        cc = {c: [row[c] for row in rows_ch] for c in names}
        h = _evaluate_all(evaluate, Xc, cc)
        parts.append(h)
        info.local += len(owner)
        owner = np.asarray(owner)
        for s in active:
            mine = np.flatnonzero(owner == s)
            obj = np.where(np.isfinite(h.objective[mine]), h.objective[mine], -np.inf)
            j = mine[int(np.argmax(obj))]
            gain = h.objective[j] - f[s] if np.isfinite(h.objective[j]) else -np.inf
            if gain > 1e-12 * max(1.0, abs(f[s])):
                Z[s] = space.to_z(h.X[j : j + 1])[0] if k else Z[s]
                ch[s] = {c: h.choices[c][j] for c in names}
                f[s] = h.objective[j]
            else:
                step[s] *= 0.5
        progress(0.3 + 0.5 * (r + 1) / LOCAL_ROUNDS)

    # 3. SLSQP polish of the best few (range features only, levels held)
    if k:
        pool = collect([found, *parts])
        for i in _best_distinct(pool, POLISH_STARTS):
            parts += _polish(space, pool.X[i], {c: pool.choices[c][i] for c in names}, evaluate, info)
    progress(1.0)
    out = collect(parts)
    allobj = np.concatenate([found.objective, out.objective])
    allobj = allobj[np.isfinite(allobj)]
    info.improved_to = float(allobj.max()) if len(allobj) else None
    return out, info


def _polish(space: Space, x: np.ndarray, choice: dict, evaluate: Evaluate, info: Refinement) -> list[History]:
    from scipy.optimize import minimize

    N = np.eye(len(space.cont)) if space.untied() else space.hull.N
    x0 = np.zeros(len(space.cont)) if space.untied() else space.hull.x0
    G, h = space.G_bind @ N, space.h_bind - space.G_bind @ x0  # G N z <= h - G x0: the inequalities that still bind
    z_lo, z_hi = space.z_box()
    eps = 1e-6 * np.maximum(z_hi - z_lo, 1e-9)
    seen: list[History] = []

    def batch(Zs: np.ndarray) -> np.ndarray:
        # the base point is repaired (what SLSQP stands on must be feasible); the difference points are only
        # moved onto the hull, since a repair would bend the direction the difference measures. Those that fall
        # outside the region are evaluated for the gradient and not kept as candidates.
        X = np.vstack([space.from_z(Zs[:1]), x0 + Zs[1:] @ N.T])
        hh = _evaluate_all(evaluate, X, {c: [v] * len(X) for c, v in choice.items()})
        ok = (space.violation(hh.X) <= 1e-9) & space.integral(hh.X)
        ok[0] = True
        seen.append(History(hh.X[ok], {c: [v for v, o in zip(vals, ok) if o] for c, vals in hh.choices.items()}, hh.objective[ok], hh.scores[ok]))
        info.polish += len(X)
        info.discarded += int((~ok).sum())
        return np.where(np.isfinite(hh.objective), hh.objective, -1e300)

    def fun(z):
        # objective and forward-difference gradient in one model call; maximised, so both negated
        v = batch(np.vstack([z, z + np.diag(eps)]))
        return -v[0], -(v[1:] - v[0]) / eps

    z = space.to_z(x[None, :])[0]
    cons = [{"type": "ineq", "fun": lambda z: h - G @ z, "jac": lambda z: -G}] if len(h) else []
    try:
        minimize(fun, z, jac=True, method="SLSQP", constraints=cons, options={"maxiter": POLISH_ITERATIONS, "ftol": 1e-12})
    except (ValueError, np.linalg.LinAlgError):  # a degenerate step; what was evaluated is kept
        pass
    return seen
