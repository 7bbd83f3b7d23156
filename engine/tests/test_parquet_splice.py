"""Issue 20: the new dataset of a row-keeping condition copies the source's untouched column chunks byte for byte
(mitate_engine.parquet_splice); the file must read exactly like the one written by decoding and encoding them."""

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mitate_engine import parquet_splice as ps
from mitate_engine.preprocessing import Condition
from mitate_engine.task import Context, get_task
from mitate_engine.tasks import preprocess as task_module
from mitate_engine.tasks.preprocess import approx_distinct, column_figures

STEPS = [
    {"process_type": "missing", "method": "mean", "columns": ["temperature"]},
    {"process_type": "outliers", "method": "iqr", "columns": ["pressure"], "params": {"action": "clip", "k": 1.5}},
    {"process_type": "scaling", "method": "standard", "columns": ["humidity"]},
    {"process_type": "computed", "method": "expression", "params": {"name": "load", "expression": "temperature * pressure / 100"}},
    {"process_type": "window", "method": "mean", "columns": ["signal"], "params": {"window": 10}},
]


def source_table(n: int = 5003) -> pa.Table:
    rng = np.random.default_rng(3)
    t = rng.normal(50, 10, n)
    t[rng.random(n) < 0.05] = np.nan
    counter = pd.array(rng.integers(0, 1000, n), dtype="Int64")
    counter[::97] = pd.NA
    return pa.Table.from_pandas(
        pd.DataFrame(
            {
                "id": np.arange(n),
                "temperature": t,
                "pressure": rng.random(n) * 50,
                "status": np.array(["OK", "NG", "HOLD"])[np.arange(n) % 3],
                "humidity": rng.random(n) * 100,
                "counter": counter,
                "ts": pd.date_range("2024-01-01", periods=n, freq="s", tz="Asia/Tokyo"),
                "signal": np.sin(np.arange(n) / 50) + rng.random(n),
                "code": [None if i % 11 == 0 else f"c{i * 7919 % 10007}" for i in range(n)],
                "flag": np.arange(n) % 5 == 0,
            }
        ),
        preserve_index=False,
    )


def run(src, out, monkeypatch=None, splice=True):
    if not splice:
        monkeypatch.setattr(task_module, "write_spliced", lambda *a, **k: (_ for _ in ()).throw(ps.SpliceUnsupported("test")))
    return get_task("preprocess").run(
        {"parquet": str(src), "steps": STEPS, "datetime_column": "ts", "name": "spliced", "output_dir": str(out)}, Context(lambda e: None, out)
    )


@pytest.mark.parametrize(
    "write",
    [
        {"row_group_size": 700},  # many row groups, dictionaries on every column
        {"row_group_size": 1000, "use_dictionary": ["status"], "compression": "zstd", "write_page_index": True, "data_page_size": 2048},
        {"row_group_size": 5003, "compression": "none", "data_page_version": "2.0", "write_page_index": True},
    ],
)
def test_spliced_file_reads_like_the_re_encoded_one(tmp_path, monkeypatch, write):
    src = tmp_path / "in.parquet"
    pq.write_table(source_table(), src, **write)
    spliced = run(src, tmp_path / "a")
    assert spliced["timings"]["untouched_columns"] == "spliced"
    a = pq.read_table(spliced["parquet"])
    # The re-encoded way (the decode + encode fallback) and the whole-table pandas way give the same table.
    encoded = run(src, tmp_path / "b", monkeypatch, splice=False)
    assert encoded["timings"]["untouched_columns"] == "re-encoded"
    b = pq.read_table(encoded["parquet"])
    assert a.schema.equals(b.schema, check_metadata=True)
    assert a.equals(b)
    # (The new file keeps Arrow's types, not the source's pandas metadata: read the source the same way.)
    expected = Condition(STEPS, "ts").fit_transform(pq.read_table(src).replace_schema_metadata(None).to_pandas()).reset_index(drop=True)
    pd.testing.assert_frame_equal(a.to_pandas(), expected, check_exact=True)
    assert spliced["head"] == encoded["head"]
    assert spliced["datetime_column"] == "ts" == encoded["datetime_column"]
    # Row groups as the source's; statistics of untouched chunks kept; each row group readable alone.
    meta, smeta = pq.ParquetFile(spliced["parquet"]).metadata, pq.ParquetFile(src).metadata
    assert meta.num_row_groups == smeta.num_row_groups and meta.num_rows == smeta.num_rows
    names = a.column_names
    for i in range(meta.num_row_groups):
        for c in ("id", "status", "code"):
            assert meta.row_group(i).column(names.index(c)).statistics == smeta.row_group(i).column(smeta.schema.to_arrow_schema().names.index(c)).statistics
        assert (
            pq.ParquetFile(spliced["parquet"]).read_row_group(i).equals(a.slice(sum(meta.row_group(k).num_rows for k in range(i)), meta.row_group(i).num_rows))
        )
    # Filters use the copied statistics correctly.
    assert pq.read_table(spliced["parquet"], filters=[("id", ">=", 4990)]).num_rows == 13


