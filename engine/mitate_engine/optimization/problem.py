"""From a job spec to a problem: the models, the targets, the feature settings and constraints as a Space."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..task import EngineError
from .models import LoadedModel, integer_features, load_models, training_ranges
from .objective import Target, parse_targets
from .space import Space, parse_constraints


@dataclass
class Problem:
    models: list[LoadedModel]
    targets: list[Target]
    space: Space
    features: list[str]  # every model input, in a stable order
    ranges: dict[str, tuple[float, float]]  # training data min/max per numeric feature and target
    categories: dict[str, list[str]]


def build_problem(spec: dict) -> Problem:
    models = load_models(spec.get("models") or [])
    targets = parse_targets(spec.get("targets") or [])
    model_targets = {m.target for m in models}
    for t in targets:
        if t.name not in model_targets:
            raise EngineError("optimization.target_without_model", target=t.name)
    features: list[str] = []
    kinds: dict[str, str] = {}
    categories: dict[str, list[str]] = {}
    for m in models:
        for f in m.model.features:
            if f not in features:
                features.append(f)
            kinds[f] = m.model.kinds.get(f, "numeric")
            if f in m.model.categories:
                categories[f] = list(m.model.categories[f])
    for t in targets:
        if t.name in features:
            raise EngineError("optimization.target_is_feature", target=t.name)
    ranges = training_ranges(spec.get("parquet"), [*features, *[t.name for t in targets]])
    for t in targets:
        lo, hi = ranges.get(t.name, (0.0, 1.0))
        t.low, t.high = lo, hi
    space = build_space(
        spec.get("features") or [],
        features,
        kinds,
        categories,
        ranges,
        bool(spec.get("forbid_extrapolation")),
        parse_constraints(spec.get("constraints") or []),
        integer_features(spec.get("parquet"), [f for f in features if kinds.get(f) != "category"]),
    )
    return Problem(models, targets, space, features, ranges, categories)


def _num(v, name: str, what: str) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise EngineError("optimization.not_number", feature=name, value=str(v)) from None
    if not np.isfinite(x):
        raise EngineError("optimization.not_number", feature=name, value=str(v))
    return x


def build_space(
    settings: list[dict],
    features: list[str],
    kinds: dict[str, str],
    categories: dict[str, list[str]],
    ranges: dict[str, tuple[float, float]],
    forbid_extrapolation: bool,
    constraints,
    integers: set[str] | None = None,
) -> Space:
    by_name = {str(s.get("name")): s for s in settings}
    unknown = [n for n in by_name if n not in features]
    if unknown:
        raise EngineError("optimization.unknown_feature", feature=unknown[0])
    missing = [f for f in features if f not in by_name]
    if missing:
        raise EngineError("optimization.feature_unset", feature=missing[0])
    cont, lower, upper, units = [], [], [], {}
    discrete: dict[str, list[float]] = {}
    categorical: dict[str, list[str]] = {}
    fixed: dict[str, object] = {}
    for f in features:
        s = by_name[f]
        kind = s.get("kind") or "range"
        if s.get("unit"):
            units[f] = str(s["unit"])
        if kinds.get(f) == "category":
            known = categories.get(f, [])
            levels = [str(v) for v in (s.get("values") or ([s["value"]] if s.get("value") is not None else []))]
            if not levels:
                raise EngineError("optimization.levels_unset", feature=f)
            unseen = [v for v in levels if v not in known]
            if unseen:
                raise EngineError("optimization.unseen_level", feature=f, value=unseen[0])
            if len(levels) == 1:
                fixed[f] = levels[0]
            else:
                categorical[f] = list(dict.fromkeys(levels))
            continue
        seen = ranges.get(f)
        if kind == "fixed":
            fixed[f] = _num(s.get("value"), f, "fixed value")
        elif kind == "discrete":
            vals = sorted({_num(v, f, "value") for v in (s.get("values") or [])})
            if forbid_extrapolation and seen:
                vals = [v for v in vals if seen[0] <= v <= seen[1]]
            if not vals:
                raise EngineError("optimization.discrete_empty", feature=f)
            if len(vals) == 1:
                fixed[f] = vals[0]
            else:
                discrete[f] = vals
        elif kind == "range":
            if s.get("lower") is None or s.get("upper") is None or s.get("lower") == "" or s.get("upper") == "":
                raise EngineError("optimization.range_unset", feature=f)
            lo, hi = _num(s["lower"], f, "lower bound"), _num(s["upper"], f, "upper bound")
            if lo >= hi:
                raise EngineError("optimization.range_inverted", feature=f)
            if forbid_extrapolation and seen:
                lo, hi = max(lo, seen[0]), min(hi, seen[1])
                if lo >= hi:
                    raise EngineError("optimization.range_outside_data", feature=f, lower=seen[0], upper=seen[1])
            if f in (integers or ()):
                # whole numbers only: the range's whole numbers (one of them: held there)
                lo, hi = float(np.ceil(lo)), float(np.floor(hi))
                if lo > hi:
                    raise EngineError("optimization.range_no_integer", feature=f)
                if lo == hi:
                    fixed[f] = lo
                    continue
            cont.append(f)
            lower.append(lo)
            upper.append(hi)
        else:
            raise EngineError("optimization.feature_kind", feature=f)
    return Space(cont, np.array(lower), np.array(upper), discrete, categorical, fixed, constraints, units, [f for f in cont if f in (integers or ())])
