"""The search space: range, discrete, categorical and fixed features plus linear constraints, honoured exactly.

Range features live in a box; sum constraints (Σ x_i = s) and linear inequalities (Σ a_i x_i ≤ b) cut it to a
convex polytope. A proposal from any sampler is *repaired* into the polytope, never penalised: first projected
orthogonally onto the equality subspace, then pulled along the segment towards an interior point (the Chebyshev
centre, from scipy's linprog) just far enough to satisfy every inequality. Both steps are closed-form and
vectorised, so 10,000 candidates are repaired in milliseconds, and a feasible proposal is left unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import opt_error

TOL = 1e-9  # the largest constraint violation a candidate may have


@dataclass
class Constraint:
    name: str
    coefficients: dict[str, float]
    operator: str  # '<=', '>=', '='
    value: float


@dataclass
class Space:
    cont: list[str]
    lower: np.ndarray
    upper: np.ndarray
    discrete: dict[str, list[float]] = field(default_factory=dict)
    categorical: dict[str, list[str]] = field(default_factory=dict)
    fixed: dict[str, object] = field(default_factory=dict)
    constraints: list[Constraint] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lower = np.asarray(self.lower, dtype=float)
        self.upper = np.asarray(self.upper, dtype=float)
        idx = {c: i for i, c in enumerate(self.cont)}
        d = len(self.cont)
        eq, ub = [], []
        for c in self.constraints:
            row = np.zeros(d)
            for f, a in c.coefficients.items():
                if f not in idx:
                    kind = "discrete" if f in self.discrete else "categorical" if f in self.categorical else "fixed" if f in self.fixed else None
                    if kind is None:
                        raise opt_error(
                            "constraint_unknown_feature",
                            f'The constraint "{c.name}" uses "{f}", which is not a feature of the models.',
                            constraint=c.name,
                            feature=f,
                        )
                    raise opt_error(
                        "constraint_not_range",
                        f'The constraint "{c.name}" uses "{f}", a {kind} feature; constraints apply to range features only.',
                        constraint=c.name,
                        feature=f,
                    )
                row[idx[f]] += float(a)
            if not np.any(row):
                raise opt_error("constraint_empty", f'The constraint "{c.name}" has no non-zero coefficient.', constraint=c.name)
            if c.operator == "=":
                eq.append((row, float(c.value), c.name))
            elif c.operator == "<=":
                ub.append((row, float(c.value), c.name))
            elif c.operator == ">=":
                ub.append((-row, -float(c.value), c.name))
            else:
                raise opt_error("constraint_operator", f'The constraint "{c.name}" needs one of <=, >= or =.', constraint=c.name)
        self.A_eq = np.array([r for r, _, _ in eq]).reshape(len(eq), d)
        self.b_eq = np.array([b for _, b, _ in eq])
        self.eq_names = [n for _, _, n in eq]
        # every inequality, the box included, as G x <= h
        box_G = np.vstack([np.eye(d), -np.eye(d)]) if d else np.zeros((0, 0))
        box_h = np.concatenate([self.upper, -self.lower]) if d else np.zeros(0)
        self.A_ub = np.array([r for r, _, _ in ub]).reshape(len(ub), d)
        self.b_ub = np.array([b for _, b, _ in ub])
        self.ub_names = [n for _, _, n in ub]
        self.G = np.vstack([self.A_ub, box_G]) if d else np.zeros((0, 0))
        self.h = np.concatenate([self.b_ub, box_h]) if d else np.zeros(0)
        self._check_feasible()
        self._prepare_repair()

    # ---- feasibility -----------------------------------------------------------------------------------------

    def _lp_feasible(self, keep_eq: list[int], keep_ub: list[int]) -> bool:
        from scipy.optimize import linprog

        d = len(self.cont)
        res = linprog(
            np.zeros(d),
            A_ub=self.A_ub[keep_ub] if keep_ub else None,
            b_ub=self.b_ub[keep_ub] if keep_ub else None,
            A_eq=self.A_eq[keep_eq] if keep_eq else None,
            b_eq=self.b_eq[keep_eq] if keep_eq else None,
            bounds=list(zip(self.lower, self.upper)),
            method="highs",
        )
        return res.status == 0

    def _check_feasible(self) -> None:
        if not self.cont or not self.constraints:
            return
        eqs, ubs = list(range(len(self.b_eq))), list(range(len(self.b_ub)))
        if self._lp_feasible(eqs, ubs):
            return
        # deletion filter: drop each constraint whose removal keeps the rest infeasible; what is left conflicts
        for i in list(eqs):
            if not self._lp_feasible([j for j in eqs if j != i], ubs):
                eqs.remove(i)
        for i in list(ubs):
            if not self._lp_feasible(eqs, [j for j in ubs if j != i]):
                ubs.remove(i)
        names = [self.eq_names[i] for i in eqs] + [self.ub_names[i] for i in ubs]
        raise opt_error(
            "infeasible", "No condition satisfies these constraints within the feature ranges: " + ", ".join(f'"{n}"' for n in names) + ".", constraints=names
        )

    def _prepare_repair(self) -> None:
        from scipy.optimize import linprog

        d = len(self.cont)
        self.center = (self.lower + self.upper) / 2 if d else np.zeros(0)
        self._proj = None
        if not d:
            return
        if len(self.b_eq):
            A = self.A_eq
            self._pinv = A.T @ np.linalg.pinv(A @ A.T)
            self._proj = np.eye(d) - self._pinv @ A  # onto the null space of A_eq
        if not self.constraints:
            return
        # Chebyshev centre inside the equality subspace: max r with G x + r |P g| <= h, A_eq x = b_eq
        P = self._proj if self._proj is not None else np.eye(d)
        norms = np.linalg.norm(self.G @ P, axis=1)
        c = np.zeros(d + 1)
        c[-1] = -1.0
        A_ub = np.hstack([self.G, norms[:, None]])
        A_eq = np.hstack([self.A_eq, np.zeros((len(self.b_eq), 1))]) if len(self.b_eq) else None
        bounds = [(lo, hi) for lo, hi in zip(self.lower, self.upper)] + [(0, None)]
        res = linprog(c, A_ub=A_ub, b_ub=self.h, A_eq=A_eq, b_eq=self.b_eq if len(self.b_eq) else None, bounds=bounds, method="highs")
        if res.status == 0:
            self.center = res.x[:d]
        else:  # unbounded radius cannot happen inside a box; keep the midpoint projected
            self.center = self._project_eq(self.center[None, :])[0]

    # ---- repair ----------------------------------------------------------------------------------------------

    def _project_eq(self, X: np.ndarray) -> np.ndarray:
        if not len(self.b_eq):
            return X
        return X - (X @ self.A_eq.T - self.b_eq) @ self._pinv.T

    def repair(self, X: np.ndarray) -> np.ndarray:
        """Feasible points: unchanged if already feasible, else moved onto the polytope as described above."""
        X = np.asarray(X, dtype=float).reshape(-1, len(self.cont))
        if not len(self.cont):
            return X
        if not self.constraints:
            return np.clip(X, self.lower, self.upper)
        Y = self._project_eq(X)
        D = Y - self.center
        slack = self.h - self.G @ self.center  # >= 0
        step = D @ self.G.T  # how far each row moves towards its bound
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(step > 1e-300, slack / step, np.inf)
        lam = np.minimum(1.0, ratio.min(axis=1))
        lam = np.where(lam < 1.0, lam * (1 - 1e-12), 1.0)  # stay inside despite rounding
        Y = self.center + lam[:, None] * D
        # rounding may leave ~1e-16 outside the box; a clip of that size cannot disturb a sum beyond TOL
        return np.clip(Y, self.lower, self.upper)

    def violation(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float).reshape(-1, len(self.cont))
        if not len(self.cont):
            return np.zeros(len(X))
        v = np.maximum(0, X @ self.G.T - self.h).max(axis=1) if len(self.h) else np.zeros(len(X))
        if len(self.b_eq):
            v = np.maximum(v, np.abs(X @ self.A_eq.T - self.b_eq).max(axis=1))
        return v

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Points spread over the polytope: box samples, the feasible kept, the others repaired."""
        U = rng.random((n, len(self.cont)))
        return self.repair(self.lower + U * (self.upper - self.lower))

    def constraint_values(self, X: np.ndarray) -> dict[str, np.ndarray]:
        idx = {c: i for i, c in enumerate(self.cont)}
        out = {}
        for c in self.constraints:
            out[c.name] = sum(float(a) * X[:, idx[f]] for f, a in c.coefficients.items())
        return out

    # ---- frames ----------------------------------------------------------------------------------------------

    def frame(self, X: np.ndarray, choices: dict[str, list]) -> pd.DataFrame:
        """The model's input rows: range features from X, discrete and categorical from `choices`, fixed as set."""
        n = len(X)
        cols: dict[str, object] = {}
        for i, c in enumerate(self.cont):
            cols[c] = X[:, i]
        for c in self.discrete:
            cols[c] = np.asarray(choices[c], dtype=float)
        for c in self.categorical:
            cols[c] = np.asarray(choices[c], dtype=object)
        for c, v in self.fixed.items():
            cols[c] = [v] * n
        return pd.DataFrame(cols)


def parse_constraints(raw: list[dict]) -> list[Constraint]:
    out = []
    for i, c in enumerate(raw or []):
        name = str(c.get("name") or f"constraint {i + 1}")
        if c.get("type") == "sum":
            feats = list(c.get("features") or [])
            if len(feats) < 2:
                raise opt_error("sum_needs_two", f'The sum constraint "{name}" needs at least two features.', constraint=name)
            out.append(Constraint(name, {f: 1.0 for f in feats}, "=", float(c["value"])))
        else:
            coefs = {str(k): float(v) for k, v in (c.get("coefficients") or {}).items()}
            out.append(Constraint(name, coefs, str(c.get("operator") or "<="), float(c["value"])))
    return out
