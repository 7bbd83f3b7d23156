"""Every CSV the engine writes goes through here, so a spreadsheet never runs a formula from user data.

OWASP "CSV injection": a text cell starting with = + - @ tab or carriage return gets a leading single
quote. Plain numbers ("-3", "+1.5e3") and numeric columns stay as they are: they are not formulas. The
server applies the same rule to the CSVs it writes (server/src/http/csv.ts).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

_FORMULA_START = re.compile(r"^[=+\-@\t\r]")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def neutralise_cell(value):
    """The cell as a spreadsheet may open it safely; anything but text is returned unchanged."""
    if isinstance(value, str) and _FORMULA_START.match(value) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


def neutralise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy with text cells (and text column names) neutralised; numeric, date and flag columns untouched."""
    out = df.copy()
    for col in out.columns:
        s = out[col]
        if pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s) or isinstance(s.dtype, pd.CategoricalDtype):
            out[col] = s.map(neutralise_cell).astype(object)
    out.columns = [neutralise_cell(c) for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path: str | Path, **kwargs) -> None:
    """DataFrame.to_csv with the neutraliser applied; use this for every CSV the engine writes."""
    neutralise_frame(df).to_csv(path, **{"index": False, **kwargs})
