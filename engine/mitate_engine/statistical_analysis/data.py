"""Reading the samples of a statistical test from a dataset's Parquet file.

Only the columns a test needs are read (column projection), a string category column is read dictionary-encoded
so that a split by group compares small integer codes instead of text, and values become float64 NumPy arrays
with missing values dropped and counted. 10 M rows per group read in a few hundred milliseconds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..task import EngineError


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def is_numeric(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        return False
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


@dataclass
class Table:
    """The projected columns of the dataset, by name."""

    columns: dict[str, pa.ChunkedArray]
    rows: int
    types: dict[str, pa.DataType] = field(default_factory=dict)


def read_table(path: str, numeric: list[str], other: list[str] = ()) -> Table:
    """Reads `numeric` (must be numbers) and `other` columns (categories, keys) and nothing else."""
    if not path or not os.path.isfile(path):
        raise EngineError("data_file_missing", path=path)
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        raise EngineError("data_file_unreadable", reason=str(exc)) from exc
    names = []
    for n in [*numeric, *other]:
        if n and n not in names:
            names.append(n)
    for n in names:
        if n not in schema.names:
            raise EngineError("column_missing", column=n)
    for n in numeric:
        if not is_numeric(schema.field(n).type):
            raise EngineError("not_numeric", column=n)
    dictionary = [n for n in other if n not in numeric and _is_text(schema.field(n).type)]
    try:
        table = pq.read_table(path, columns=names, use_threads=True, read_dictionary=dictionary or None)
    except (pa.ArrowException, OSError) as exc:
        raise EngineError("data_file_unreadable", reason=str(exc)) from exc
    cols = {n: table.column(n) for n in names}
    return Table(cols, table.num_rows, {n: schema.field(n).type for n in names})


def to_float(col: pa.ChunkedArray) -> np.ndarray:
    """float64 values; nulls (and NaN) become NaN."""
    if col.type != pa.float64():
        col = pc.cast(col, pa.float64(), safe=False)
    if col.null_count == 0:
        if col.num_chunks == 1:
            return col.chunk(0).to_numpy(zero_copy_only=False)
        return np.concatenate([c.to_numpy(zero_copy_only=False) for c in col.chunks]) if col.num_chunks else np.empty(0)
    return col.to_numpy()


def typed_value(label: str, t: pa.DataType):
    """The value a group label (the text shown to the user) stands for in a column of type `t`; None if none."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    try:
        if pa.types.is_integer(t):
            return int(str(label).strip())
        if pa.types.is_floating(t) or pa.types.is_decimal(t):
            return float(str(label).strip())
        if pa.types.is_boolean(t):
            v = str(label).strip().lower()
            return True if v == "true" else False if v == "false" else None
    except ValueError:
        return None
    return str(label)


def group_mask(col: pa.ChunkedArray, label: str) -> np.ndarray:
    """Rows whose category equals `label` (null categories never match)."""
    value = typed_value(label, col.type)
    if value is None:
        return np.zeros(len(col), dtype=bool)
    parts = []
    for ch in col.chunks:
        if pa.types.is_dictionary(ch.type):
            pos = pc.index(ch.dictionary, pa.scalar(value, ch.dictionary.type)).as_py()
            if pos < 0:
                parts.append(np.zeros(len(ch), dtype=bool))
                continue
            m = pc.equal(ch.indices, pa.scalar(pos, ch.indices.type))
        else:
            m = pc.equal(ch, pa.scalar(value, ch.type))
        parts.append(pc.fill_null(m, False).to_numpy(zero_copy_only=False))
    if not parts:
        return np.zeros(0, dtype=bool)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def category_labels(col: pa.ChunkedArray, limit: int) -> list[str]:
    """Distinct non-null category values as labels, most frequent first (ties by label)."""
    c = col
    if pa.types.is_dictionary(c.type):
        c = c.cast(c.type.value_type)
    counts = pc.value_counts(c.drop_null())
    rows = sorted(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()), key=lambda r: (-r[1], str(r[0])))
    if len(rows) > limit:
        raise EngineError("too_many_groups", count=len(rows), max=limit)
    return [label_of(v) for v, _ in rows]


def label_of(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return f"{v:.1f}"
    return str(v)


@dataclass
class Sample:
    label: str
    values: np.ndarray  # finite values only
    missing: int  # rows of the group dropped because the value was missing


def sample(values: np.ndarray, label: str, mask: np.ndarray | None = None) -> Sample:
    v = values if mask is None else values[mask]
    ok = ~np.isnan(v)
    missing = int(v.size - np.count_nonzero(ok))
    if missing:
        v = v[ok]
    return Sample(label, v, missing)
