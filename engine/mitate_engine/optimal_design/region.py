"""Points of the feasible region: extreme vertices of the polytope, candidate sets, uniform samples.

Candidate sets for point exchange: a grid for a box, and for a constrained region the extreme vertices
(XVERT-style: every point where enough constraints are active), edge midpoints, face centroids, the overall
centroid and interior points, crossed with the levels of categorical variables.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

from .space import Space

MAX_COMBINATIONS = 300_000
MAX_CANDIDATES = 6000


def _inequalities(space: Space, num: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Bounds and linear inequalities over the numeric variables as G x <= h."""
    n = len(num)
    eye = np.eye(n)
    lo, hi = space.lo[num], space.hi[num]
    G = [eye, -eye]
    h = [hi, -lo]
    if space.a_ub.shape[0]:
        G.append(space.a_ub[:, num])
        h.append(space.b_ub)
    return np.vstack(G), np.concatenate(h)


def _lp_vertices(space: Space, num: list[int], count: int, rng: np.random.Generator) -> np.ndarray:
    """Vertices found by linear programmes in random directions (for regions with too many constraint sets)."""
    bounds = list(zip(space.lo[num], space.hi[num]))
    a_eq = space.a_eq[:, num] if space.a_eq.shape[0] else None
    a_ub = space.a_ub[:, num] if space.a_ub.shape[0] else None
    out = []
    for _ in range(count):
        res = linprog(
            rng.normal(size=len(num)),
            A_ub=a_ub,
            b_ub=space.b_ub if a_ub is not None else None,
            A_eq=a_eq,
            b_eq=space.b_eq if a_eq is not None else None,
            bounds=bounds,
            method="highs",
        )
        if res.status == 0:
            out.append(res.x)
    return np.unique(np.round(np.array(out), 12), axis=0) if out else np.zeros((0, len(num)))


def vertices(space: Space, rng: np.random.Generator | None = None) -> tuple[np.ndarray, list[frozenset]]:
    """Extreme vertices of the numeric region and, for each, the set of inequalities active there."""
    num = space.numeric_idx
    n = len(num)
    G, h = _inequalities(space, num)
    E = space.a_eq[:, num] if space.a_eq.shape[0] else np.zeros((0, n))
    e = space.b_eq
    r = np.linalg.matrix_rank(E) if E.shape[0] else 0
    need = n - r
    m = G.shape[0]
    from math import comb

    found: dict[tuple, np.ndarray] = {}
    if comb(m, need) <= MAX_COMBINATIONS:
        for combo in itertools.combinations(range(m), need):
            A = np.vstack([E, G[list(combo)]])
            b = np.concatenate([e, h[list(combo)]])
            if np.linalg.matrix_rank(A) < n:
                continue
            x = np.linalg.lstsq(A, b, rcond=None)[0]
            if np.all(G @ x <= h + 1e-9 * np.maximum(1, np.abs(h))) and (not E.shape[0] or np.allclose(E @ x, e, atol=1e-9)):
                found.setdefault(tuple(np.round(x, 10)), x)
        V = np.array(list(found.values())) if found else np.zeros((0, n))
    else:
        V = _lp_vertices(space, num, 400, rng or np.random.default_rng(0))
    active = [frozenset(np.flatnonzero(np.abs(G @ v - h) <= 1e-9 * np.maximum(1, np.abs(h))).tolist()) for v in V]
    return V, active


def _faces(V: np.ndarray, active: list[frozenset], max_faces: int = 3000) -> np.ndarray:
    """Edge midpoints and face centroids: averages of the vertices that share active constraints."""
    pts = []
    cons = sorted(set().union(*active)) if active else []
    for c in cons:  # facet centroids (one constraint active)
        members = [i for i, a in enumerate(active) if c in a]
        if len(members) >= 2:
            pts.append(V[members].mean(axis=0))
    edges = 0
    for i, j in itertools.combinations(range(len(V)), 2):  # edge midpoints: vertices sharing all but one constraint
        shared = active[i] & active[j]
        if len(shared) >= max(len(active[i]), len(active[j])) - 1 and shared:
            pts.append((V[i] + V[j]) / 2)
            edges += 1
            if edges > max_faces:
                break
    return np.array(pts) if pts else np.zeros((0, V.shape[1]))


