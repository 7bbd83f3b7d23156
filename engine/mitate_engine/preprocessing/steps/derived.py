"""Steps that compute values from other values: scaling, computed columns, moving windows."""

from __future__ import annotations

import math

import pandas as pd

from ...task import EngineError
from ..expression import columns_of, compute, parse
from .base import State, Step, _num, datetime_index, quartiles

# ---- scaling ------------------------------------------------------------------------------------


class Scaling(Step):
    """standard ((x − mean) / σ, σ with ddof 0 as scikit-learn's StandardScaler), minmax ((x − min) / (max − min)),
    robust ((x − median) / (Q3 − Q1), as RobustScaler)."""

    process_type = "scaling"
    methods = ("standard", "minmax", "robust")
    reads = {m: () for m in methods}
    learns = True

    def fit(self, df: pd.DataFrame, state: State) -> Step:
        cols = self.require_columns(df, numeric=True)
        out: dict[str, dict] = {}
        for c in cols:
            s = df[c].astype("float64")
            if s.notna().sum() == 0:
                raise EngineError("step_column_empty", column=c)
            if self.method == "standard":
                center, scale = s.mean(), s.std(ddof=0)
            elif self.method == "minmax":
                center, scale = s.min(), s.max() - s.min()
            else:
                q1, q3 = quartiles(s)
                center, scale = s.median(), q3 - q1
            if not scale or not math.isfinite(scale):
                raise EngineError("step_constant", column=c)
            out[c] = {"center": float(center), "scale": float(scale)}
        self.fitted_ = {"columns": out}
        return self

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        for c, p in self.need_fit()["columns"].items():
            if c not in df.columns:
                raise EngineError("step_column_missing", column=c)
            df[c] = (df[c].astype("float64") - p["center"]) / p["scale"]
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return list((self.fitted_ or {}).get("columns", {}).keys()) or super().target_columns(df)


# ---- computed columns ---------------------------------------------------------------------------


class Computed(Step):
    """A new (or replaced) column from an expression over columns; see expression.py."""

    process_type = "computed"
    methods = ("expression",)
    reads = {"expression": ("name", "expression")}
    required = {"expression": ("name", "expression")}

    def check_params(self) -> None:
        name = str(self.params.get("name") or "").strip()
        if not name:
            raise EngineError("step_new_column_name_required")
        self.params["name"] = name
        try:
            parse(str(self.params.get("expression") or ""))
        except EngineError as exc:
            raise EngineError("step_expression_invalid", reason=exc) from None

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        try:
            df[self.params["name"]] = compute(str(self.params["expression"]), df)
        except EngineError as exc:
            raise EngineError("step_expression_failed", column=str(self.params["name"]), reason=exc) from None
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return [self.params["name"]]

    def restricted_to(self, available: list[str]) -> Step | None:
        return self if all(c in available for c in self.source_columns()) else None

    def source_columns(self) -> list[str]:
        return columns_of(parse(str(self.params["expression"])))


# ---- moving windows -----------------------------------------------------------------------------


class Window(Step):
    """Rolling mean / std / min / max / median over `window` rows or a time `span` ('10min', '1h', '7D') on the
    datetime column, or `lag` rows back. New columns are named `<column>_<method>_<window>` (or `name`)."""

    process_type = "window"
    methods = ("mean", "std", "min", "max", "median", "lag")
    reads = {m: ("window", "span", "min_periods", "name") for m in methods} | {"lag": ("lag", "name")}

    def check_params(self) -> None:
        if self.method == "lag":
            self.params["lag"] = _num(self.params.get("lag", 1), "lag", lo=1, integer=True)
            return
        span = str(self.params.get("span") or "").strip()
        if span:
            try:
                pd.Timedelta(span)
            except ValueError:
                raise EngineError("step_bad_time_span", span=span) from None
            self.params["span"] = span
        else:
            self.params["window"] = _num(self.params.get("window", 3), "window", lo=1, integer=True)
        if self.params.get("min_periods") not in (None, ""):
            self.params["min_periods"] = _num(self.params["min_periods"], "min_periods", lo=1, integer=True)

    def label(self) -> str:
        if self.method == "lag":
            return f"lag{self.params['lag']}"
        return f"{self.method}_{self.params.get('span') or self.params['window']}"

    def out_name(self, c: str) -> str:
        base = str(self.params.get("name") or "").strip()
        if base and len(self.columns) == 1:
            return base
        return f"{c}_{base or self.label()}"

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        cols = self.require_columns(df, numeric=True)
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        if self.method == "lag":
            n = int(self.params["lag"])
            if n >= len(df):
                raise EngineError("step_lag_too_long", lag=str(n), rows=str(len(df)))
            for c in cols:
                df[self.out_name(c)] = df[c].shift(n)
            return df
        mp = self.params.get("min_periods")
        span = self.params.get("span")
        if span:
            t = state.datetime_column
            if not t or t not in df.columns:
                raise EngineError("step_time_span_no_datetime")
            times = datetime_index(df, t)
            if not times.is_monotonic_increasing:
                raise EngineError("step_time_span_unsorted", column=t)
            part = df[cols].astype("float64")
            part.index = times
            rolled = getattr(part.rolling(span, min_periods=int(mp) if mp else 1), self.method)()
            rolled.index = df.index
        else:
            w = int(self.params["window"])
            if w > len(df):
                raise EngineError("step_window_too_long", window=str(w), rows=str(len(df)))
            rolled = getattr(df[cols].astype("float64").rolling(w, min_periods=int(mp) if mp else w), self.method)()
        for c in cols:
            df[self.out_name(c)] = rolled[c]
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return [self.out_name(c) for c in self.columns]
