"""Model matrices: linear, interactions, quadratic, Scheffé mixture models, or chosen terms.

Numeric non-mixture variables are coded to [-1, 1] (the usual scale for design criteria), mixture components
become proportions of the mixture total, categorical variables get effect coding (levels − 1 columns).
A term is a tuple of coded-column indices multiplied together; () is the intercept.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from ..task import EngineError
from .space import Space

MODEL_KINDS = ("linear", "interactions", "quadratic", "scheffe_linear", "scheffe_quadratic", "scheffe_special_cubic", "custom")


@dataclass
class Model:
    space: Space
    columns: list[tuple[int, int | None]]  # coded column -> (variable index, level index for effect coding or None)
    column_names: list[str]
    terms: list[tuple[int, ...]]
    names: list[str]

    @property
    def p(self) -> int:
        return len(self.terms)

    def coded(self, X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        sp = self.space
        Z = np.empty((X.shape[0], len(self.columns)))
        for c, (i, level) in enumerate(self.columns):
            v = sp.variables[i]
            if v.kind == "categorical":
                lv = X[:, i]
                last = len(v.levels) - 1
                Z[:, c] = np.where(lv == level, 1.0, np.where(lv == last, -1.0, 0.0))
            elif v.kind == "mixture":
                Z[:, c] = X[:, i] / sp.mixture_total
            else:
                mid, half = (v.low + v.high) / 2, (v.high - v.low) / 2
                Z[:, c] = (X[:, i] - mid) / half
        return Z

    def matrix(self, X: np.ndarray) -> np.ndarray:
        Z = self.coded(X)
        F = np.ones((Z.shape[0], self.p))
        for j, term in enumerate(self.terms):
            for c in term:
                F[:, j] *= Z[:, c]
        return F


def _columns(space: Space):
    cols, names, groups = [], [], []
    for i, v in enumerate(space.variables):
        if v.kind == "categorical":
            g = []
            for lv in range(len(v.levels) - 1):
                g.append(len(cols))
                cols.append((i, lv))
                names.append(f"{v.name}[{v.levels[lv]}]")
            groups.append(g)
        else:
            groups.append([len(cols)])
            cols.append((i, None))
            names.append(v.name)
    return cols, names, groups


def _prod_name(names: list[str], term: tuple[int, ...]) -> str:
    if not term:
        return "Intercept"
    parts = []
    for c in sorted(set(term)):
        n = term.count(c)
        parts.append(names[c] if n == 1 else f"{names[c]}^{n}")
    return "*".join(parts)


def build_model(space: Space, kind: str = "quadratic", terms: list[str] | None = None) -> Model:
    if kind not in MODEL_KINDS:
        raise EngineError("model_kind", model=kind)
    cols, cnames, groups = _columns(space)
    mix = set(space.mixture)
    if kind == "custom":
        chosen = _parse_terms(space, terms or [], cnames, groups)
    else:
        chosen = _standard_terms(space, kind, groups, mix)
    uniq: list[tuple[int, ...]] = []
    for t in chosen:
        t = tuple(sorted(t))
        if t not in uniq:
            uniq.append(t)
    if not uniq:
        raise EngineError("model_empty")
    return Model(space, cols, cnames, uniq, [_prod_name(cnames, t) for t in uniq])


def _standard_terms(space: Space, kind: str, groups, mix: set[int]) -> list[tuple[int, ...]]:
    process = [i for i in range(space.k) if i not in mix]
    terms: list[tuple[int, ...]] = []
    if mix:
        m = sorted(mix)
        if kind.startswith("scheffe_"):
            order = kind
        else:  # the Scheffé model of the same order for the components; no intercept (it is the sum of the x_i)
            order = {"linear": "scheffe_linear", "interactions": "scheffe_quadratic", "quadratic": "scheffe_quadratic"}[kind]
        terms += [(groups[i][0],) for i in m]
        if order in ("scheffe_quadratic", "scheffe_special_cubic"):
            terms += [(groups[a][0], groups[b][0]) for a, b in itertools.combinations(m, 2)]
        if order == "scheffe_special_cubic":
            terms += [(groups[a][0], groups[b][0], groups[c][0]) for a, b, c in itertools.combinations(m, 3)]
        kind = "linear" if kind.startswith("scheffe_") else kind
    elif kind.startswith("scheffe_"):
        raise EngineError("scheffe_needs_mixture")
    else:
        terms.append(())
    mains = [(c,) for i in process for c in groups[i]]
    terms += mains
    if kind in ("interactions", "quadratic"):
        for a, b in itertools.combinations(process, 2):
            terms += [(ca, cb) for ca in groups[a] for cb in groups[b]]
    if kind == "quadratic":
        for i in process:
            v = space.variables[i]
            if v.kind == "continuous" or (v.kind == "discrete" and len(v.levels) >= 3):
                terms.append((groups[i][0], groups[i][0]))
    return terms


_TERM = re.compile(r"^\s*(.+?)\s*(?:\^\s*(\d+))?\s*$")


def _parse_terms(space: Space, terms: list[str], cnames, groups) -> list[tuple[int, ...]]:
    """'1' (intercept), 'A', 'A*B', 'A^2', 'A*B*C'; a categorical variable contributes all its effect columns."""
    out: list[tuple[int, ...]] = []
    for raw in terms:
        raw = str(raw).strip()
        if raw in ("1", "Intercept", "intercept"):
            out.append(())
            continue
        parts: list[list[int]] = []
        for factor in raw.split("*"):
            m = _TERM.match(factor)
            name, power = m.group(1), int(m.group(2) or 1)
            if name not in space.names:
                raise EngineError("term_unknown", term=raw, variable=name)
            i = space.index(name)
            if power > 1 and space.variables[i].kind == "categorical":
                raise EngineError("term_power_categorical", term=raw)
            parts += [groups[i]] * power
        out += [tuple(p) for p in itertools.product(*parts)]
    return out
