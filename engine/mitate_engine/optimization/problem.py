"""From a job spec to a problem: the models, the targets, the feature settings and constraints as a Space."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import opt_error
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
            raise opt_error("target_without_model", f'No chosen model predicts "{t.name}".', target=t.name)
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
            raise opt_error("target_is_feature", f'The target "{t.name}" is an input of a chosen model; it cannot be both.', target=t.name)
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
        raise opt_error("not_number", f'The {what} of "{name}" must be a number; it is "{v}".', feature=name, value=str(v)) from None
    if not np.isfinite(x):
        raise opt_error("not_number", f'The {what} of "{name}" must be a finite number.', feature=name, value=str(v))
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
        raise opt_error("unknown_feature", f'"{unknown[0]}" is not an input of the chosen models.', feature=unknown[0])
    missing = [f for f in features if f not in by_name]
    if missing:
        raise opt_error("feature_unset", f'Set a range, values or a fixed value for "{missing[0]}".', feature=missing[0])
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
                raise opt_error("levels_unset", f'Choose at least one level of "{f}".', feature=f)
            unseen = [v for v in levels if v not in known]
            if unseen:
                raise opt_error("unseen_level", f'The model never saw the level "{unseen[0]}" of "{f}".', feature=f, value=unseen[0])
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
                raise opt_error(
                    "discrete_empty", f'Enter at least one value for "{f}"' + (" inside the training data's range." if forbid_extrapolation else "."), feature=f
                )
            if len(vals) == 1:
                fixed[f] = vals[0]
            else:
                discrete[f] = vals
        elif kind == "range":
            if s.get("lower") is None or s.get("upper") is None or s.get("lower") == "" or s.get("upper") == "":
                raise opt_error("range_unset", f'Enter the lower and upper bounds of "{f}".', feature=f)
            lo, hi = _num(s["lower"], f, "lower bound"), _num(s["upper"], f, "upper bound")
            if lo >= hi:
                raise opt_error("range_inverted", f'The lower bound of "{f}" must be below its upper bound (to hold it at one value, choose fixed).', feature=f)
            if forbid_extrapolation and seen:
                lo, hi = max(lo, seen[0]), min(hi, seen[1])
                if lo >= hi:
                    raise opt_error(
                        "range_outside_data",
                        f'The range of "{f}" lies outside the training data ({seen[0]:g} to {seen[1]:g}).',
                        feature=f,
                        lower=seen[0],
                        upper=seen[1],
                    )
            if f in (integers or ()):
                # whole numbers only: the range's whole numbers (one of them: held there)
                lo, hi = float(np.ceil(lo)), float(np.floor(hi))
                if lo > hi:
                    raise opt_error("range_no_integer", f'The range of "{f}" holds no whole number, and "{f}" takes whole numbers.', feature=f)
                if lo == hi:
                    fixed[f] = lo
                    continue
            cont.append(f)
            lower.append(lo)
            upper.append(hi)
        else:
            raise opt_error("feature_kind", f'Choose range, discrete or fixed for "{f}".', feature=f)
    return Space(cont, np.array(lower), np.array(upper), discrete, categorical, fixed, constraints, units, [f for f in cont if f in (integers or ())])