def hit_and_run(space: Space, start: np.ndarray, count: int, rng: np.random.Generator, thin: int = 5, chains: int = 100) -> np.ndarray:
    """Approximately uniform points of the numeric region: parallel hit-and-run chains inside the polytope's
    affine hull, started at an interior point, after a burn-in."""
    num = space.numeric_idx
    n = len(num)
    G, h = _inequalities(space, num)
    E = space.a_eq[:, num] if space.a_eq.shape[0] else np.zeros((0, n))
    if E.shape[0]:
        _, s, vt = np.linalg.svd(E)
        basis = vt[int(np.sum(s > 1e-12)) :].T  # directions that keep the equalities
    else:
        basis = np.eye(n)
    if basis.shape[1] == 0:
        return np.repeat(start[None, :], count, axis=0)
    chains = max(1, min(chains, count))
    per = -(-count // chains)
    x = np.repeat(start[None, :], chains, axis=0)
    out = []
    for k in range(20 + per * thin):
        d = rng.normal(size=(chains, basis.shape[1])) @ basis.T
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        gd = d @ G.T
        slack = h[None, :] - x @ G.T
        with np.errstate(divide="ignore", invalid="ignore"):
            t = slack / gd
        hi = np.where(gd > 1e-14, t, np.inf).min(axis=1)
        lo = np.where(gd < -1e-14, t, -np.inf).max(axis=1)
        ok = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        step = np.where(ok, rng.uniform(0, 1, chains) * (hi - lo) + lo, 0.0)
        x = x + step[:, None] * d
        if k >= 20 and (k - 20) % thin == thin - 1:
            out.append(x.copy())
    return np.vstack(out)[:count]


def _category_product(space: Space, cap: int = 200) -> list[tuple[int, ...]]:
    cats = space.categorical_idx
    combos = list(itertools.product(*[range(len(space.variables[i].levels)) for i in cats]))
    return combos[:cap] if len(combos) > cap else combos


def _assemble(space: Space, numeric: np.ndarray) -> np.ndarray:
    """Numeric points crossed with every categorical level combination, as full points."""
    num, cats = space.numeric_idx, space.categorical_idx
    combos = _category_product(space)
    out = np.zeros((numeric.shape[0] * len(combos), space.k))
    if num:
        out[:, num] = np.tile(numeric, (len(combos), 1))
    for j, combo in enumerate(combos):
        rows = slice(j * numeric.shape[0], (j + 1) * numeric.shape[0])
        for c, lv in zip(cats, combo):
            out[rows, c] = lv
    return out


def grid_levels(space: Space, levels: int) -> list[np.ndarray]:
    out = []
    for i in space.numeric_idx:
        v = space.variables[i]
        out.append(np.asarray(v.levels, dtype=float) if v.kind == "discrete" else np.linspace(v.low, v.high, levels))
    return out


def centroid(space: Space) -> np.ndarray:
    V, _ = vertices(space)
    return V.mean(axis=0)


def candidate_set(space: Space, rng: np.random.Generator, levels: int = 3, interior: int = 200) -> np.ndarray:
    """Feasible candidate points (full points, natural units), without duplicates."""
    num = space.numeric_idx
    parts = []
    if num:
        if space.constrained:
            V, active = vertices(space, rng)
            parts += [V, _faces(V, active), V.mean(axis=0, keepdims=True)]
            if interior:
                parts.append(hit_and_run(space, V.mean(axis=0), interior, rng))
            # Axial check blends: halfway between the centroid and each vertex (Cornell's interior points).
            parts.append((V + V.mean(axis=0)) / 2)
        grid = grid_levels(space, levels)
        size = int(np.prod([len(g) for g in grid]))
        if size <= 20_000:
            parts.append(np.array(list(itertools.product(*grid)), dtype=float))
        numeric = np.vstack([p for p in parts if p.size])
        numeric = np.unique(np.round(numeric, 12), axis=0)
    else:
        numeric = np.zeros((1, 0))
    X = _assemble(space, numeric)
    X = space.project(X)
    X = X[space.feasible_mask(X)]
    if X.shape[0] > MAX_CANDIDATES:
        keep = rng.choice(X.shape[0], MAX_CANDIDATES, replace=False)
        X = X[np.sort(keep)]
    return X


def uniform_sample(space: Space, count: int, rng: np.random.Generator) -> np.ndarray:
    """Approximately uniform points of the whole region (for the I-criterion's moment matrix and BO searches)."""
    num = space.numeric_idx
    if not num:
        numeric = np.zeros((count, 0))
    elif space.constrained:
        numeric = hit_and_run(space, centroid(space), count, rng)
    else:
        numeric = rng.uniform(space.lo[num], space.hi[num], size=(count, len(num)))
    X = np.zeros((count, space.k))
    X[:, num] = numeric
    for c in space.categorical_idx:
        X[:, c] = rng.integers(0, len(space.variables[c].levels), size=count)
    return X
