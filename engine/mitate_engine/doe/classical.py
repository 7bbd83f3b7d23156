"""Classical designs (pyDOE3 for factorials, central composite and Box–Behnken; simplex designs here), in the
variables' natural units. Each is offered only where every point satisfies the constraints."""

from __future__ import annotations

import itertools

import numpy as np
import pyDOE3

from .errors import design_error
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
            raise design_error(
                "classical_continuous_only",
                f'{name} designs need continuous variables; "{space.variables[i].name}" is not.',
                design=name,
                variable=space.variables[i].name,
            )


def simplex_points(q: int, kind: str, degree: int) -> np.ndarray:
    if kind == "simplex_lattice":
        if degree < 1:
            raise design_error("lattice_degree", "The lattice degree must be at least 1.")
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
            raise design_error("simplex_needs_mixture", "Simplex designs need mixture components.")
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
            raise design_error(
                "classical_mixture", "Factorial, central composite and Box–Behnken designs do not apply to mixture components; choose a simplex design."
            )
        if kind == "full_factorial":
            X = np.zeros((0, space.k))
            grid = np.array(list(itertools.product(*_process_levels(space, process, max(2, factorial_levels)))))
            X = np.zeros((grid.shape[0], space.k))
            X[:, process] = grid
        elif kind == "fractional_factorial":
            _two_level_only(space, process, "Fractional factorial")
            if len(process) < 3:
                raise design_error("fraction_too_small", "A fractional factorial needs at least 3 variables.")
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
                raise design_error(
                    "fraction_resolution",
                    f"No fractional factorial of resolution {resolution} exists for {len(process)} variables.",
                    resolution=resolution,
                    count=len(process),
                ) from None
            X = _decode(space, process, coded)
        elif kind == "central_composite":
            _two_level_only(space, process, "Central composite")
            if len(process) < 2:
                raise design_error("ccd_too_small", "A central composite design needs at least 2 variables.")
            coded = pyDOE3.ccdesign(len(process), center=(0, max(1, int(center))), face="ccf")  # face-centred: stays in range
            X = _decode(space, process, coded)
        elif kind == "box_behnken":
            _two_level_only(space, process, "Box–Behnken")
            if len(process) < 3:
                raise design_error("bb_too_small", "A Box–Behnken design needs at least 3 variables.")
            coded = pyDOE3.bbdesign(len(process), center=max(1, int(center)))
            X = _decode(space, process, coded)
        else:
            raise design_error("algorithm_unknown", f'Unknown design "{kind}".', algorithm=kind)
    X = space.project(X) if mix else X
    bad = ~space.feasible_mask(X)
    if bad.any():
        broken = sorted({b for x in X[bad] for b in space.violations(x)})
        raise design_error(
            "classical_infeasible",
            f"{int(bad.sum())} of {X.shape[0]} points of this design break the constraints ({'; '.join(broken)}); choose an optimal or space-filling design.",
            count=int(bad.sum()),
            total=int(X.shape[0]),
            constraints="; ".join(broken),
        )
    return X
