"""Kind `preprocess`: fits a condition on a dataset's Parquet file and writes the result as a temporary dataset.

Spec: {parquet, steps, datetime_column?, name?, output_dir}. Writes `data.parquet` (the new data) and
`condition.json` (the condition with every step's fitted parameters) to output_dir; the server registers the
folder as a new dataset on request (POST new_dataset/register/{temp_id}).
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from ..encoding import to_jsonable
from ..preprocessing import Condition
from ..task import Context, Task, UserError


def read_frame(path: str, rows: int | None = None):
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise UserError(f"The dataset file could not be read: {exc}") from exc
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


class Preprocess(Task):
    kind = "preprocess"

    def run(self, spec: dict, ctx: Context) -> dict:
        if not spec.get("parquet"):
            raise UserError("spec.parquet (the dataset to pre-process) is required")
        cond = Condition(spec.get("steps") or [], spec.get("datetime_column"), spec.get("name") or "")
        ctx.progress(0.02, "Reading the dataset")
        df, total = read_frame(spec["parquet"])
        rows_in, cols_in = len(df), len(df.columns)
        ctx.log(f"read {rows_in} rows x {cols_in} columns")

        def progress(i: int, n: int) -> None:
            ctx.progress(0.1 + 0.7 * i / max(1, n), f"Step {i + 1} of {n}")

        out = cond.fit_transform(df, progress).reset_index(drop=True)
        del df
        if len(out) == 0:
            raise UserError("No row is left after the condition; nothing to register.")
        ctx.progress(0.82, "Writing the new dataset")
        work = ctx.work_dir
        table = pa.Table.from_pandas(out, preserve_index=False)
        pq.write_table(table, str(work / "data.parquet"), compression="snappy", row_group_size=122880)
        condition = cond.to_dict()
        history = cond.history()
        (work / "condition.json").write_text(json.dumps(condition, ensure_ascii=False))
        ctx.progress(1.0, "Done")
        return {
            "output_dir": str(work),
            "parquet": str(work / "data.parquet"),
            "rows_before": rows_in,
            "columns_before": cols_in,
            "row_count": len(out),
            "column_count": len(out.columns),
            "columns": [str(c) for c in out.columns],
            "datetime_column": cond.output_datetime_column_,
            "condition": condition,
            "history": history,
            "head": to_jsonable(out.head(20).to_dict(orient="records")),
        }
