"""Steps that reshape the table: columns (drop, rename, retype), row filters, sort."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...task import EngineError
from .base import State, Step, is_numeric

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
                raise EngineError("step_mapping_required")
            for k, v in mapping.items():
                if not str(v).strip():
                    raise EngineError("step_new_name_empty", column=str(k))
            self.params["mapping"] = {str(k): str(v).strip() for k, v in mapping.items()}
        if self.method == "retype" and self.params.get("dtype") not in RETYPES:
            raise EngineError("step_unknown_type", dtype=str(self.params.get("dtype")), allowed=", ".join(RETYPES))

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
                    raise EngineError("step_column_missing", column=str(old))
                if new in df.columns and new not in mapping:
                    raise EngineError("step_column_exists", column=str(new))
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
                        raise EngineError("step_value_not_integer", column=c, value=str(s[bad].iloc[0]))
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
                raise EngineError("step_convert_failed", column=c, dtype=str(dtype), detail=str(exc)) from None
            bad = out.isna() & s.notna()
            if bad.any():
                raise EngineError("step_value_not_convertible", column=c, dtype=str(dtype), value=str(s[bad].iloc[0]))
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
            raise EngineError("step_column_param_required")
        if self.params.get("op") not in OPERATORS:
            raise EngineError("step_unknown_operator", op=str(self.params.get("op")), allowed=", ".join(OPERATORS))
        op = self.params["op"]
        if op not in ("is_missing", "not_missing") and self.params.get("value") in (None, ""):
            raise EngineError("step_value_required")
        if op == "between" and self.params.get("value2") in (None, ""):
            raise EngineError("step_value2_required")

    def _value(self, s: pd.Series, v: Any, c: str) -> Any:
        if is_numeric(s):
            try:
                return float(v)
            except (TypeError, ValueError):
                raise EngineError("step_filter_value_not_number", column=c, value=str(v)) from None
        if pd.api.types.is_datetime64_any_dtype(s):
            try:
                return pd.Timestamp(v)
            except ValueError:
                raise EngineError("step_filter_value_not_date", column=c, value=str(v)) from None
        return str(v)

    def transform(self, df: pd.DataFrame, state: State) -> pd.DataFrame:
        c = str(self.params["column"])
        if c not in df.columns:
            raise EngineError("step_column_missing", column=c)
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
                raise EngineError("step_no_datetime_column")
        else:
            c = self.columns[0] if self.columns else ""
        if c not in df.columns:
            raise EngineError("step_column_missing", column=c)
        asc = str(self.params.get("ascending", True)).lower() not in ("false", "0", "no")
        return df.sort_values(c, ascending=asc, kind="stable", na_position="last")

    def target_columns(self, df: pd.DataFrame) -> list[str]:
        return self.columns[:1]
