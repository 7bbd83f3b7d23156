"""Kind `preprocess`: fits a condition on a dataset's Parquet file and writes the result as a temporary dataset.

Spec: {parquet, steps, datetime_column?, name?, output_dir}. Writes `data.parquet` (the new data) and
`condition.json` (the condition with every step's fitted parameters) to output_dir; the server registers the
folder as a new dataset on request (POST new_dataset/register/{temp_id}).
"""

from __future__ import annotations

import json
import resource
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..encoding import to_jsonable
from ..lang import lang_of, say
from ..parquet_splice import SpliceUnsupported, splice
from ..preprocessing import Condition
from ..task import Context, EngineError, Task


def read_frame(path: str, rows: int | None = None):
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise EngineError("data_file_unreadable", reason=str(exc)) from exc
    if rows is None or pf.metadata.num_rows <= rows:
        table = pf.read(use_threads=True)
    else:
        batches = []
        got = 0
        for batch in pf.iter_batches(batch_size=min(rows, 65536)):
            batches.append(batch)
            got += batch.num_rows
            if got >= rows:
                break
        table = pa.Table.from_batches(batches).slice(0, rows)
    return table.to_pandas(), pf.metadata.num_rows


def peak_rss_mb() -> float:
    """The worker's peak resident memory so far (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_parquet(table: pa.Table, path: Path) -> None:
    """Dictionary encoding only where it pays (text); measured numbers and times rarely repeat, and trying a
    dictionary on them first made writing 2x slower. Row groups of 1 Mi rows: half the time of 122,880 and still
    ten groups for DuckDB's threads on a 10 M-row table (issue 20)."""
    pq.write_table(table, str(path), compression="snappy", use_dictionary=text_columns(table.schema), row_group_size=1 << 20)


def text_columns(schema: pa.Schema) -> list[str]:
    return [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_dictionary(f.type)]


def write_beside(source: pq.ParquetFile, fresh: pa.Table, columns: list[str], path: Path) -> None:
    """The new table written slice by slice: the source's untouched columns streamed from its file beside the
    matching rows of the changed ones, so memory holds the changed columns and one slice, not the whole table."""
    untouched = [c for c in columns if c not in fresh.column_names]
    step = 1 << 20
    writer = None
    offset = 0
    batches = source.iter_batches(batch_size=step, columns=untouched, use_threads=True)
    # Decoding the next slice overlaps encoding this one (both release the GIL): two cores, both busy.
    with ThreadPoolExecutor(max_workers=1) as reader:
        ahead = reader.submit(next, batches, None)
        try:
            while (batch := ahead.result()) is not None:
                ahead = reader.submit(next, batches, None)
                part = fresh.slice(offset, batch.num_rows)
                table = pa.table({c: (part[c] if c in fresh.column_names else batch.column(c)) for c in columns})
                if writer is None:  # the same encodings as write_parquet
                    writer = pq.ParquetWriter(str(path), table.schema, compression="snappy", use_dictionary=text_columns(table.schema))
                writer.write_table(table, row_group_size=step)
                offset += batch.num_rows
        finally:
            if writer is not None:
                writer.close()
    if offset != fresh.num_rows:
        raise EngineError("data_file_changed")


HLL_BITS = 14  # 16,384 registers: about 0.8 % standard error


def approx_distinct(values: np.ndarray) -> int:
    """Distinct values (HyperLogLog over a 64-bit mix of each value's bits); small counts come from the
    linear-counting branch and are near exact, a constant column gives 1. Slices of 1 Mi values keep the
    temporaries in cache; the registers (the highest rank per bucket) do not depend on the slicing."""
    if values.size == 0:
        return 0
    m = 1 << HLL_BITS
    seen = np.zeros(m * 34, dtype=bool)  # (bucket, rank) pairs met
    for start in range(0, values.size, 1 << 20):
        part = values[start : start + (1 << 20)]
        h = (part + 0.0).view(np.uint64) if part.dtype.kind == "f" else part.astype(np.int64).view(np.uint64)  # +0.0: -0.0 == 0.0
        t = np.empty_like(h)
        # splitmix64's finaliser: every input bit reaches every output bit
        np.right_shift(h, np.uint64(30), out=t)
        h ^= t
        h *= np.uint64(0xBF58476D1CE4E5B9)
        np.right_shift(h, np.uint64(27), out=t)
        h ^= t
        h *= np.uint64(0x94D049BB133111EB)
        np.right_shift(h, np.uint64(31), out=t)
        h ^= t
        np.right_shift(h, np.uint64(64 - HLL_BITS), out=t)  # the bucket
        key = t.view(np.int64)
        h <<= np.uint64(HLL_BITS)
        h >>= np.uint64(32)  # the next 32 bits, exact in a double
        rank = 33 - np.frexp(h.astype(np.float64))[1]  # 1-based position of the first set bit; 33 when none (frexp(0) = 0, 0)
        key *= 34
        key += rank
        seen[key] = True
    seen = seen.reshape(m, 34)
    registers = 33 - np.argmax(seen[:, ::-1], axis=1)  # the highest rank met per bucket
    registers[~seen.any(axis=1)] = 0
    estimate = 0.7213 / (1 + 1.079 / m) * m * m / float(np.sum(np.ldexp(1.0, -registers)))
    empty = int(np.count_nonzero(registers == 0))
    if estimate <= 2.5 * m and empty:
        estimate = m * np.log(m / empty)
    return max(1, min(int(round(estimate)), values.size))