def test_thrift_footer_round_trip(tmp_path):
    sink = io.BytesIO()
    pq.write_table(source_table(900), sink, row_group_size=100, write_page_index=True)
    buf = sink.getvalue()
    meta, start = ps.read_footer(buf)
    assert bytes(ps.encode(meta)) == buf[start:-8]
    # Every column chunk is exactly its pages.
    names, sizes, groups, _ = ps._chunks(buf, -1, meta, start)
    assert sum(sizes) == 900 and len(groups) == 9 and set(groups[0]) == set(names)


def test_layouts_the_splice_refuses_fall_back_to_re_encoding(tmp_path, monkeypatch):
    # A nested column cannot be spliced: the result is still complete and equal to the whole-table result. (No upload
    # makes a list column, so the server's declaration of a preview cell has none: its result is not held to it here.)
    monkeypatch.delenv("MITATE_STRICT_RESULTS", raising=False)
    table = source_table(800).append_column("tags", pa.array([[i, i + 1] for i in range(800)]))
    src = tmp_path / "nested.parquet"
    pq.write_table(table, src, row_group_size=300)
    res = run(src, tmp_path / "a")
    assert res["timings"]["untouched_columns"] == "re-encoded"
    assert pq.read_table(res["parquet"]).column("tags").equals(table.column("tags"))
    # A chunk size that does not match its pages is refused before anything is written.
    flat = tmp_path / "flat.parquet"
    pq.write_table(source_table(800), flat, row_group_size=300)
    buf = bytearray(flat.read_bytes())
    meta, start = ps.read_footer(bytes(buf))
    group = meta[4][1][1][0]  # FileMetaData.row_groups[0]
    md = group[1][1][1][0][3][1]  # its first ColumnChunk's ColumnMetaData
    md[7] = (ps.I64, md[7][1] - 1)
    footer = bytes(ps.encode(meta))
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(buf[:start]) + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(ps.SpliceUnsupported):
        ps.splice(["id"], [bad], tmp_path / "out.parquet", pa.schema([pa.field("id", pa.int64())]))


def test_changed_column_figures(tmp_path):
    rng = np.random.default_rng(5)
    s = pd.Series(np.round(rng.normal(10, 3, 200_000), 2))
    s[::50] = np.nan
    f = column_figures(s)
    assert f["count"] == s.count() and f["min"] == s.min() and f["max"] == s.max()
    assert f["mean"] == pytest.approx(s.mean(), rel=1e-12) and f["std"] == pytest.approx(s.std(ddof=1), rel=1e-12)
    assert abs(f["unique"] - s.nunique()) <= 0.03 * s.nunique()
    for values in (np.zeros(10), np.arange(5), np.arange(3000) * 0.5, np.array([-0.0, 0.0, 1.0])):
        exact = len(set(values.tolist()))
        assert abs(approx_distinct(values) - exact) <= max(1, 0.01 * exact)
    assert column_figures(pd.Series([1, 2, None], dtype="Int64")) == {
        "count": 2,
        "unique": 2,
        "min": 1.0,
        "max": 2.0,
        "mean": 1.5,
        "std": pytest.approx(0.7071067811865476),
    }
    assert column_figures(pd.Series([np.nan, np.nan]))["count"] == 0
    assert column_figures(pd.Series(["a", "b"])) is None and column_figures(pd.Series([1.0, np.inf])) is None
    assert column_figures(pd.Series([True, False])) is None
