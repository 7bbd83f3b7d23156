"""Steps that repair values: outliers and missing values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...task import EngineError
from .base import State, Step, _num, datetime_index, is_numeric, quartiles

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
            raise EngineError("step_unknown_action", action=str(self.action))
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
                raise EngineError("step_window_too_long", window=str(self.params["window"]), rows=str(len(df)))
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
                    raise EngineError("step_column_missing", column=c)
                s = df[c].astype("float64")
                med = s.rolling(w, center=True, min_periods=1).median()
                mad = (s - med).abs().rolling(w, center=True, min_periods=1).median() * 1.4826
                masks[c] = ((s - med).abs() > t * mad) & (mad > 0)
            return masks
        for c, b in f["bounds"].items():
            if c not in df.columns:
                raise EngineError("step_column_missing", column=c)
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
            raise EngineError("step_fill_value_required")

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
                    raise EngineError("step_no_values_for_statistic", column=c, method=str(self.method))
                values[c] = v.item() if hasattr(v, "item") else v
            self.fitted_ = {"values": values}
            return self
        if self.method == "time" and not state.datetime_column:
            raise EngineError("step_time_interpolation_no_datetime")
        self.require_columns(df, allow_empty=True)
        self.fitted_ = {}
        return self

    def _cols(self, df: pd.DataFrame, state: State) -> list[str]:
        cols = self.columns or [c for c in df.columns if c != state.datetime_column]
        for c in cols:
            if c not in df.columns:
                raise EngineError("step_column_missing", column=c)
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
                    raise EngineError("step_column_missing", column=c)
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
                        raise EngineError("step_fill_value_not_number", value=str(v), column=c) from None
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
                        raise EngineError("step_not_numeric_interpolate", column=c)
            if self.method == "linear":
                df[num] = df[num].astype("float64").interpolate(method="linear", limit_direction="both")
            else:
                t = state.datetime_column
                if t not in df.columns:
                    raise EngineError("step_datetime_column_missing", column=t)
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
