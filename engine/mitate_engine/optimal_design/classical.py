"""Classical designs (pyDOE3 for factorials, central composite and Box–Behnken; simplex designs here), in the
variables' natural units. Each is offered only where every point satisfies the constraints."""

from __future__ import annotations

import itertools

import numpy as np
import pyDOE3

from ..task import EngineError
from .space import Space

CLASSICAL = ("full_factorial", "fractional_factorial", "central_composite", "box_behnken", "simplex_lattice", "simplex_centroid")


def _process_levels(space: Space, idx: list[int], continuous_levels: int = 2) -> list[np.ndarray]:
    out = []
    for i in idx:
        v = space.variables[i]
        if v.kind == "categorical":
            out.append(np.arange(len(v.levels), dtype=float))
        elif v.kind == "discrete":
            out.append(np.asarray(v.levels, dtype=float))
        else:
            out.append(np.linspace(v.low, v.high, continuous_levels))
    return out


def _decode(space: Space, idx: list[int], coded: np.ndarray) -> np.ndarray:
    X = np.zeros((coded.shape[0], space.k))
    for a, i in enumerate(idx):
        v = space.variables[i]
        X[:, i] = (v.low + v.high) / 2 + coded[:, a] * (v.high - v.low) / 2
    return X


def _two_level_only(space: Space, idx: list[int], name: str) -> None:
    for i in idx:
        if space.variables[i].kind != "continuous":
            raise EngineError("classical_continuous_only", design=name, variable=space.variables[i].name)


def simplex_points(q: int, kind: str, degree: int) -> np.ndarray:
    if kind == "simplex_lattice":
        if degree < 1:
            raise EngineError("lattice_degree")
        pts = [c for c in itertools.product(range(degree + 1), repeat=q) if sum(c) == degree]
        return np.array(pts, dtype=float) / degree
    pts = []
    for r in range(1, q + 1):
        for combo in itertools.combinations(range(q), r):
            x = np.zeros(q)
            x[list(combo)] = 1.0 / r
            pts.append(x)
    return np.array(pts)


def classical(space: Space, kind: str, resolution: int = 4, center: int = 1, degree: int = 2, factorial_levels: int = 2) -> np.ndarray:
    mix = space.mixture
    process = [i for i in range(space.k) if i not in mix]
    if kind in ("simplex_lattice", "simplex_centroid"):
        if not mix:
            raise EngineError("simplex_needs_mixture")
        # L-pseudocomponents: the simplex of the lower-bounded region, so lower bounds always hold.
        lo = np.array([space.variables[i].low for i in mix])
        free = space.mixture_total - lo.sum()
        Z = simplex_points(len(mix), kind, degree)
        M = lo + Z * free
        proc = np.array(list(itertools.product(*_process_levels(space, process)))) if process else np.zeros((1, 0))
        X = np.zeros((M.shape[0] * proc.shape[0], space.k))
        X[:, mix] = np.repeat(M, proc.shape[0], axis=0)
        if process:
            X[:, process] = np.tile(proc, (M.shape[0], 1))
    else:
        if mix:
            raise EngineError("classical_mixture")
        if kind == "full_factorial":
            X = np.zeros((0, space.k))
            grid = np.array(list(itertools.product(*_process_levels(space, process, max(2, factorial_levels)))))
            X = np.zeros((grid.shape[0], space.k))
            X[:, process] = grid
        elif kind == "fractional_factorial":
            _two_level_only(space, process, "Fractional factorial")
            if len(process) < 3:
                raise EngineError("fraction_too_small")
            k = len(process)
            try:
                coded = pyDOE3.fracfact_by_res(k, int(resolution))
            except ValueError:
                coded = None
            if coded is None and int(resolution) <= k:
                # the half fraction with the last factor as the product of the others has resolution k
                letters = "abcdefghijklmnopqrstuvwxyz"[: k - 1]
                coded = pyDOE3.fracfact(" ".join([*letters, letters]))
            if coded is None:
                raise EngineError("fraction_resolution", resolution=resolution, count=len(process)) from None
            X = _decode(space, process, coded)
        elif kind == "central_composite":
            _two_level_only(space, process, "Central composite")
            if len(process) < 2:
                raise EngineError("ccd_too_small")
            coded = pyDOE3.ccdesign(len(process), center=(0, max(1, int(center))), face="ccf")  # face-centred: stays in range
            X = _decode(space, process, coded)
        elif kind == "box_behnken":
            _two_level_only(space, process, "Box–Behnken")
            if len(process) < 3:
                raise EngineError("bb_too_small")
            coded = pyDOE3.bbdesign(len(process), center=max(1, int(center)))
            X = _decode(space, process, coded)
        else:
            raise EngineError("algorithm_unknown", algorithm=kind)
    X = space.project(X) if mix else X
    bad = ~space.feasible_mask(X)
    if bad.any():
        broken = sorted({b for x in X[bad] for b in space.violations(x)})
        raise EngineError("classical_infeasible", count=int(bad.sum()), total=int(X.shape[0]), constraints="; ".join(broken))
    return X
