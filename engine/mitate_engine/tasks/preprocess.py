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

import pyarrow as pa
import pyarrow.parquet as pq

from ..encoding import to_jsonable
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


class Preprocess(Task):
    kind = "preprocess"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not spec.get("parquet"):
            raise EngineError("spec_parquet_required")
        cond = Condition(spec.get("steps") or [], spec.get("datetime_column"), spec.get("name") or "")
        try:
            pf = pq.ParquetFile(spec["parquet"])
        except (OSError, pa.ArrowException) as exc:
            raise EngineError("data_file_unreadable", reason=str(exc)) from exc
        names = pf.schema_arrow.names
        total, cols_in = pf.metadata.num_rows, len(names)
        # Most conditions change a few named columns and keep every row: then only those columns are read and
        # written, and the server puts the untouched ones beside them (issue 20). Anything else takes the whole table.
        plan = cond.column_plan()
        wanted, changed = plan if plan else (None, [])
        partial = wanted is not None and all(c in names for c in wanted) and len(wanted) < cols_in
        ctx.progress(0.02, "Reading the dataset")
        started = time.perf_counter()
        if partial:
            # self_destruct frees each Arrow column as pandas takes it: the peak stays near one copy.
            df = pf.read(columns=wanted, use_threads=True).to_pandas(self_destruct=True, split_blocks=True)
        else:
            df, _ = read_frame(spec["parquet"])
        read_s = time.perf_counter() - started
        ctx.log(f"read {len(df)} rows x {len(df.columns)} of {cols_in} columns")

        def progress(i: int, n: int) -> None:
            ctx.progress(0.1 + 0.7 * i / max(1, n), f"Step {i + 1} of {n}")

        out = cond.fit_transform(df, progress).reset_index(drop=True)
        del df
        if len(out) == 0:
            raise EngineError("no_row_left")
        if partial and len(out) != total:  # a step removed rows after all: the untouched columns no longer line up
            raise EngineError("rows_changed_unexpectedly")
        ctx.progress(0.82, "Writing the new dataset")
        work = ctx.work_dir
        started = time.perf_counter()
        if partial:
            # The whole new table, as the whole-table path orders it (the source's columns, then the new ones):
            # untouched columns go from the file to the output as Arrow, never through pandas; the changed ones
            # are also written apart, so the server computes statistics for them alone (issue 20).
            columns = names + [str(c) for c in out.columns if c not in names]
            written = [c for c in out.columns if c in changed]
            fresh = pa.Table.from_pandas(out[written], preserve_index=False)
            del out
            write_beside(pf, fresh, columns, work / "data.parquet")
            head = pq.ParquetFile(work / "data.parquet").read_row_group(0).slice(0, 20).to_pandas()
            # The server computes statistics for these alone and keeps the source's for the others.
            files = {"parquet": str(work / "data.parquet"), "changed_columns": written}
            row_count = fresh.num_rows
            del fresh
        else:
            columns = [str(c) for c in out.columns]
            write_parquet(pa.Table.from_pandas(out, preserve_index=False), work / "data.parquet")
            head = out.head(20)
            files = {"parquet": str(work / "data.parquet"), "changed_columns": None}
            row_count = len(out)
        write_s = time.perf_counter() - started
        condition = cond.to_dict()
        history = cond.history()
        (work / "condition.json").write_text(json.dumps(condition, ensure_ascii=False))
        ctx.progress(1.0, "Done")
        return {
            "output_dir": str(work),
            **files,
            "rows_before": total,
            "columns_before": cols_in,
            "row_count": row_count,
            "column_count": len(columns),
            "columns": columns,
            "datetime_column": cond.output_datetime_column_,
            "condition": condition,
            "history": history,
            "head": to_jsonable(head.to_dict(orient="records")),
            # Where the time went (benchmarks read it): reading, each step, writing; and the worker's peak memory.
            "timings": {
                "read_s": read_s,
                "steps_s": list(cond.step_seconds_),
                "write_s": write_s,
                "peak_rss_mb": peak_rss_mb(),
                "columns_read": len(wanted) if partial else cols_in,
            },
        }
