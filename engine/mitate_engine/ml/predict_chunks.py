"""Prediction of a large table in chunks: CHUNK_ROWS rows at a time are read from the Parquet file, predicted and
appended to predictions.parquet and predictions.csv, so memory is bounded by the chunk, not the table. The result is
the same as predicting the whole table at once (tests/test_scale.py checks it); only models whose output for a row
depends on that row alone are chunked — soft-sensor lags/windows and a preprocessing condition read across rows, so
those models predict the whole table as before. Files are written beside their final names and renamed at the end:
a stopped job leaves no half-written result.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

from .stream import stream_rows

CHUNK_ROWS = 1_000_000
CHUNKED_FROM_ROWS = 200_000  # tables from this many rows take this path (as scale.LARGE_ROWS) ...


def chunked_from_rows() -> int:
    """... and so does every table that trains streamed (ml/stream.py), should MITATE_ML_STREAM_ROWS be set lower."""
    return min(CHUNKED_FROM_ROWS, stream_rows())


def parquet_rows(path: str) -> int:
    import pyarrow.parquet as pq

    try:
        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - the whole-table path reports an unreadable file in the user's words
        return 0


def chunkable(model, condition: dict | None) -> bool:
    from .model import TrainedModel

    if not isinstance(model, TrainedModel) or model.lags or model.windows:
        return False
    return not (condition and condition.get("steps"))


class Summary:
    """The result summary of a prediction (counts of classes/clusters, or mean/min/max/missing), added up chunk by
    chunk."""

    def __init__(self, project_type: str) -> None:
        self.kind = "counts" if project_type in ("discriminant_analysis", "clustering") else "stats"
        self.counts: dict = {}
        self.n = 0
        self.total = 0.0
        self.lo: float | None = None
        self.hi: float | None = None
        self.missing = 0

    def add(self, s: pd.Series) -> Summary:
        if self.kind == "counts":
            for k, v in s.value_counts(dropna=False).items():
                self.counts[k] = self.counts.get(k, 0) + int(v)
            return self
        v = s.dropna()
        self.missing += int(s.isna().sum())
        if len(v):
            self.n += len(v)
            self.total += float(v.sum())
            self.lo = float(v.min()) if self.lo is None else min(self.lo, float(v.min()))
            self.hi = float(v.max()) if self.hi is None else max(self.hi, float(v.max()))
        return self

    def result(self) -> dict:
        if self.kind == "counts":
            try:
                keys = sorted(self.counts)
            except TypeError:  # mixed kinds of value
                keys = sorted(self.counts, key=str)
            return {"counts": {str(k): int(self.counts[k]) for k in keys}}
        return {"stats": {"mean": self.total / self.n if self.n else None, "min": self.lo, "max": self.hi, "missing": self.missing}}


def predict_in_chunks(model, parquet: str, ctx, lang: str = "en", chunk_rows: int | None = None) -> dict:
    """The prediction job's work for a chunkable model; answers the same summary as the whole-table path. At most
    chunk_rows rows (CHUNK_ROWS unless given) are held, predicted and written at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..csvsafe import write_csv_table
    from ..lang import say

    chunk_rows = chunk_rows or CHUNK_ROWS
    # pre_buffer off: with it, iter_batches keeps every row group's read buffers until the file is closed, so Arrow's
    # memory grew by a chunk's bytes per chunk (4.6 GB after 58 M rows of the 100 M-row bench) instead of staying flat.
    f = pq.ParquetFile(parquet, pre_buffer=False)
    total = f.metadata.num_rows
    work: Path = ctx.work_dir
    pq_tmp, csv_tmp = work / "predictions.parquet.part", work / "predictions.csv.part"
    state: dict = {"writer": None, "columns": []}
    out_schema = None
    outputs: list[str] = []
    summary = Summary(model.project_type)
    done = 0
    # One writer thread: chunk k is written (Parquet, CSV; both release the GIL) while chunk k+1 is predicted.
    pool = ThreadPoolExecutor(max_workers=1)
    pending = None
    try:
        with open(csv_tmp, "wb") as csv_file:

            def write(table, first: bool) -> None:
                if state["writer"] is None:
                    state["columns"] = table.column_names
                    state["writer"] = pq.ParquetWriter(pq_tmp, table.schema)
                state["writer"].write_table(table)
                write_csv_table(table, csv_file, header=first)

            for batch in f.iter_batches(batch_size=chunk_rows):
                ctx.progress(
                    0.05 + 0.9 * done / max(1, total),
                    say("job_predicting_rows", lang, first=f"{done + 1:,}", last=f"{done + batch.num_rows:,}", total=f"{total:,}"),
                )
                df = _model_columns(model, batch)
                df.index = pd.RangeIndex(done, done + len(df))
                out = model.predict(df, raw=False)
                outputs = list(out.columns)
                summary.add(out[outputs[0]])
                inputs = pa.Table.from_batches([batch]).drop_columns([c for c in outputs if c in batch.schema.names])
                preds = pa.Table.from_pandas(out.reset_index(drop=True), preserve_index=False)
                if out_schema is None:
                    out_schema = preds.schema
                else:
                    preds = preds.cast(out_schema)
                table = pa.table([*preds.columns, *inputs.columns], names=[*preds.column_names, *inputs.column_names])
                if pending is not None:
                    pending.result()  # the previous chunk is written (and its error, if any, raised) first
                pending = pool.submit(write, table, done == 0)
                done += batch.num_rows
            if pending is not None:
                pending.result()
                pending = None
        if state["writer"] is not None:
            state["writer"].close()
            state["writer"] = None
        os.replace(pq_tmp, work / "predictions.parquet")
        os.replace(csv_tmp, work / "predictions.csv")
    finally:
        if pending is not None:
            pending.cancel()
            try:
                pending.result()
            except Exception:  # noqa: BLE001 - the job is already failing or stopped; its own error is the one reported
                pass
        pool.shutdown(wait=True)
        if state["writer"] is not None:
            state["writer"].close()
        for p in (pq_tmp, csv_tmp):
            p.unlink(missing_ok=True)
    columns = state["columns"]
    ctx.progress(1.0, say("job_done", lang))
    return {"rows": done, "columns": columns, "outputs": outputs, "condition_applied": None, "chunks": -(-done // chunk_rows), **summary.result()}


def _model_columns(model, batch) -> pd.DataFrame:
    """The model's input columns of one batch as pandas: category inputs as pandas categories (from Arrow
    dictionaries, not one Python string per row); the other columns stay in Arrow for the output."""
    import pyarrow as pa

    cols, names = [], []
    for c in model.features:
        if c not in batch.schema.names:
            continue  # TrainedModel.check names the missing column in the user's words
        col = batch.column(c)
        if model.kinds.get(c) == "category" and (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            col = col.dictionary_encode()
        cols.append(col)
        names.append(c)
    return pa.RecordBatch.from_arrays(cols, names=names).to_pandas() if cols else pd.DataFrame(index=pd.RangeIndex(batch.num_rows))
