"""Issue 17: what converting the ingest benchmark's CSV to Parquet costs with the other parsers available here.

The ingest goal (>= 3x pandas read_csv + describe, with a training job on the other core) leaves about a third of
pandas' CPU-seconds for the whole upload. This probe measures, on the same file bench/ingest.bench.mjs generates
(bench/work/ingest-<rows>.csv), the CPU-seconds of CSV -> Parquet (snappy, 122,880-row groups, as the product writes)
with one thread, for Polars (scan_csv + sink_parquet) and pyarrow (csv.open_csv streamed into a ParquetWriter), and of
pandas read_csv + describe, each in its own process. The product's own DuckDB conversion is profiled by the ingest
bench itself (breakdown_s and server_cpu_seconds in bench/results/ingest.json).

    .venv/bin/python bench/ingest_parser_probe.py [rows]      (the CSV must exist: run the ingest bench once first)

Writes bench/results/ingest-parser-probe.json and prints it.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROWS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 10_000_000
CSV = ROOT / "bench" / "work" / f"ingest-{ROWS}.csv"
OUT = ROOT / "bench" / "work" / "probe.parquet"

ONE_THREAD = {"POLARS_MAX_THREADS": "1", "OMP_NUM_THREADS": "1", "ARROW_NUM_THREADS": "1"}

CONTENDERS = {
    "polars": f"""
import polars as pl
pl.scan_csv({str(CSV)!r}, infer_schema_length=20480, try_parse_dates=True).sink_parquet({str(OUT)!r}, compression="snappy", row_group_size=122880)
""",
    "pyarrow": f"""
import pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq
pa.set_cpu_count(1); pa.set_io_thread_count(1)
r = pc.open_csv({str(CSV)!r}, read_options=pc.ReadOptions(block_size=1 << 24, use_threads=False))
with pq.ParquetWriter({str(OUT)!r}, r.schema, compression="snappy") as w:
    for batch in r:
        w.write_batch(batch, row_group_size=122880)
""",
    "pandas_read_csv_and_describe": f"""
import pandas as pd
pd.read_csv({str(CSV)!r}).describe(include="all")
""",
}

RUN = """
import resource, time
t0 = time.perf_counter()
exec(compile(open(0).read(), "contender", "exec"))
r = resource.getrusage(resource.RUSAGE_SELF)
print(time.perf_counter() - t0, r.ru_utime + r.ru_stime, r.ru_maxrss / 1024)
"""


def measure(code: str) -> dict:
    p = subprocess.run([sys.executable, "-c", RUN], input=code, text=True, capture_output=True, env={**os.environ, **ONE_THREAD}, check=False)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    wall, cpu, rss = (float(v) for v in p.stdout.split())
    out = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(rss)}
    if OUT.exists():
        out["parquet_mb"] = round(OUT.stat().st_size / 1e6)
        OUT.unlink()
    return out


def main() -> None:
    if not CSV.exists():
        sys.exit(f"{CSV} is missing: run `BENCH_ROWS={ROWS} node --import tsx bench/ingest.bench.mjs` first")
    load = os.getloadavg()
    results = {}
    for name, code in CONTENDERS.items():
        try:
            __import__(name.split("_")[0])
        except ImportError:
            results[name] = {"error": "not installed (bench/requirements.txt)"}
            continue
        results[name] = measure(code)
    pandas_cpu = results.get("pandas_read_csv_and_describe", {}).get("cpu_s")
    result = {
        "name": "ingest-parser-probe",
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rows": ROWS,
        "file_mb": round(CSV.stat().st_size / 1e6),
        "threads": 1,
        "load_average_start": [round(v, 2) for v in load],
        "load_average_end": [round(v, 2) for v in os.getloadavg()],
        "csv_to_parquet": {k: v for k, v in results.items() if k != "pandas_read_csv_and_describe"},
        "pandas_read_csv_and_describe": results.get("pandas_read_csv_and_describe"),
        "pandas_cpu_over_3": round(pandas_cpu / 3, 2) if pandas_cpu else None,
        "reading": "the goal's budget on one core is pandas' CPU-seconds / 3 for the whole upload (receiving, converting, statistics); a parser whose conversion alone costs more cannot meet it there",
    }
    (ROOT / "bench" / "results" / "ingest-parser-probe.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