def column_figures(s: pd.Series) -> dict | None:
    """count, distinct (approximate), min, max, mean and sample std of a numeric column with finite values, as the
    server's quick statistics keep them; None for any other column (the server computes those itself)."""
    if not (pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_float_dtype(s.dtype)) or pd.api.types.is_bool_dtype(s.dtype):
        return None
    v = s.to_numpy(dtype="float64", na_value=np.nan) if s.dtype.kind == "f" or s.hasnans else s.to_numpy()
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        if nan.any():
            v = v[~nan]
        if v.size and not np.isfinite(v).all():
            return None
    n = int(v.size)
    if n == 0:
        return {"count": 0, "unique": 0, "min": None, "max": None, "mean": None, "std": None}
    return {
        "count": n,
        "unique": approx_distinct(v),
        "min": float(v.min()),
        "max": float(v.max()),
        "mean": float(v.mean(dtype=np.float64)),
        "std": float(v.std(dtype=np.float64, ddof=1)) if n > 1 else None,
    }


def codec_for(column: pa.ChunkedArray) -> str:
    """Snappy, unless a sample of the column's values does not shrink by it (measured floats rarely repeat a byte
    pattern): then the column is stored uncompressed, which saves compressing 10 M values for nothing."""
    if not pa.types.is_floating(column.type) or len(column) == 0:
        return "snappy"
    sample = column.slice(0, 1 << 16).combine_chunks()
    raw = sample.buffers()[1]
    raw = raw[sample.offset * column.type.byte_width : (sample.offset + len(sample)) * column.type.byte_width]
    return "none" if len(pa.compress(raw, "snappy", asbytes=True)) > 0.9 * raw.size else "snappy"


def write_spliced(source: pq.ParquetFile, source_path: str, fresh: pa.Table, columns: list[str], path: Path) -> None:
    """The new table without decoding the untouched columns: the changed ones are encoded in the source's row
    groups (two files written at once, one per core), then every column chunk is copied into `path` byte for byte
    (see parquet_splice). SpliceUnsupported when the source's layout does not allow it."""
    meta = source.metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    if sum(sizes) != fresh.num_rows:
        raise EngineError("data_file_changed")
    names = fresh.column_names
    # Two halves of about the same number of bytes, written in parallel (Arrow releases the GIL while encoding).
    order = sorted(names, key=lambda c: -fresh.column(c).nbytes)
    halves = [order[0::2], order[1::2]]
    parts = [path.with_name(f"{path.stem}.part{i}.parquet") for i in range(2)]

    def encode(i: int) -> None:
        if not halves[i]:
            return
        table = fresh.select(halves[i])
        codecs = {c: codec_for(table.column(c)) for c in table.column_names}
        with pq.ParquetWriter(str(parts[i]), table.schema, compression=codecs, use_dictionary=text_columns(table.schema)) as writer:
            offset = 0
            for n in sizes:
                writer.write_table(table.slice(offset, n), row_group_size=n)
                offset += n

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(encode, range(2)))
        schema = pa.schema([fresh.schema.field(c) if c in names else source.schema_arrow.field(c) for c in columns])
        splice(columns, [p for i, p in enumerate(parts) if halves[i]] + [Path(source_path)], path, schema)
    finally:
        for p in parts:
            p.unlink(missing_ok=True)


