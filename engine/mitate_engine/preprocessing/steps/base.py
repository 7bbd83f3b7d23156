"""The contract every pre-processing step follows, and the checks the steps share.

`fit(df, state)` learns what the step needs from the data and stores it in `self.fitted_` (a JSON-able dict);
`transform(df, state)` applies exactly those fitted figures, so the same step gives the same result on inference
data. Steps keep the frame's index (rows removed keep their labels), which is how a preview lines up the rows
before and after a step. `state.datetime_column` follows renames and drops.

A step is described by a dict ``{"process_type", "method", "columns", "params", "fitted"?}``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ...task import EngineError


@dataclass
class State:
    datetime_column: str | None = None


def _num(v: Any, name: str, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise EngineError("step_param_not_number", name=name, value=str(v)) from None
    if not math.isfinite(f) or (lo is not None and f < lo) or (hi is not None and f > hi):
        code = "step_param_between" if lo is not None and hi is not None else "step_param_at_least" if lo is not None else "step_param_at_most"
        raise EngineError(code, name=name, value=str(v), lo=str(lo), hi=str(hi))
    if integer and not f.is_integer():
        raise EngineError("step_param_not_integer", name=name, value=str(v))
    return int(f) if integer else f


def datetime_index(df: pd.DataFrame, t: str) -> pd.DatetimeIndex:
    """The time column as dates and times; a whole-number order column (a sample number) has no durations, so a
    step measuring time refuses it rather than reading the numbers as nanoseconds."""
    s = df[t]
    if not (pd.api.types.is_datetime64_any_dtype(s) or pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
        raise EngineError("step_order_column_not_datetime", column=t)
    return pd.DatetimeIndex(s)


def quartiles(s: pd.Series) -> tuple[float, float]:
    """Q1 and Q3 of the non-missing values, as `s.quantile(0.25)` and `s.quantile(0.75)` give them (linear
    interpolation, the same NumPy percentile call pandas makes), from one partial sort instead of two."""
    v = s.to_numpy(dtype="float64", na_value=np.nan)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return math.nan, math.nan
    q1, q3 = np.percentile(v, [25.0, 75.0], method="linear")
    return float(q1), float(q3)


def is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


class Step(ABC):
    process_type: ClassVar[str] = ""
    methods: ClassVar[tuple[str, ...]] = ()
    #: the parameters each method reads, and those it cannot run without (the rest have defaults). The server refuses
    #: any other before a job starts (server preprocessing/schemas.ts READS, checked equal to catalogue.json).
    reads: ClassVar[dict[str, tuple[str, ...]]] = {}
    required: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: whether fit learns figures from the data (they are stored and reused unchanged on new data)
    learns: ClassVar[bool] = False

    def __init__(self, spec: dict):
        self.method = str(spec.get("method") or "")
        if self.method not in self.methods:
            raise EngineError("step_unknown_method", method=str(self.method), allowed=", ".join(self.methods))
        cols = spec.get("columns") or []
        if isinstance(cols, str):
            cols = [c for c in cols.split("|") if c]
        self.columns: list[str] = [str(c) for c in cols]
        self.params: dict = dict(spec.get("params") or {})
        self.fitted_: dict | None = spec.get("fitted") if spec.get("fitted") else None
        self.check_params()

    # -- contract ---------------------------------------------------------------------------------
    def check_params(self) -> None:
        """Validates the parameters without data (raises EngineError)."""

    def fit(self, df: pd.DataFrame, state: State) -> Step:
        self.fitted_ = {}
        return self

    @abstractmethod
    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        """Applies the fitted parameters unchanged."""

    def changes(self) -> dict:
        """What this step did, for the dataset's preprocess history."""
        out: dict[str, Any] = {}
        if self.columns:
            out["columns"] = self.columns
        out.update(self.params)
        if self.fitted_:
            out["fitted"] = self.fitted_
        return out

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        """The columns the step changes (for previews)."""
        return [c for c in self.columns if c in df.columns]

    def to_dict(self) -> dict:
        return {"process_type": self.process_type, "method": self.method, "columns": self.columns, "params": self.params, "fitted": self.fitted_}

    def restricted_to(self, available: list[str]) -> Step | None:
        """A copy limited to the columns present (for inference data without e.g. the target column), or None
        when nothing of the step applies. Fitted figures of absent columns are left out, never re-fitted."""
        import copy

        have = set(available)
        step = copy.deepcopy(self)
        if self.columns:
            step.columns = [c for c in self.columns if c in have]
            if not step.columns:
                return None
        f = step.fitted_
        if isinstance(f, dict):
            for key in ("bounds", "values", "columns"):
                if isinstance(f.get(key), dict):
                    f[key] = {c: v for c, v in f[key].items() if c in have}
                    if not f[key]:
                        return None
                elif isinstance(f.get(key), list):
                    f[key] = [c for c in f[key] if c in have]
            if isinstance(f.get("drop"), list):
                f["drop"] = [c for c in f["drop"] if c in have]
        if isinstance(step.params.get("mapping"), dict):
            step.params["mapping"] = {a: b for a, b in step.params["mapping"].items() if a in have}
            if not step.params["mapping"]:
                return None
        if "column" in step.params and step.process_type == "filter" and step.params["column"] not in have:
            return None
        return step

    # -- helpers ----------------------------------------------------------------------------------
    def require_columns(self, df: pd.DataFrame, numeric: bool = False, allow_empty: bool = False) -> list[str]:
        cols = self.columns
        if not cols:
            if allow_empty:
                return []
            if numeric:
                return [c for c in df.columns if is_numeric(df[c])]
            raise EngineError("step_no_columns")
        for c in cols:
            if c not in df.columns:
                raise EngineError("step_column_missing", column=c)
            if numeric and not is_numeric(df[c]):
                raise EngineError("step_not_numeric", column=c)
        return cols

    def need_fit(self) -> dict:
        if self.fitted_ is None:
            raise EngineError("step_not_fitted_yet")
        return self.fitted_
