"""Kind `statistics`: per-column statistics of a dataset's Parquet file, written to statistics.json.

Columns are read one at a time, so memory follows the largest column, not the table (10 M rows × 12 columns
fit in a few hundred MB). Skewness and kurtosis use the bias-corrected formulas of pandas .skew()/.kurt().
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..encoding import to_jsonable
from ..lang import lang_of, say
from ..sketch import SketchWriter
from ..task import Context, EngineError, Task

CHUNK = 1 << 20  # elements per slice for central moments: bounds temporary memory


class Statistics(Task):
    kind = "statistics"

    def run(self, spec: dict, ctx: Context) -> dict:
        path = spec.get("parquet")
        if not path:
            raise EngineError("spec_parquet_required")
        max_categories = int(spec.get("max_categories") or 20)
        bins = int(spec.get("bins") or 20)
        if bins < 1 or max_categories < 1:
            raise EngineError("bad_bins")
        datetime_column = spec.get("datetime_column") or None
        out_dir = ctx.work_dir

        parquet = open_parquet(path)
        schema = parquet.schema_arrow
        row_count = parquet.metadata.num_rows
        names = schema.names
        if datetime_column and datetime_column not in names:
            raise EngineError("datetime_column_missing", column=datetime_column)

        sketch_dir = spec.get("sketch_dir") or None
        sketch = SketchWriter(sketch_dir, row_count) if sketch_dir else None
        keep = None
        columns: list[dict] = []
        try:
            for i, name in enumerate(names):
                ctx.progress(i / max(1, len(names)), say("job_column", lang_of(spec), i=str(i + 1), n=str(len(names)), name=name))
                try:
                    data = parquet.read(columns=[name], use_threads=True).column(0)
                except (pa.ArrowException, OSError) as exc:
                    raise EngineError("column_unreadable", column=name, reason=str(exc)) from exc
                if sketch is not None:
                    keep = lambda valid, name=name, data=data: sketch.add_numeric(name, data, valid)  # noqa: E731
                columns.append(describe_column(name, data, bins, max_categories, name == datetime_column, keep))
                del data
            if sketch is not None:
                ctx.progress(0.99, say("job_writing_sketches", lang_of(spec)))
                sketch.finish(parquet)
        except BaseException:
            if sketch is not None:
                sketch.abandon()
            raise
        ctx.progress(1.0, say("job_writing_statistics", lang_of(spec)))

        result = {
            "row_count": row_count,
            "column_count": len(names),
            "columns": columns,
            "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        result = to_jsonable(result)
        write_json(out_dir / "statistics.json", result)
        return result


def open_parquet(path: str) -> pq.ParquetFile:
    if not os.path.isfile(path):
        raise EngineError("data_file_missing", path=path)
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise EngineError("parquet_unreadable", reason=str(exc)) from exc


def write_json(target: Path, value: Any) -> None:
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    os.replace(tmp, target)  # readers never see half a file


def describe_column(name: str, data: pa.ChunkedArray, bins: int, max_categories: int, is_datetime_column: bool, keep=None) -> dict:
    typ = data.type
    base = {"name": name, "dtype": str(typ)}
    if pa.types.is_dictionary(typ):
        data = data.cast(typ.value_type)
        typ = data.type
    if pa.types.is_boolean(typ):
        return {**base, "kind": "boolean", **describe_categorical(data, max_categories)}
    if pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_decimal(typ):
        return {**base, "kind": "numeric", **describe_numeric(data, bins, keep)}
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ):
        return {**base, "kind": "datetime", **describe_datetime(data, bins)}
    if is_datetime_column and (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
        parsed = parse_datetime_strings(data)
        if parsed is not None:
            return {**base, "kind": "datetime", **describe_datetime(parsed, bins)}
    if pa.types.is_null(typ):
        return {**base, "kind": "categorical", "count": 0, "missing": len(data), "unique": 0, "top": [], "other": 0}
    if not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
        data = as_strings(data)
    return {**base, "kind": "categorical", **describe_categorical(data, max_categories)}


def as_strings(data: pa.ChunkedArray) -> pa.ChunkedArray:
    try:
        return data.cast(pa.large_string())
    except pa.ArrowException:  # nested or binary types: their Python text
        return pa.chunked_array([pa.array([None if v is None else str(v) for v in data.to_pylist()], pa.large_string())])


def distinct_sorted(sorted_values: np.ndarray) -> int:
    """Exact distinct count of a sorted array; a sort costs far less memory than a hash of 10 M keys."""
    if sorted_values.size == 0:
        return 0
    return 1 + int(np.count_nonzero(sorted_values[1:] != sorted_values[:-1]))


def describe_numeric(data: pa.ChunkedArray, bins: int, keep=None) -> dict:
    """`keep(sorted_values)` receives the sorted non-missing values (float64), e.g. for the exploration sketch."""
    total = len(data)
    is_float = pa.types.is_floating(data.type)
    if pa.types.is_integer(data.type):
        # Exact: int64 and uint64 keep every digit here, though the moments below work in doubles.
        exact = np.sort(data.drop_null().to_numpy(zero_copy_only=False))
        lo, hi = (exact[0].item(), exact[-1].item()) if exact.size else (None, None)
        unique = distinct_sorted(exact)
        valid = exact.astype(np.float64)
        del exact
    else:
        values = pc.cast(data, pa.float64(), safe=False).to_numpy(zero_copy_only=False)  # nulls become NaN
        valid = np.sort(values[~np.isnan(values)])
        del values
        lo, hi = (float(valid[0]), float(valid[-1])) if valid.size else (None, None)
        unique = distinct_sorted(valid)
    n = int(valid.size)
    if keep is not None and not pa.types.is_decimal(data.type):
        keep(valid)
    out: dict[str, Any] = {"count": n, "missing": total - n, "unique": unique}
    empty = {k: None for k in ("mean", "std", "min", "q1", "median", "q3", "max", "skewness", "kurtosis")}
    if n == 0:
        return {**out, **empty, "zeros": 0, "infinite": 0, "histogram": {"edges": [], "counts": []}}

    with np.errstate(all="ignore"):
        mean = float(valid.mean())
        q1, median, q3 = (float(q) for q in np.quantile(valid, [0.25, 0.5, 0.75]))
        m2, m3, m4 = central_moments(valid, mean)
    out.update(
        mean=mean,
        std=float(np.sqrt(m2 / (n - 1))) if n > 1 else None,
        min=lo,
        q1=q1,
        median=median,
        q3=q3,
        max=hi,
        skewness=skewness(n, m2, m3),
        kurtosis=kurtosis(n, m2, m4),
        zeros=int(np.count_nonzero(valid == 0)),
        infinite=int(np.count_nonzero(np.isinf(valid))) if is_float else 0,
        histogram=numeric_histogram(valid, bins),
    )
    return out


def central_moments(valid: np.ndarray, mean: float) -> tuple[float, float, float]:
    m2 = m3 = m4 = 0.0
    for start in range(0, valid.size, CHUNK):
        d = valid[start : start + CHUNK] - mean
        d2 = d * d
        m2 += float(d2.sum())
        m3 += float((d2 * d).sum())
        m4 += float((d2 * d2).sum())
    return m2, m3, m4


def _fperr(x: float) -> float:
    return 0.0 if abs(x) < 1e-14 else x


def skewness(n: int, m2: float, m3: float) -> float | None:
    """Adjusted Fisher-Pearson G1, as pandas Series.skew(); None where pandas gives NaN."""
    m2, m3 = _fperr(m2), _fperr(m3)
    if n < 3 or m2 == 0 or not np.isfinite(m2):
        return None
    return float((n * (n - 1) ** 0.5 / (n - 2)) * (m3 / m2**1.5))


def kurtosis(n: int, m2: float, m4: float) -> float | None:
    """Excess kurtosis G2, as pandas Series.kurt(); None where pandas gives NaN."""
    m2, m4 = _fperr(m2), _fperr(m4)
    if n < 4 or m2 == 0 or not np.isfinite(m2):
        return None
    adj = 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))
    return float(n * (n + 1) * (n - 1) * m4 / ((n - 2) * (n - 3) * m2**2) - adj)


def numeric_histogram(valid: np.ndarray, bins: int) -> dict:
    is_finite = np.isfinite(valid)
    finite = valid if is_finite.all() else valid[is_finite]
    if finite.size == 0:
        return {"edges": [], "counts": []}
    counts, edges = np.histogram(finite, bins=bins)
    return {"edges": edges.tolist(), "counts": counts.tolist()}


def describe_categorical(data: pa.ChunkedArray, max_categories: int) -> dict:
    total = len(data)
    missing = data.null_count
    counts = pc.value_counts(data.drop_null()) if total - missing else None
    if counts is None or len(counts) == 0:
        return {"count": total - missing, "missing": missing, "unique": 0, "top": [], "other": 0}
    table = pa.table({"value": counts.field("values"), "count": counts.field("counts")})
    top = pc.select_k_unstable(table, k=min(max_categories, len(table)), sort_keys=[("count", "descending")])
    rows = table.take(top).to_pylist()
    rows.sort(key=lambda r: (-r["count"], str(r["value"])))  # deterministic order among equal counts
    shown = sum(r["count"] for r in rows)
    return {
        "count": total - missing,
        "missing": missing,
        "unique": len(table),
        "top": [{"value": r["value"], "count": int(r["count"])} for r in rows],
        "other": total - missing - shown,
    }


def parse_datetime_strings(data: pa.ChunkedArray) -> pa.ChunkedArray | None:
    """The chosen datetime column stored as text: parsed with pandas; None when it is not dates at all."""
    series = pd.Series(data.to_numpy(zero_copy_only=False), dtype=object)
    try:
        parsed = pd.to_datetime(series, errors="coerce")
    except (ValueError, TypeError, OverflowError):
        return None
    if parsed.notna().sum() == 0 and series.notna().sum() > 0:
        return None
    return pa.chunked_array([pa.Array.from_pandas(parsed)])


def describe_datetime(data: pa.ChunkedArray, bins: int) -> dict:
    typ = data.type
    missing = data.null_count
    is_date = pa.types.is_date(typ)
    if is_date:
        data = data.cast(pa.timestamp("s"))
        typ = data.type
    unit, tz = typ.unit, typ.tz
    ints = np.sort(pc.cast(data.drop_null(), pa.int64()).to_numpy(zero_copy_only=False))
    out: dict[str, Any] = {"count": int(ints.size), "missing": missing, "unique": distinct_sorted(ints)}
    if ints.size == 0:
        return {**out, "min": None, "max": None, "histogram": {"edges": [], "counts": []}}

    def iso(v: float) -> str:
        ts = pd.Timestamp(int(round(v)), unit=unit, tz=tz)
        return ts.date().isoformat() if is_date and ts == ts.normalize() else ts.isoformat()

    counts, edges = np.histogram(ints.astype(np.float64), bins=bins)
    out.update(
        min=iso(ints[0]),
        max=iso(ints[-1]),
        histogram={"edges": [iso(e) for e in edges], "counts": counts.tolist()},
    )
    return out