class Preprocess(Task):
    kind = "preprocess"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not spec.get("parquet"):
            raise EngineError("spec_parquet_required")
        cond = Condition(spec.get("steps") or [], spec.get("datetime_column"), spec.get("name") or "")
        try:
            pf = pq.ParquetFile(spec["parquet"], pre_buffer=False)  # streamed by write_beside: see ml/predict_chunks.py
        except (OSError, pa.ArrowException) as exc:
            raise EngineError("data_file_unreadable", reason=str(exc)) from exc
        names = pf.schema_arrow.names
        total, cols_in = pf.metadata.num_rows, len(names)
        # Most conditions change a few named columns and keep every row: then only those columns are read and
        # written, and the server puts the untouched ones beside them (issue 20). Anything else takes the whole table.
        plan = cond.column_plan()
        wanted, changed = plan if plan else (None, [])
        partial = wanted is not None and all(c in names for c in wanted) and len(wanted) < cols_in
        lang = lang_of(spec)  # what the person who started the job reads
        ctx.progress(0.02, say("job_reading_dataset", lang))
        started = time.perf_counter()
        if partial:
            # self_destruct frees each Arrow column as pandas takes it: the peak stays near one copy.
            df = pf.read(columns=wanted, use_threads=True).to_pandas(self_destruct=True, split_blocks=True)
        else:
            df, _ = read_frame(spec["parquet"])
        read_s = time.perf_counter() - started
        ctx.log(f"read {len(df)} rows x {len(df.columns)} of {cols_in} columns")

        def progress(i: int, n: int) -> None:
            ctx.progress(0.1 + 0.7 * i / max(1, n), say("job_step", lang, i=str(i + 1), n=str(n)))

        out = cond.fit_transform(df, progress).reset_index(drop=True)
        del df
        if len(out) == 0:
            raise EngineError("no_row_left")
        if partial and len(out) != total:  # a step removed rows after all: the untouched columns no longer line up
            raise EngineError("rows_changed_unexpectedly")
        work = ctx.work_dir
        statistics_s = 0.0
        if partial:
            # The whole new table, as the whole-table path orders it (the source's columns, then the new ones).
            # The untouched columns are the source's, value for value: their encoded chunks are copied from the
            # source file (or, for a layout the splice does not take, streamed through Arrow), never through pandas.
            columns = names + [str(c) for c in out.columns if c not in names]
            written = [c for c in out.columns if c in changed]
            # The changed columns' statistics from the values at hand, so registering reads no column again.
            ctx.progress(0.8, say("job_changed_statistics", lang))
            started = time.perf_counter()
            figures = {c: f for c in written if (f := column_figures(out[c])) is not None}
            statistics_s = time.perf_counter() - started
            ctx.progress(0.82, say("job_writing_dataset", lang))
            started = time.perf_counter()
            fresh = pa.Table.from_pandas(out[written], preserve_index=False)
            del out
            try:
                write_spliced(pf, spec["parquet"], fresh, columns, work / "data.parquet")
                layout = "spliced"
            except SpliceUnsupported as exc:  # a source layout the splice does not vouch for: decode and encode it
                ctx.log(f"untouched columns re-encoded: {exc}")
                write_beside(pf, fresh, columns, work / "data.parquet")
                layout = "re-encoded"
            head = next(pq.ParquetFile(work / "data.parquet").iter_batches(batch_size=20)).to_pandas()
            # The server keeps the source's statistics for the untouched columns and takes these for the changed.
            files = {"parquet": str(work / "data.parquet"), "changed_columns": written, "column_figures": figures}
            row_count = fresh.num_rows
            del fresh
        else:
            ctx.progress(0.82, say("job_writing_dataset", lang))
            started = time.perf_counter()
            columns = [str(c) for c in out.columns]
            write_parquet(pa.Table.from_pandas(out, preserve_index=False), work / "data.parquet")
            layout = "whole table"
            head = out.head(20)
            files = {"parquet": str(work / "data.parquet"), "changed_columns": None}
            row_count = len(out)
        write_s = time.perf_counter() - started
        condition = cond.to_dict()
        history = cond.history()
        (work / "condition.json").write_text(json.dumps(condition, ensure_ascii=False))
        ctx.progress(1.0, say("job_done", lang))
        return {
            "output_dir": str(work),
            **files,
            "rows_before": total,
            "columns_before": cols_in,
            "row_count": row_count,
            "column_count": len(columns),
            "columns": columns,
            # A condition that keeps every row never renames or drops the datetime column, read or not.
            "datetime_column": cond.datetime_column if partial and cond.datetime_column in names else cond.output_datetime_column_,
            "condition": condition,
            "history": history,
            "head": to_jsonable(head.to_dict(orient="records")),
            # Where the time went (benchmarks read it): reading, each step, writing; and the worker's peak memory.
            "timings": {
                "read_s": read_s,
                "steps_s": list(cond.step_seconds_),
                "statistics_s": statistics_s,
                "write_s": write_s,
                "peak_rss_mb": peak_rss_mb(),
                "columns_read": len(wanted) if partial else cols_in,
                "untouched_columns": layout,
            },
        }
