"""D- and I-optimal designs: Fedorov point exchange over a candidate set, coordinate exchange in a box.

Both improve one run at a time with rank-one updates of (XᵀX)⁻¹ and restart from random designs; runs already
done (augmentation) stay in the information matrix and are never exchanged. The criterion is log det(XᵀX)
(D) or trace(W (XᵀX)⁻¹) with W the region's moment matrix (I). A tiny ridge lets a singular start improve.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

RIDGE = 1e-8


@dataclass
class Search:
    criterion: str  # "D" | "I"
    W: np.ndarray | None = None

    def value(self, M: np.ndarray) -> float:
        """Lower is better."""
        p = M.shape[0]
        Mr = M + RIDGE * np.eye(p)
        if self.criterion == "D":
            sign, logdet = np.linalg.slogdet(Mr)
            return -logdet if sign > 0 else np.inf
        try:
            return float(np.trace(self.W @ np.linalg.inv(Mr)))
        except np.linalg.LinAlgError:
            return np.inf

    def exchange_scores(self, Minv: np.ndarray, f_out: np.ndarray, F_in: np.ndarray) -> np.ndarray:
        """Change of the criterion (lower is better) when row f_out is replaced by each row of F_in."""
        u = Minv @ f_out
        denom = 1.0 - f_out @ u
        if denom <= 1e-12:  # removing this run alone makes the matrix singular: only a full re-evaluation is honest
            return np.full(F_in.shape[0], np.inf)
        M1 = Minv + np.outer(u, u) / denom
        A = F_in @ M1
        gain = 1.0 + np.einsum("ij,ij->i", A, F_in)
        if self.criterion == "D":
            # log det(M') - log det(M) = log(1 - f_out'M⁻¹f_out) + log(1 + f_in'M1⁻¹f_in)
            return -(np.log(denom) + np.log(np.maximum(gain, 1e-300)))
        base = np.trace(self.W @ M1)
        AW = A @ self.W
        return (base - np.einsum("ij,ij->i", AW, A) / gain) - np.trace(self.W @ Minv)


def _inv(M: np.ndarray) -> np.ndarray:
    return np.linalg.inv(M + RIDGE * np.eye(M.shape[0]))


def _start(F: np.ndarray, pool: np.ndarray, n: int, M0: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random start: a few random runs, then each next run where the prediction variance is largest among a
    random half of the candidates (Dykstra's sequential start, randomised so the starts differ)."""
    p = F.shape[1]
    first = min(n, max(1, p // 2))
    idx = list(rng.choice(pool, first, replace=pool.size < first))
    M = M0 + F[idx].T @ F[idx]
    while len(idx) < n:
        sub = rng.choice(pool, max(1, pool.size // 2), replace=False)
        d = np.einsum("ij,jk,ik->i", F[sub], _inv(M), F[sub])
        j = int(sub[int(np.argmax(d))])
        idx.append(j)
        M = M + np.outer(F[j], F[j])
    return np.array(idx)


def fedorov(
    F_cand: np.ndarray,
    n: int,
    search: Search,
    rng: np.random.Generator,
    F_fixed: np.ndarray | None = None,
    starts: int = 10,
    max_passes: int = 50,
    kicks: int = 10,
    allowed: np.ndarray | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[np.ndarray, float]:
    """Indices (into the candidates) of the best n-run design found, and its criterion value."""
    p = F_cand.shape[1]
    M0 = F_fixed.T @ F_fixed if F_fixed is not None and F_fixed.size else np.zeros((p, p))
    pool = np.flatnonzero(allowed) if allowed is not None else np.arange(F_cand.shape[0])
    if pool.size == 0:
        raise ValueError("no candidates")
    best_idx, best_val = None, np.inf

    def local(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        M = M0 + F_cand[idx].T @ F_cand[idx]
        val = search.value(M)
        for _ in range(max_passes):
            improved = False
            for i in range(n):
                scores = search.exchange_scores(_inv(M), F_cand[idx[i]], F_cand[pool])
                j = int(np.argmin(scores))
                if scores[j] < -1e-10 * max(1.0, abs(val)):
                    f_old, f_new = F_cand[idx[i]], F_cand[pool[j]]
                    M_new = M - np.outer(f_old, f_old) + np.outer(f_new, f_new)
                    new_val = search.value(M_new)
                    if new_val < val - 1e-12 * max(1.0, abs(val)):
                        idx[i], M, val, improved = pool[j], M_new, new_val, True
            if not improved:
                break
        return idx, M, val

    for s in range(starts):
        idx, M, val = local(_start(F_cand, pool, n, M0, rng))
        # Iterated local search: move two runs at random and descend again; keep the result if it is better.
        for _ in range(kicks):
            trial = idx.copy()
            trial[rng.choice(n, min(2, n), replace=False)] = rng.choice(pool, min(2, n))
            trial, M_t, val_t = local(trial)
            if val_t < val - 1e-12 * max(1.0, abs(val)):
                idx, _M, val = trial, M_t, val_t
        if val < best_val:
            best_idx, best_val = idx.copy(), val
        if progress:
            progress((s + 1) / starts)
    return best_idx, best_val


def coordinate_exchange(
    make_row: Callable[[np.ndarray], np.ndarray],
    levels: list[np.ndarray],
    continuous: list[bool],
    n: int,
    search: Search,
    rng: np.random.Generator,
    F_fixed: np.ndarray | None = None,
    starts: int = 10,
    max_passes: int = 30,
    polish: int = 3,
    start: np.ndarray | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[np.ndarray, float]:
    """Meyer–Nachtsheim coordinate exchange on a box: each coordinate of each run tries its levels; the best few
    designs are then polished by bounded 1-D searches of the continuous coordinates around their values."""
    k = len(levels)
    p = make_row(np.array([lv[0] for lv in levels])[None, :]).shape[1]
    M0 = F_fixed.T @ F_fixed if F_fixed is not None and F_fixed.size else np.zeros((p, p))

    def passes(X: np.ndarray, refine: bool) -> tuple[np.ndarray, float]:
        F = make_row(X)
        M = M0 + F.T @ F
        val = search.value(M)
        for _ in range(max_passes):
            start_val = val
            for i in range(n):
                for c in range(k):
                    Minv = _inv(M)
                    trials = np.repeat(X[i : i + 1], len(levels[c]), axis=0)
                    trials[:, c] = levels[c]
                    scores = search.exchange_scores(Minv, F[i], make_row(trials))
                    j = int(np.argmin(scores))
                    new_x, best = trials[j], scores[j]
                    if refine and continuous[c]:
                        lo = levels[c][max(j - 1, 0)]
                        hi = levels[c][min(j + 1, len(levels[c]) - 1)]

                        def score(t: float, i=i, c=c, Minv=Minv) -> float:
                            y = X[i].copy()
                            y[c] = t
                            return float(search.exchange_scores(Minv, F[i], make_row(y[None, :]))[0])

                        res = minimize_scalar(score, bounds=(lo, hi), method="bounded", options={"xatol": 1e-9})
                        if res.fun < best:
                            new_x = X[i].copy()
                            new_x[c] = res.x
                    f_new = make_row(new_x[None, :])[0]
                    M_new = M - np.outer(F[i], F[i]) + np.outer(f_new, f_new)
                    new_val = search.value(M_new)
                    if new_val < val - 1e-12 * max(1.0, abs(val)):
                        X[i], F[i], M, val = new_x, f_new, M_new, new_val
            if val >= start_val - 1e-10 * max(1.0, abs(start_val)):
                break
        return X, val

    if start is not None:
        return passes(start.copy(), refine=any(continuous))

    found: list[tuple[float, np.ndarray]] = []
    for s in range(starts):
        X = np.column_stack([rng.choice(lv, n) for lv in levels]).astype(float)
        X, val = passes(X, refine=False)
        found.append((val, X))
        if progress:
            progress(0.8 * (s + 1) / starts)
    found.sort(key=lambda t: t[0])
    best_val, best_X = found[0]
    if any(continuous):
        for val, X in found[:polish]:
            X, val = passes(X.copy(), refine=True)
            if val < best_val:
                best_val, best_X = val, X
    return best_X, best_val
