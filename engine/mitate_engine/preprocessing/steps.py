"""Every pre-processing step, one class each, with the scikit-learn contract.

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

from .expression import ExpressionError, columns_of, compute, parse


class StepError(ValueError):
    """A readable problem with one step; the pipeline prefixes it with the step's number and name. With a `code`
    (and params) from the engine's message catalogue the server says it in the user's language."""

    def __init__(self, message: str, code: str | None = None, **params):
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass
class State:
    datetime_column: str | None = None


def _num(v: Any, name: str, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise StepError(f'the parameter "{name}" must be a number, not "{v}"', code="step_param_not_number", name=name, value=str(v)) from None
    if not math.isfinite(f) or (lo is not None and f < lo) or (hi is not None and f > hi):
        rng = f"between {lo} and {hi}" if lo is not None and hi is not None else f"at least {lo}" if lo is not None else f"at most {hi}"
        code = "step_param_between" if lo is not None and hi is not None else "step_param_at_least" if lo is not None else "step_param_at_most"
        raise StepError(f'the parameter "{name}" must be {rng}, not {v}', code=code, name=name, value=str(v), lo=str(lo), hi=str(hi))
    if integer and not f.is_integer():
        raise StepError(f'the parameter "{name}" must be a whole number, not {v}', code="step_param_not_integer", name=name, value=str(v))
    return int(f) if integer else f


def datetime_index(df: pd.DataFrame, t: str) -> pd.DatetimeIndex:
    """The time column as dates and times; a whole-number order column (a sample number) has no durations, so a
    step measuring time refuses it rather than reading the numbers as nanoseconds."""
    s = df[t]
    if not (pd.api.types.is_datetime64_any_dtype(s) or pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
        raise StepError(f'the column "{t}" orders the rows by number, not by date and time', code="step_order_column_not_datetime", column=t)
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
            raise StepError(
                f'unknown method "{self.method}" (allowed: {", ".join(self.methods)})',
                code="step_unknown_method",
                method=str(self.method),
                allowed=", ".join(self.methods),
            )
        cols = spec.get("columns") or []
        if isinstance(cols, str):
            cols = [c for c in cols.split("|") if c]
        self.columns: list[str] = [str(c) for c in cols]
        self.params: dict = dict(spec.get("params") or {})
        self.fitted_: dict | None = spec.get("fitted") if spec.get("fitted") else None
        self.check_params()

    # -- contract ---------------------------------------------------------------------------------
    def check_params(self) -> None:
        """Validates the parameters without data (raises StepError)."""

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
            raise StepError("choose at least one column", code="step_no_columns")
        for c in cols:
            if c not in df.columns:
                raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
            if numeric and not is_numeric(df[c]):
                raise StepError(f'the column "{c}" is not numeric', code="step_not_numeric", column=c)
        return cols

    def need_fit(self) -> dict:
        if self.fitted_ is None:
            raise StepError("this step has not been fitted", code="step_not_fitted_yet")
        return self.fitted_


# ---- outliers -----------------------------------------------------------------------------------


class Outliers(Step):
    """IQR rule (k × IQR beyond the quartiles), z-score (|x − mean| > t·σ, σ with ddof 0) or Hampel filter
    (|x − rolling median| > t · 1.4826 · rolling MAD over a centred window). Action: remove the row, set the value
    missing, or clip (to the fitted bounds; Hampel replaces with the rolling median)."""

    process_type = "outliers"
    methods = ("iqr", "zscore", "hampel")
    reads = {"iqr": ("action", "k"), "zscore": ("action", "threshold"), "hampel": ("action", "window", "threshold")}
    learns = True

    def check_params(self) -> None:
        self.action = str(self.params.get("action") or "remove")
        if self.action not in ("remove", "set_missing", "clip"):
            raise StepError(f'unknown action "{self.action}" (allowed: remove, set_missing, clip)', code="step_unknown_action", action=str(self.action))
        self.params["action"] = self.action
        if self.method == "iqr":
            self.params["k"] = _num(self.params.get("k", 1.5), "k", lo=0)
        elif self.method == "zscore":
            self.params["threshold"] = _num(self.params.get("threshold", 3), "threshold", lo=0)
        else:
            self.params["window"] = _num(self.params.get("window", 7), "window", lo=3, integer=True)
            self.params["threshold"] = _num(self.params.get("threshold", 3), "threshold", lo=0)

    def fit(self, df: pd.DataFrame, state: State) -> Step:
        cols = self.require_columns(df, numeric=True)
        fitted: dict[str, dict] = {}
        if self.method == "hampel":
            if int(self.params["window"]) > len(df):
                raise StepError(
                    f"the window ({self.params['window']} rows) is longer than the data ({len(df)} rows)",
                    code="step_window_too_long",
                    window=str(self.params["window"]),
                    rows=str(len(df)),
                )
            self.fitted_ = {"columns": cols}
            return self
        for c in cols:
            s = df[c].astype("float64")
            if self.method == "iqr":
                q1, q3 = quartiles(s)
                k = float(self.params["k"])
                lo, hi = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
            else:
                m, sd = s.mean(), s.std(ddof=0)
                t = float(self.params["threshold"])
                lo, hi = m - t * sd, m + t * sd
            fitted[c] = {"lower": None if pd.isna(lo) else float(lo), "upper": None if pd.isna(hi) else float(hi)}
        self.fitted_ = {"bounds": fitted}
        return self

    def outlier_mask(self, df: pd.DataFrame) -> dict[str, pd.Series]:
        f = self.need_fit()
        masks: dict[str, pd.Series] = {}
        if self.method == "hampel":
            w, t = int(self.params["window"]), float(self.params["threshold"])
            for c in f["columns"]:
                if c not in df.columns:
                    raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
                s = df[c].astype("float64")
                med = s.rolling(w, center=True, min_periods=1).median()
                mad = (s - med).abs().rolling(w, center=True, min_periods=1).median() * 1.4826
                masks[c] = ((s - med).abs() > t * mad) & (mad > 0)
            return masks
        for c, b in f["bounds"].items():
            if c not in df.columns:
                raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
            s = df[c].astype("float64")
            lo = -np.inf if b["lower"] is None else b["lower"]
            hi = np.inf if b["upper"] is None else b["upper"]
            masks[c] = (s < lo) | (s > hi)
        return masks

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        masks = self.outlier_mask(df)
        f = self.need_fit()
        if self.action == "remove":
            drop = pd.Series(False, index=df.index)
            for m in masks.values():
                drop |= m
            return df.loc[~drop]
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        for c, m in masks.items():
            if not m.any():
                continue
            s = df[c].astype("float64")
            if self.action == "set_missing":
                s[m] = np.nan
            elif self.method == "hampel":
                med = s.rolling(int(self.params["window"]), center=True, min_periods=1).median()
                s[m] = med[m]
            else:
                b = f["bounds"][c]
                s = s.clip(lower=b["lower"], upper=b["upper"])
            df[c] = s
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        if self.fitted_:
            return list(self.fitted_.get("bounds", {}).keys()) or list(self.fitted_.get("columns", []))
        return super().target_columns(df)


# ---- missing values -----------------------------------------------------------------------------


class Missing(Step):
    """drop_rows (with a missing value in the chosen columns, or any column), drop_columns (missing share above
    `threshold`), mean / median / mode / constant fill (fitted values), ffill, bfill, linear and time
    interpolation (both directions, so edges are filled too)."""

    process_type = "missing"
    methods = ("drop_rows", "drop_columns", "mean", "median", "mode", "constant", "ffill", "bfill", "linear", "time")
    reads = {m: () for m in methods} | {"drop_columns": ("threshold",), "constant": ("value",)}
    required = {"constant": ("value",)}
    learns = True

    def check_params(self) -> None:
        if self.method == "drop_columns":
            self.params["threshold"] = _num(self.params.get("threshold", 0.5), "threshold", lo=0, hi=1)
        if self.method == "constant" and ("value" not in self.params or self.params["value"] in (None, "")):
            raise StepError('the parameter "value" (the constant to fill with) is required', code="step_fill_value_required")

    def fit(self, df: pd.DataFrame, state: State) -> Step:
        if self.method == "drop_columns":
            share = df.isna().mean()
            t = float(self.params["threshold"])
            cols = self.columns or list(df.columns)
            self.require_columns(df, allow_empty=True)
            self.fitted_ = {"drop": [c for c in cols if share[c] > t and c != state.datetime_column]}
            return self
        if self.method in ("mean", "median", "mode"):
            cols = self.require_columns(df, numeric=self.method != "mode")
            values: dict[str, Any] = {}
            for c in cols:
                s = df[c]
                if self.method == "mode":
                    m = s.mode(dropna=True)
                    v = m.iloc[0] if len(m) else None
                else:
                    v = getattr(s.astype("float64"), self.method)()
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    raise StepError(
                        f'the column "{c}" has no values to compute the {self.method} from',
                        code="step_no_values_for_statistic",
                        column=c,
                        method=str(self.method),
                    )
                values[c] = v.item() if hasattr(v, "item") else v
            self.fitted_ = {"values": values}
            return self
        if self.method == "time" and not state.datetime_column:
            raise StepError("time interpolation needs a datetime column", code="step_time_interpolation_no_datetime")
        self.require_columns(df, allow_empty=True)
        self.fitted_ = {}
        return self

    def _cols(self, df: pd.DataFrame, state: State) -> list[str]:
        cols = self.columns or [c for c in df.columns if c != state.datetime_column]
        for c in cols:
            if c not in df.columns:
                raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
        return cols

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        if self.method == "drop_rows":
            return df.dropna(subset=self._cols(df, state))
        if self.method == "drop_columns":
            return df.drop(columns=[c for c in self.need_fit()["drop"] if c in df.columns])
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        if self.method in ("mean", "median", "mode"):
            for c, v in self.need_fit()["values"].items():
                if c not in df.columns:
                    raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
                if df[c].hasnans:  # (a column without gaps stays as it is, not copied)
                    df[c] = df[c].fillna(v)
            return df
        if self.method == "constant":
            v = self.params["value"]
            for c in self._cols(df, state):
                if is_numeric(df[c]):
                    try:
                        df[c] = df[c].fillna(float(v))
                    except ValueError:
                        raise StepError(
                            f'the value "{v}" is not a number but the column "{c}" is numeric', code="step_fill_value_not_number", value=str(v), column=c
                        ) from None
                else:
                    df[c] = df[c].fillna(v)
            return df
        cols = self._cols(df, state)
        if self.method == "ffill":
            df[cols] = df[cols].ffill()
        elif self.method == "bfill":
            df[cols] = df[cols].bfill()
        else:
            num = [c for c in cols if is_numeric(df[c])]
            if self.columns:
                for c in self.columns:
                    if c not in num:
                        raise StepError(f'the column "{c}" is not numeric and cannot be interpolated', code="step_not_numeric_interpolate", column=c)
            if self.method == "linear":
                df[num] = df[num].astype("float64").interpolate(method="linear", limit_direction="both")
            else:
                t = state.datetime_column
                if t not in df.columns:
                    raise StepError(f'the datetime column "{t}" does not exist', code="step_datetime_column_missing", column=t)
                part = df[num].astype("float64")
                part.index = datetime_index(df, t)
                filled = part.interpolate(method="time", limit_direction="both")
                filled.index = df.index
                df[num] = filled
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        if self.method == "drop_columns":
            return list((self.fitted_ or {}).get("drop", []))
        if self.columns:
            return super().target_columns(df)
        return [c for c in df.columns if df[c].isna().any()]


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
                raise StepError(f'the column "{c}" has no values', code="step_column_empty", column=c)
            if self.method == "standard":
                center, scale = s.mean(), s.std(ddof=0)
            elif self.method == "minmax":
                center, scale = s.min(), s.max() - s.min()
            else:
                q1, q3 = quartiles(s)
                center, scale = s.median(), q3 - q1
            if not scale or not math.isfinite(scale):
                raise StepError(f'the column "{c}" is constant (or nearly), so it cannot be scaled', code="step_constant", column=c)
            out[c] = {"center": float(center), "scale": float(scale)}
        self.fitted_ = {"columns": out}
        return self

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        for c, p in self.need_fit()["columns"].items():
            if c not in df.columns:
                raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
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
            raise StepError('the parameter "name" (the new column) is required', code="step_new_column_name_required")
        self.params["name"] = name
        try:
            parse(str(self.params.get("expression") or ""))
        except ExpressionError as exc:
            raise StepError(f"expression: {exc}", code="step_expression_invalid", reason=exc.as_engine_error()) from None

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        try:
            df[self.params["name"]] = compute(str(self.params["expression"]), df)
        except ExpressionError as exc:
            raise StepError(
                f'column "{self.params["name"]}": {exc}', code="step_expression_failed", column=str(self.params["name"]), reason=exc.as_engine_error()
            ) from None
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
                raise StepError(f'the time span "{span}" is not understood (examples: 30s, 10min, 1h, 7D)', code="step_bad_time_span", span=span) from None
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
                raise StepError(f"the lag ({n} rows) is longer than the data ({len(df)} rows)", code="step_lag_too_long", lag=str(n), rows=str(len(df)))
            for c in cols:
                df[self.out_name(c)] = df[c].shift(n)
            return df
        mp = self.params.get("min_periods")
        span = self.params.get("span")
        if span:
            t = state.datetime_column
            if not t or t not in df.columns:
                raise StepError("a time span needs the datetime column", code="step_time_span_no_datetime")
            times = datetime_index(df, t)
            if not times.is_monotonic_increasing:
                raise StepError(f'a time span needs the rows sorted by "{t}" (add a sort step first)', code="step_time_span_unsorted", column=t)
            part = df[cols].astype("float64")
            part.index = times
            rolled = getattr(part.rolling(span, min_periods=int(mp) if mp else 1), self.method)()
            rolled.index = df.index
        else:
            w = int(self.params["window"])
            if w > len(df):
                raise StepError(
                    f"the window ({w} rows) is longer than the data ({len(df)} rows)", code="step_window_too_long", window=str(w), rows=str(len(df))
                )
            rolled = getattr(df[cols].astype("float64").rolling(w, min_periods=int(mp) if mp else w), self.method)()
        for c in cols:
            df[self.out_name(c)] = rolled[c]
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return [self.out_name(c) for c in self.columns]


# ---- columns ------------------------------------------------------------------------------------

RETYPES = ("float", "integer", "string", "datetime", "boolean")


class Columns(Step):
    """drop the chosen columns, rename (`mapping` {old: new}) or retype (`dtype` float | integer | string |
    datetime | boolean; a value that does not convert is an error naming it)."""

    process_type = "columns"
    methods = ("drop", "rename", "retype")
    reads = {"drop": (), "rename": ("mapping",), "retype": ("dtype",)}
    required = {"rename": ("mapping",), "retype": ("dtype",)}

    def check_params(self) -> None:
        if self.method == "rename":
            mapping = self.params.get("mapping") or {}
            if not isinstance(mapping, dict) or not mapping:
                raise StepError('the parameter "mapping" (old name → new name) is required', code="step_mapping_required")
            for k, v in mapping.items():
                if not str(v).strip():
                    raise StepError(f'the new name of "{k}" is empty', code="step_new_name_empty", column=str(k))
            self.params["mapping"] = {str(k): str(v).strip() for k, v in mapping.items()}
        if self.method == "retype" and self.params.get("dtype") not in RETYPES:
            raise StepError(
                f'unknown type "{self.params.get("dtype")}" (allowed: {", ".join(RETYPES)})',
                code="step_unknown_type",
                dtype=str(self.params.get("dtype")),
                allowed=", ".join(RETYPES),
            )

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        if self.method == "drop":
            cols = self.require_columns(df)
            if state.datetime_column in cols:
                state.datetime_column = None
            return df.drop(columns=cols)
        if self.method == "rename":
            mapping = self.params["mapping"]
            for old, new in mapping.items():
                if old not in df.columns:
                    raise StepError(f'the column "{old}" does not exist', code="step_column_missing", column=str(old))
                if new in df.columns and new not in mapping:
                    raise StepError(f'a column named "{new}" already exists', code="step_column_exists", column=str(new))
            if state.datetime_column in mapping:
                state.datetime_column = mapping[state.datetime_column]
            return df.rename(columns=mapping)
        cols = self.require_columns(df)
        dtype = self.params["dtype"]
        df = df.copy(deep=False)  # pandas 3 copies on write: only the columns this step assigns are new
        for c in cols:
            s = df[c]
            try:
                if dtype == "float":
                    out = pd.to_numeric(s, errors="coerce").astype("float64")
                elif dtype == "integer":
                    num = pd.to_numeric(s, errors="coerce")
                    bad = num.notna() & (num != num.round())
                    if bad.any():
                        raise StepError(
                            f'the column "{c}" has a value that is not a whole number: {s[bad].iloc[0]}',
                            code="step_value_not_integer",
                            column=c,
                            value=str(s[bad].iloc[0]),
                        )
                    out = num.astype("Int64")
                elif dtype == "string":
                    out = s.astype("string")
                elif dtype == "datetime":
                    out = pd.to_datetime(s, errors="coerce")
                else:
                    lowered = s.astype("string").str.strip().str.lower()
                    mapping = {"true": True, "1": True, "yes": True, "1.0": True, "false": False, "0": False, "no": False, "0.0": False}
                    out = lowered.map(mapping).astype("boolean")
            except (TypeError, ValueError) as exc:
                raise StepError(
                    f'the column "{c}" cannot be converted to {dtype}: {exc}', code="step_convert_failed", column=c, dtype=str(dtype), detail=str(exc)
                ) from None
            bad = out.isna() & s.notna()
            if bad.any():
                raise StepError(
                    f'the column "{c}" has a value that cannot be converted to {dtype}: "{s[bad].iloc[0]}"',
                    code="step_value_not_convertible",
                    column=c,
                    dtype=str(dtype),
                    value=str(s[bad].iloc[0]),
                )
            df[c] = out
        return df

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        if self.method == "rename":
            return list(self.params["mapping"].values())
        return super().target_columns(df)


# ---- row filters --------------------------------------------------------------------------------

OPERATORS = ("==", "!=", "<", "<=", ">", ">=", "between", "is_missing", "not_missing", "contains")


class Filter(Step):
    """Keeps the rows where `column` `op` `value` holds (`between` uses value and value2, inclusive)."""

    process_type = "filter"
    methods = ("keep",)
    reads = {"keep": ("column", "op", "value", "value2")}
    required = {"keep": ("column", "op")}

    def check_params(self) -> None:
        if not self.params.get("column"):
            raise StepError('the parameter "column" is required', code="step_column_param_required")
        if self.params.get("op") not in OPERATORS:
            raise StepError(
                f'unknown operator "{self.params.get("op")}" (allowed: {", ".join(OPERATORS)})',
                code="step_unknown_operator",
                op=str(self.params.get("op")),
                allowed=", ".join(OPERATORS),
            )
        op = self.params["op"]
        if op not in ("is_missing", "not_missing") and self.params.get("value") in (None, ""):
            raise StepError('the parameter "value" is required', code="step_value_required")
        if op == "between" and self.params.get("value2") in (None, ""):
            raise StepError('the parameter "value2" (upper end) is required', code="step_value2_required")

    def _value(self, s: pd.Series, v: Any, c: str) -> Any:
        if is_numeric(s):
            try:
                return float(v)
            except (TypeError, ValueError):
                raise StepError(f'the column "{c}" is numeric but "{v}" is not a number', code="step_filter_value_not_number", column=c, value=str(v)) from None
        if pd.api.types.is_datetime64_any_dtype(s):
            try:
                return pd.Timestamp(v)
            except ValueError:
                raise StepError(f'the column "{c}" holds dates but "{v}" is not a date', code="step_filter_value_not_date", column=c, value=str(v)) from None
        return str(v)

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        c = str(self.params["column"])
        if c not in df.columns:
            raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
        s, op = df[c], self.params["op"]
        if op == "is_missing":
            keep = s.isna()
        elif op == "not_missing":
            keep = s.notna()
        elif op == "contains":
            keep = s.astype("string").str.contains(str(self.params["value"]), regex=False).fillna(False)
        else:
            v = self._value(s, self.params["value"], c)
            if op == "between":
                keep = (s >= v) & (s <= self._value(s, self.params["value2"], c))
            else:
                keep = {"==": s == v, "!=": s != v, "<": s < v, "<=": s <= v, ">": s > v, ">=": s >= v}[op]
        return df.loc[keep.fillna(False).astype(bool)]

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return [str(self.params["column"])]


# ---- sort ---------------------------------------------------------------------------------------


class Sort(Step):
    """Sorts the rows by the datetime column (method `datetime`) or a chosen column (`column`, first of columns)."""

    process_type = "sort"
    methods = ("datetime", "column")
    reads = {"datetime": ("ascending",), "column": ("ascending",)}

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        if self.method == "datetime":
            c = state.datetime_column
            if not c:
                raise StepError("the dataset has no datetime column", code="step_no_datetime_column")
        else:
            c = self.columns[0] if self.columns else ""
        if c not in df.columns:
            raise StepError(f'the column "{c}" does not exist', code="step_column_missing", column=c)
        asc = str(self.params.get("ascending", True)).lower() not in ("false", "0", "no")
        return df.sort_values(c, ascending=asc, kind="stable", na_position="last")

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return self.columns[:1]


STEP_TYPES: dict[str, type[Step]] = {cls.process_type: cls for cls in (Outliers, Missing, Scaling, Computed, Window, Columns, Filter, Sort)}

LABELS = {
    "outliers": "Outliers",
    "missing": "Missing values",
    "scaling": "Scaling",
    "computed": "Computed column",
    "window": "Moving window",
    "columns": "Columns",
    "filter": "Row filter",
    "sort": "Sort",
}


def catalogue() -> dict:
    """Each kind's methods with the parameters they read and require (catalogue.json, for the server's checks)."""
    return {kind: {m: {"reads": list(cls.reads[m]), "required": list(cls.required.get(m, ()))} for m in cls.methods} for kind, cls in STEP_TYPES.items()}


def make_step(spec: dict) -> Step:
    if not isinstance(spec, dict):
        raise StepError("a step must be an object", code="step_not_object")
    kind = spec.get("process_type")
    cls = STEP_TYPES.get(str(kind))
    if cls is None:
        raise StepError(
            f'unknown process type "{kind}" (allowed: {", ".join(STEP_TYPES)})',
            code="step_unknown_type_of_process",
            kind=str(kind),
            allowed=", ".join(STEP_TYPES),
        )
    return cls(spec)
