"""The design space (SPEC §3 'Optimal design project'): variables, sum and linear constraints, feasibility.

A point is a float vector in natural units with one entry per variable; a categorical variable holds the index
of its level. Numeric variables (continuous, discrete, mixture) span a polytope:
    lo <= x <= hi,  A_eq x = b_eq (sum constraints, the mixture total),  A_ub x <= b_ub (linear inequalities).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

from ..task import EngineError

TOL = 1e-9
# The uploaded files a row can come from, by the code sent in an error's `file` (the server names them in the
# reader's language); the English names are for the error's own text.
FILE_NAMES = {"runs": "Runs file", "exclude": "Exclude file", "design": "Design file", "ours": "Our design"}


def reason_text(r: dict) -> str:
    """One reason a point is refused (from Space.reasons), in English; the server says it from its catalogue."""
    name = r.get("variable")
    if r["code"] == "missing":
        return f'"{name}" has no value'
    if r["code"] == "level":
        return f'"{name}" is not one of its levels'
    if r["code"] == "range":
        return f'"{name}" is outside {r["low"]:g} to {r["high"]:g}'
    if r["code"] == "levels":
        return f'"{name}" is not one of {", ".join(f"{v:g}" for v in r["levels"])}'
    return f"breaks {r['label']}"


KINDS = ("continuous", "discrete", "categorical", "mixture")
MAX_DECIMALS = 7


@dataclass
class Variable:
    name: str
    kind: str
    low: float = 0.0
    high: float = 1.0
    levels: list = field(default_factory=list)  # discrete: numbers; categorical: labels

    @property
    def numeric(self) -> bool:
        return self.kind != "categorical"


@dataclass
class Space:
    variables: list[Variable]
    mixture_total: float = 1.0
    a_eq: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    b_eq: np.ndarray = field(default_factory=lambda: np.zeros(0))
    a_ub: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    b_ub: np.ndarray = field(default_factory=lambda: np.zeros(0))
    eq_labels: list[str] = field(default_factory=list)
    ub_labels: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def k(self) -> int:
        return len(self.variables)

    def index(self, name: str) -> int:
        return self.names.index(name)

    @property
    def mixture(self) -> list[int]:
        return [i for i, v in enumerate(self.variables) if v.kind == "mixture"]

    @property
    def numeric_idx(self) -> list[int]:
        return [i for i, v in enumerate(self.variables) if v.numeric]

    @property
    def categorical_idx(self) -> list[int]:
        return [i for i, v in enumerate(self.variables) if v.kind == "categorical"]

    @property
    def lo(self) -> np.ndarray:
        return np.array([v.low if v.numeric else 0.0 for v in self.variables], dtype=float)

    @property
    def hi(self) -> np.ndarray:
        return np.array([v.high if v.numeric else len(v.levels) - 1.0 for v in self.variables], dtype=float)

    @property
    def constrained(self) -> bool:
        """True when the numeric region is not a box (mixture totals, sum or linear constraints)."""
        return self.a_eq.shape[0] > 0 or self.a_ub.shape[0] > 0

    # ---- feasibility -------------------------------------------------------------------------------------

    def reasons(self, x: np.ndarray, tol: float = TOL, ranges_only: bool = False) -> list[dict]:
        """Every rule one point breaks, as {code, ...} (empty when the point is feasible): a value missing, not a level,
        outside its range or not one of its discrete values, and (unless `ranges_only`) a constraint by its label."""
        out: list[dict] = []
        for i, v in enumerate(self.variables):
            xi = x[i]
            if not np.isfinite(xi):
                if not ranges_only:
                    out.append({"code": "missing", "variable": v.name})
            elif v.kind == "categorical":
                if not ranges_only and (xi != round(xi) or not 0 <= xi < len(v.levels)):
                    out.append({"code": "level", "variable": v.name})
            elif xi < v.low - tol * max(1.0, abs(v.low)) or xi > v.high + tol * max(1.0, abs(v.high)):
                out.append({"code": "range", "variable": v.name, "low": float(v.low), "high": float(v.high)})
            elif v.kind == "discrete" and not any(abs(xi - lv) <= tol * max(1.0, abs(lv)) for lv in v.levels):
                out.append({"code": "levels", "variable": v.name, "levels": [float(lv) for lv in v.levels]})
        if ranges_only:
            return out
        if self.a_eq.shape[0]:
            r = self.a_eq @ np.nan_to_num(x) - self.b_eq
            out += [{"code": "constraint", "label": self.eq_labels[j]} for j in np.flatnonzero(np.abs(r) > tol * np.maximum(1.0, np.abs(self.b_eq)))]
        if self.a_ub.shape[0]:
            r = self.a_ub @ np.nan_to_num(x) - self.b_ub
            out += [{"code": "constraint", "label": self.ub_labels[j]} for j in np.flatnonzero(r > tol * np.maximum(1.0, np.abs(self.b_ub)))]
        return out

    def violations(self, x: np.ndarray, tol: float = TOL) -> list[str]:
        """Every rule one point breaks, in English (empty when the point is feasible)."""
        return [reason_text(r) for r in self.reasons(x, tol)]

    def feasible_mask(self, X: np.ndarray, tol: float = TOL) -> np.ndarray:
        X = np.atleast_2d(X)
        ok = np.all(np.isfinite(X), axis=1)
        lo, hi = self.lo, self.hi
        scale = np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
        ok &= np.all(X >= lo - tol * scale, axis=1) & np.all(X <= hi + tol * scale, axis=1)
        for i, v in enumerate(self.variables):
            if v.kind == "discrete":
                lv = np.asarray(v.levels, dtype=float)
                ok &= np.min(np.abs(X[:, [i]] - lv[None, :]), axis=1) <= tol * np.maximum(1.0, np.abs(X[:, i]))
            elif v.kind == "categorical":
                ok &= X[:, i] == np.round(X[:, i])
        Xz = np.nan_to_num(X)
        if self.a_eq.shape[0]:
            ok &= np.all(np.abs(Xz @ self.a_eq.T - self.b_eq) <= tol * np.maximum(1.0, np.abs(self.b_eq)), axis=1)
        if self.a_ub.shape[0]:
            ok &= np.all(Xz @ self.a_ub.T - self.b_ub <= tol * np.maximum(1.0, np.abs(self.b_ub)), axis=1)
        return ok

    def project(self, X: np.ndarray) -> np.ndarray:
        """Removes floating-point drift: clips to the bounds and, for each equality row on disjoint variables,
        rescales the free part so the sum is exact (the designs' points are vertices and averages of vertices)."""
        X = np.array(X, dtype=float, copy=True)
        X = np.clip(X, self.lo, self.hi)
        for row, b in zip(self.a_eq, self.b_eq):
            idx = np.flatnonzero(row)
            if idx.size and np.all(row[idx] == 1.0):
                s = X[:, idx].sum(axis=1)
                X[:, idx[-1]] += b - s  # the rounding residue (≈1e-16) lands on one component
        return X


def _num(value, what: str) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise EngineError("not_a_number", what=what) from None
    if not np.isfinite(f):
        raise EngineError("not_a_number", what=what)
    return f


def _linear_text(coefs: dict) -> str:
    out = ""
    for n, a in coefs.items():
        a = float(a)
        sign = "-" if a < 0 else "+"
        mag = "" if abs(a) == 1 else f"{abs(a):g}·"
        out += f"{'-' if a < 0 else ''}{mag}{n}" if not out else f" {sign} {mag}{n}"
    return out


def build_space(spec_vars: list[dict], constraints: list[dict] | None = None, mixture_total: float | None = None) -> Space:
    """Variables and constraints from the project's JSON, checked; raises a coded error naming what is wrong."""
    if not spec_vars:
        raise EngineError("no_variables")
    seen: set[str] = set()
    variables: list[Variable] = []
    for raw in spec_vars:
        name = str(raw.get("name") or "").strip()
        if not name:
            raise EngineError("variable_name_required")
        if name in seen:
            raise EngineError("variable_duplicate", variable=name)
        seen.add(name)
        kind = raw.get("type") or raw.get("kind") or "continuous"
        if kind not in KINDS:
            raise EngineError("variable_type", variable=name, type=kind)
        if kind == "categorical":
            levels = [str(x) for x in raw.get("levels") or []]
            if len(levels) < 2 or len(set(levels)) != len(levels):
                raise EngineError("levels_required", variable=name)
            variables.append(Variable(name, kind, 0.0, len(levels) - 1.0, levels))
            continue
        if kind == "discrete":
            levels = sorted({_num(x, f"A level of {name}") for x in raw.get("levels") or []})
            if len(levels) < 2:
                raise EngineError("levels_required", variable=name)
            variables.append(Variable(name, kind, levels[0], levels[-1], levels))
            continue
        low, high = _num(raw.get("low"), f"The lower bound of {name}"), _num(raw.get("high"), f"The upper bound of {name}")
        if not low < high:
            raise EngineError("bounds_order", variable=name)
        if kind == "mixture" and low < 0:
            raise EngineError("mixture_negative", variable=name)
        variables.append(Variable(name, kind, low, high, []))

    space = Space(variables)
    k = len(variables)
    eq_rows, eq_b, eq_labels, ub_rows, ub_b, ub_labels = [], [], [], [], [], []
    mix = space.mixture
    if mix:
        total = _num(mixture_total if mixture_total is not None else 1.0, "The mixture total")
        if total <= 0:
            raise EngineError("total_positive")
        if len(mix) < 2:
            raise EngineError("mixture_too_few")
        space.mixture_total = total
        lo_sum = sum(variables[i].low for i in mix)
        hi_sum = sum(variables[i].high for i in mix)
        label = " + ".join(variables[i].name for i in mix) + f" = {total:g}"
        if lo_sum > total * (1 + TOL) or hi_sum < total * (1 - TOL):
            raise EngineError("mixture_unreachable", total=f"{total:g}", low_sum=f"{lo_sum:g}", high_sum=f"{hi_sum:g}")
        row = np.zeros(k)
        row[mix] = 1.0
        eq_rows.append(row), eq_b.append(total), eq_labels.append(label)

    for c in constraints or []:
        kind = c.get("type") or "sum"
        names = list(c.get("variables") or (c.get("coefficients") or {}).keys())
        coefs = c.get("coefficients") or {n: 1.0 for n in names}
        if not coefs:
            raise EngineError("constraint_empty")
        row = np.zeros(k)
        for n, a in coefs.items():
            if n not in seen:
                raise EngineError("constraint_unknown", variable=n)
            i = space.index(n)
            if variables[i].kind == "categorical":
                raise EngineError("constraint_categorical", variable=n)
            row[i] = _num(a, f"The coefficient of {n}")
        rhs = _num(c.get("total", c.get("rhs")), "The constraint total")
        op = c.get("op") or ("=" if kind == "sum" else "<=")
        text = _linear_text(coefs) + f" {op} {rhs:g}"
        if op == "=":
            eq_rows.append(row), eq_b.append(rhs), eq_labels.append(text)
        elif op == "<=":
            ub_rows.append(row), ub_b.append(rhs), ub_labels.append(text)
        elif op == ">=":
            ub_rows.append(-row), ub_b.append(-rhs), ub_labels.append(text)
        else:
            raise EngineError("constraint_op", op=op)
    if eq_rows:
        space.a_eq, space.b_eq, space.eq_labels = np.array(eq_rows), np.array(eq_b), eq_labels
    else:
        space.a_eq, space.b_eq = np.zeros((0, k)), np.zeros(0)
    if ub_rows:
        space.a_ub, space.b_ub, space.ub_labels = np.array(ub_rows), np.array(ub_b), ub_labels
    else:
        space.a_ub, space.b_ub = np.zeros((0, k)), np.zeros(0)
    check_feasible(space)
    return space


def _lp_feasible(space: Space, eq: list[int], ub: list[int]) -> bool:
    num = space.numeric_idx
    bounds = [(space.variables[i].low, space.variables[i].high) for i in num]
    a_eq = space.a_eq[np.ix_(eq, num)] if eq else None
    a_ub = space.a_ub[np.ix_(ub, num)] if ub else None
    res = linprog(
        np.zeros(len(num)), A_ub=a_ub, b_ub=space.b_ub[ub] if ub else None, A_eq=a_eq, b_eq=space.b_eq[eq] if eq else None, bounds=bounds, method="highs"
    )
    return res.status == 0


def check_feasible(space: Space) -> None:
    """Infeasible constraints are named: a deletion filter finds a smallest conflicting set with the bounds."""
    eq, ub = list(range(space.a_eq.shape[0])), list(range(space.a_ub.shape[0]))
    if not space.numeric_idx or _lp_feasible(space, eq, ub):
        return
    # Drop each constraint in turn; keep it out if the rest is still infeasible (Chinneck's deletion filter).
    keep_eq, keep_ub = list(eq), list(ub)
    for j in list(eq):
        trial = [x for x in keep_eq if x != j]
        if not _lp_feasible(space, trial, keep_ub):
            keep_eq = trial
    for j in list(ub):
        trial = [x for x in keep_ub if x != j]
        if not _lp_feasible(space, keep_eq, trial):
            keep_ub = trial
    labels = [space.eq_labels[j] for j in keep_eq] + [space.ub_labels[j] for j in keep_ub]
    which = "; ".join(labels) if labels else "the variable bounds"
    raise EngineError("infeasible", constraints=which)


def points_from_rows(space: Space, rows: list[dict], file: str) -> np.ndarray:
    """Rows of a CSV/JSON (by variable name) as points; missing values, unknown levels and words are errors naming the
    file (a FILE_NAMES code), the row and the variable."""
    what = FILE_NAMES.get(file, file)
    X = np.full((len(rows), space.k), np.nan)
    for r, row in enumerate(rows):
        for i, v in enumerate(space.variables):
            if v.name not in row or row[v.name] is None or row[v.name] == "":
                raise EngineError("file_missing_value", file=file, row=r + 1, variable=v.name)
            val = row[v.name]
            if v.kind == "categorical":
                label = str(val)
                if label not in v.levels:
                    raise EngineError("file_unknown_level", file=file, row=r + 1, variable=v.name, value=label)
                X[r, i] = v.levels.index(label)
            else:
                try:
                    X[r, i] = _num(val, f'{what}: row {r + 1}, "{v.name}"')
                except EngineError:
                    raise EngineError("file_not_a_number", file=file, row=r + 1, variable=v.name, value=str(val)[:50]) from None
    return X


def format_value(v: Variable, x: float):
    """A point's value for people: the level label, or the number rounded to at most 7 decimals (SPEC §9)."""
    if v.kind == "categorical":
        return v.levels[int(round(x))]
    r = round(float(x), MAX_DECIMALS)
    return 0.0 if r == 0 else r


def _fix_sums(space: Space, x: np.ndarray) -> np.ndarray:
    """After rounding, puts each unit-coefficient sum back to its total on the member with the most slack."""
    for row, b in zip(space.a_eq, space.b_eq):
        idx = np.flatnonzero(row)
        if not (idx.size and np.all(row[idx] == 1.0)):
            continue
        slack = np.minimum(x[idx] - space.lo[idx], space.hi[idx] - x[idx])
        j = idx[int(np.argmax(slack))]
        x[j] = round(b - (x[idx].sum() - x[j]), MAX_DECIMALS)
    return x


def round_points(space: Space, X: np.ndarray) -> np.ndarray:
    """Points with at most 7 decimals (SPEC §9) that still satisfy every constraint; when no rounding of a point
    keeps it feasible, the point keeps its full precision (feasibility wins over brevity)."""
    out = np.array(X, dtype=float, copy=True)
    num = space.numeric_idx
    for r in range(out.shape[0]):
        x = out[r].copy()
        x[num] = np.round(x[num], MAX_DECIMALS)
        x = _fix_sums(space, x)
        if space.feasible_mask(x[None, :])[0]:
            out[r] = x
            continue
        if len(num) <= 12:
            step = 10.0**-MAX_DECIMALS
            base = np.floor(out[r, num] / step) * step
            for mask in range(1 << len(num)):
                y = out[r].copy()
                y[num] = np.round(base + step * np.array([(mask >> b) & 1 for b in range(len(num))]), MAX_DECIMALS)
                y = _fix_sums(space, y)
                if space.feasible_mask(y[None, :])[0]:
                    out[r] = y
                    break
    return out
