"""A polytope's affine hull: the equalities its constraints imply, and coordinates inside it.

Constraints like x1 − x2 ≤ 0 with x1 − x2 ≥ 0, or a sum with bounds that leave one value, pin a direction without
declaring it an equality. Such a region has no interior in its own space: a sampler or a repair that treats it as
full-dimensional collapses every candidate onto one point. Here each inequality (bounds included) is tested with a
linear programme (its left side's extreme over the region; scipy's HiGHS), those tight at every feasible point are
turned into equalities, and the region is described in coordinates of its affine hull, x = x0 + N z, where N spans
the null space of all the equalities and x0 is a relative-interior point (a Chebyshev centre inside the hull).
Used by the optimisation search and by the design of experiments' estimability check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

TOL = 1e-9


@dataclass
class Hull:
    E: np.ndarray  # every equality of the region (declared and implied), one row each
    e: np.ndarray
    N: np.ndarray  # d × k: a basis of the directions the region spans (k = its dimension)
    x0: np.ndarray  # a point of the region's relative interior
    radius: float  # how far x0 lies from the nearest constraint that is not tight everywhere
    implied_ub: np.ndarray  # bool per inequality row: tight at every feasible point
    pinned_lower: np.ndarray  # bool per variable: held at its lower bound by the constraints
    pinned_upper: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.N.shape[1])

    @property
    def implied(self) -> bool:
        return bool(self.implied_ub.any() or self.pinned_lower.any() or self.pinned_upper.any())

    def project(self, X: np.ndarray) -> np.ndarray:
        """Orthogonal projection onto the hull's affine subspace."""
        X = np.atleast_2d(X)
        return self.x0 + ((X - self.x0) @ self.N) @ self.N.T


def _lp(c, A_ub, b_ub, A_eq, b_eq, bounds):
    return linprog(
        c,
        A_ub=A_ub if A_ub is not None and len(A_ub) else None,
        b_ub=b_ub if A_ub is not None and len(A_ub) else None,
        A_eq=A_eq if A_eq is not None and len(A_eq) else None,
        b_eq=b_eq if A_eq is not None and len(A_eq) else None,
        bounds=bounds,
        method="highs",
    )


def _scale(v: np.ndarray) -> np.ndarray:
    return np.maximum(1.0, np.abs(v))


def affine_hull(lower, upper, A_ub=None, b_ub=None, A_eq=None, b_eq=None, tol: float = TOL) -> Hull:
    """The hull of {lower <= x <= upper, A_ub x <= b_ub, A_eq x = b_eq}; the region must be feasible."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    d = len(lower)
    A_ub = np.zeros((0, d)) if A_ub is None else np.asarray(A_ub, dtype=float).reshape(-1, d)
    b_ub = np.zeros(0) if b_ub is None else np.asarray(b_ub, dtype=float)
    A_eq = np.zeros((0, d)) if A_eq is None else np.asarray(A_eq, dtype=float).reshape(-1, d)
    b_eq = np.zeros(0) if b_eq is None else np.asarray(b_eq, dtype=float)
    bounds = list(zip(lower, upper))
    # every inequality as G x <= h: the linear ones, then x <= upper, then -x <= -lower
    G = np.vstack([A_ub, np.eye(d), -np.eye(d)])
    h = np.concatenate([b_ub, upper, -lower])
    m = len(h)
    slack_seen = np.zeros(m, dtype=bool)

    def note(x):
        slack_seen[:] |= h - G @ x > tol * _scale(h)

    # one LP first: a point as far inside every inequality as possible (slack t <= 1); any row with slack there is
    # not implied, and usually none is
    norms = np.maximum(np.linalg.norm(G, axis=1), 1e-300)
    res = _lp(np.r_[np.zeros(d), -1.0], np.hstack([G, norms[:, None]]), h, np.hstack([A_eq, np.zeros((len(b_eq), 1))]), b_eq, [*bounds, (0, 1)])
    if res.status == 0:
        note(res.x[:d])
    # each row without a witness: the least slack it can have over the region
    for i in np.flatnonzero(~slack_seen):
        if slack_seen[i]:
            continue
        r = _lp(G[i], A_ub, b_ub, A_eq, b_eq, bounds)  # min g_i x
        if r.status == 0:
            note(r.x)
    implied = ~slack_seen
    E = np.vstack([A_eq, G[implied]])
    e = np.concatenate([b_eq, h[implied]])
    if len(E):
        _, s, vt = np.linalg.svd(E)
        rank = int(np.sum(s > 1e-10 * max(1.0, s[0])))
        N = vt[rank:].T
    else:
        N = np.eye(d)
    # a relative-interior point: the Chebyshev centre inside the hull, over the rows that are not implied
    P = N @ N.T
    keep = ~implied
    pn = np.linalg.norm(G[keep] @ P, axis=1)
    res = _lp(np.r_[np.zeros(d), -1.0], np.hstack([G[keep], pn[:, None]]), h[keep], np.hstack([E, np.zeros((len(e), 1))]), e, [*bounds, (0, None)])
    if res.status == 0:
        x0, radius = res.x[:d], float(res.x[d])
    else:  # numerically degenerate: any feasible point
        r = _lp(np.zeros(d), A_ub, b_ub, A_eq, b_eq, bounds)
        x0, radius = (r.x if r.status == 0 else (lower + upper) / 2), 0.0
    n_ub = len(b_ub)
    return Hull(E, e, N, x0, radius, implied[:n_ub], implied[n_ub + d :], implied[n_ub : n_ub + d])


def z_bounds(hull: Hull, lower, upper, A_ub=None, b_ub=None) -> tuple[np.ndarray, np.ndarray]:
    """The range of each hull coordinate z = Nᵀ(x − x0) over the region (two LPs per coordinate)."""
    bounds = list(zip(lower, upper))
    lo, hi = np.zeros(hull.dim), np.zeros(hull.dim)
    for j in range(hull.dim):
        c = hull.N[:, j]
        a = _lp(c, A_ub, b_ub, hull.E, hull.e, bounds)
        b = _lp(-c, A_ub, b_ub, hull.E, hull.e, bounds)
        lo[j] = (a.x - hull.x0) @ c if a.status == 0 else -np.linalg.norm(np.asarray(upper) - np.asarray(lower))
        hi[j] = (b.x - hull.x0) @ c if b.status == 0 else np.linalg.norm(np.asarray(upper) - np.asarray(lower))
    return lo, hi
