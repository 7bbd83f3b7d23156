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


def neutralise_table(table):
    """neutralise_frame for a pyarrow Table (text and dictionary columns; names too), without a row of Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = []
    for col in table.columns:
        t = col.type
        if pa.types.is_dictionary(t):
            col = col.cast(pa.string())
            t = col.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            formula = pc.and_(pc.match_substring_regex(col, _FORMULA_START.pattern), pc.invert(pc.match_substring_regex(col, _PLAIN_NUMBER.pattern)))
            quote, empty = pa.scalar("'", t), pa.scalar("", t)
            col = pc.if_else(pc.fill_null(formula, False), pc.binary_join_element_wise(quote, col, empty), col)
        cols.append(col)
    return pa.table(cols, names=[neutralise_cell(n) for n in table.column_names])


def write_csv_table(table, sink, header: bool = True) -> None:
    """A pyarrow Table as CSV rows (neutralised) into an open binary file or a path, with or without the header line:
    the chunked writers' write_csv."""
    import pyarrow.csv as pacsv

    pacsv.write_csv(neutralise_table(table), sink, write_options=pacsv.WriteOptions(include_header=header, quoting_style="needed"))
