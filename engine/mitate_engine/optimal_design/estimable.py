"""Can the chosen model be estimated in the region at all? If not, say which terms and why, before any design.

Constraints can leave the region too few directions for the model: A + B + C = 0 ties C to A and B, so a quadratic
model's C, C² (and more) are combinations of other terms at every point; A + B >= 2 with A, B in [0, 1] holds
A = B = 1, so A and B are the intercept. Any design over such a region is singular (det XᵀX = 0). The check takes
the model matrix over the candidate points (vertices, faces, interior and grid points of the region) and keeps
the terms in the model's order while each adds a new direction; those that add none cannot be estimated. The
reason given is the region's equalities (declared, or implied by the constraints: polytope.affine_hull), or,
when there is none, too few distinct values of the variables.
"""

from __future__ import annotations

import re

import numpy as np

from ..polytope import affine_hull
from ..task import EngineError
from .model import Model
from .space import Space

RESIDUAL = 1e-7  # a unit column whose part outside the earlier columns is this small adds no direction


def dependent_terms(F: np.ndarray) -> list[int]:
    """Columns (in order) that are linear combinations of the columns before them, to a relative tolerance."""
    norms = np.linalg.norm(F, axis=0)
    basis: list[np.ndarray] = []
    out = []
    for j in range(F.shape[1]):
        if norms[j] == 0:
            out.append(j)
            continue
        r = F[:, j] / norms[j]
        for q in basis:  # twice, for a numerically orthogonal basis
            r = r - q * (q @ r)
        for q in basis:
            r = r - q * (q @ r)
        n = np.linalg.norm(r)
        if n <= RESIDUAL:
            out.append(j)
        else:
            basis.append(r / n)
    return out


def region_equalities(space: Space) -> list[str]:
    """The equalities every point of the numeric region satisfies: declared ones and those the constraints imply."""
    num = space.numeric_idx
    if not num:
        return []
    lo, hi = space.lo[num], space.hi[num]
    a_ub = space.a_ub[:, num] if space.a_ub.shape[0] else None
    a_eq = space.a_eq[:, num] if space.a_eq.shape[0] else None
    hull = affine_hull(lo, hi, a_ub, space.b_ub if a_ub is not None else None, a_eq, space.b_eq if a_eq is not None else None)
    out = list(space.eq_labels)
    # an inequality tight everywhere, said as the equality it is ("A + B >= 2" -> "A + B = 2")
    out += [re.sub(r" (<=|>=) ", " = ", label) for label, t in zip(space.ub_labels, hull.implied_ub) if t]
    for j, i in enumerate(num):
        v = space.variables[i]
        if hull.pinned_lower[j] or hull.pinned_upper[j]:
            value = v.low if hull.pinned_lower[j] else v.high
            out.append(f"{v.name} = {value:g}")
    return out


def check_estimable(space: Space, model: Model, points: np.ndarray) -> None:
    if not points.shape[0]:
        return
    bad = dependent_terms(model.matrix(points))
    if not bad:
        return
    terms = [model.names[j] for j in bad]
    equalities = region_equalities(space)
    if equalities:
        raise EngineError("model_not_estimable", terms=terms, equalities=equalities)
    raise EngineError("model_not_estimable_levels", terms=terms)
