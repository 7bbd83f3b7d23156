"""Space-filling designs: maximin Latin hypercubes in a box, maximin point sets inside constrained regions."""

from __future__ import annotations

import numpy as np
from pyDOE3 import lhs
from scipy.spatial.distance import cdist, pdist

from .space import Space


def scaled(space: Space, X: np.ndarray) -> np.ndarray:
    """Numeric coordinates on [0, 1] by each variable's range (distances treat every variable alike)."""
    num = space.numeric_idx
    lo, hi = space.lo[num], space.hi[num]
    return (X[:, num] - lo) / np.where(hi > lo, hi - lo, 1.0)


def min_distance(space: Space, X: np.ndarray) -> float:
    Z = scaled(space, X)
    return float(pdist(Z).min()) if Z.shape[0] > 1 and Z.shape[1] else 0.0


def maximin_lhs(space: Space, n: int, rng: np.random.Generator, iterations: int = 200) -> np.ndarray:
    """A Latin hypercube on the box with the largest smallest distance among `iterations` tries (pyDOE3);
    discrete variables take the level of their stratum, categorical ones cycle through their levels."""
    num = space.numeric_idx
    U = lhs(len(num), samples=n, criterion="maximin", iterations=iterations, random_state=int(rng.integers(2**31))) if num else np.zeros((n, 0))
    X = np.zeros((n, space.k))
    for a, i in enumerate(num):
        v = space.variables[i]
        if v.kind == "discrete":
            lv = np.asarray(v.levels, dtype=float)
            X[:, i] = lv[np.minimum((U[:, a] * len(lv)).astype(int), len(lv) - 1)]
        else:
            X[:, i] = v.low + U[:, a] * (v.high - v.low)
    for i in space.categorical_idx:
        L = len(space.variables[i].levels)
        X[:, i] = rng.permutation(np.arange(n) % L)
    return X


def maximin_select(space: Space, pool: np.ndarray, n: int, rng: np.random.Generator, fixed: np.ndarray | None = None, sweeps: int = 30) -> np.ndarray:
    """n points of a feasible pool that keep far from each other and from runs already done: a greedy
    farthest-point start, then swaps that raise the smallest distance. Indices into the pool."""
    Z = scaled(space, pool)
    if Z.shape[1] == 0:
        return rng.choice(pool.shape[0], n, replace=pool.shape[0] < n)
    F = scaled(space, fixed) if fixed is not None and fixed.shape[0] else np.zeros((0, Z.shape[1]))
    chosen = [int(rng.integers(pool.shape[0]))] if not F.shape[0] else []
    dist = cdist(Z, F).min(axis=1) if F.shape[0] else cdist(Z, Z[chosen]).min(axis=1)
    while len(chosen) < n:
        j = int(np.argmax(dist))
        chosen.append(j)
        dist = np.minimum(dist, cdist(Z, Z[[j]])[:, 0])
    chosen = np.array(chosen)

    def score(idx: np.ndarray) -> float:
        P = np.vstack([Z[idx], F])
        return float(pdist(P).min()) if P.shape[0] > 1 else 0.0

    best = score(chosen)
    for _ in range(sweeps):
        improved = False
        for a in range(n):
            others = np.delete(chosen, a)
            ref = np.vstack([Z[others], F])
            d = cdist(Z, ref).min(axis=1)
            j = int(np.argmax(d))
            if d[j] > best + 1e-12 and j not in others:
                trial = chosen.copy()
                trial[a] = j
                s = score(trial)
                if s > best:
                    chosen, best, improved = trial, s, True
        if not improved:
            break
    return chosen
