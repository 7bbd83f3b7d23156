// Cost of the guard that keeps a fraction in a whole-number column from being rounded (ingest.ts integerGuards: the
// columns sniffed as whole numbers are read as text and cast in the COPY's SELECT, failing on a fraction). The same
// CSV-to-Parquet COPY with and without the guard, alternated, on the ingest benchmark's table (2 whole-number columns
// of 12); plus the one-off scan that runs only when a fraction was found (nonIntegralColumns). Run from the repository
// root:   BENCH_ROWS=1000000 node --import tsx bench/ingest-check.bench.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchCsv, writeResult } from './lib.mjs';
import { integerGuards, nonIntegralColumns, PARQUET_OPTIONS, readCsvExpr, SAMPLE_ROWS } from '../server/src/features/datasets/ingest.ts';
import { MAX_HEADER_BYTES, sniffCsv } from '../server/src/features/datasets/csv-sniff.ts';

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 5);
const csv = await benchCsv(ROWS);
const size = fs.statSync(csv).size;
const head = Buffer.alloc(Math.min(size, MAX_HEADER_BYTES));
const fd = fs.openSync(csv, 'r');
fs.readSync(fd, head, 0, head.length, 0);
fs.closeSync(fd);
const sniffed = sniffCsv(head, size);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-ingest-check-'));
// as the server opens it (app.ts)
const duck = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '768MB', preserve_insertion_order: 'true', temp_directory: path.join(dir, 'duckdb') });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { plain: [], guarded: [], scan: [] };
// CPU seconds of this process (DuckDB's threads included): what a loaded machine does not inflate
const cpu = { plain: [], guarded: [] };
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const loads = [os.loadavg()[0]];
let guardedColumns = [];
const conn = await duck.connect();
try {
  const expr = readCsvExpr(csv, sniffed, SAMPLE_ROWS);
  const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${expr}`)).getRowObjectsJson().map((r) => ({ name: String(r.column_name), dtype: String(r.column_type) }));
  const guards = integerGuards(cols);
  guardedColumns = Object.keys(guards.types);
  const queries = {
    plain: `SELECT * FROM ${expr}`,
    guarded: `SELECT * REPLACE (${guards.replace.join(', ')}) FROM ${readCsvExpr(csv, sniffed, SAMPLE_ROWS, guards.types)}`,
  };
  for (let run = 0; run < RUNS; run++) {
    for (const [name, query] of Object.entries(queries)) {
      const out = path.join(dir, `${name}.parquet`);
      const t = performance.now();
      const c0 = cpuNow();
      await conn.run(`COPY (${query}) TO '${out}' ${PARQUET_OPTIONS}`);
      times[name].push(performance.now() - t);
      cpu[name].push(cpuNow() - c0);
    }
    const t = performance.now();
    const found = await nonIntegralColumns(conn, csv, sniffed, cols);
    times.scan.push(performance.now() - t);
    if (found.length) throw new Error(`unexpected fractions in ${found}`);
    loads.push(os.loadavg()[0]);
  }
  const same = (await conn.runAndReadAll(`SELECT count(*) AS n FROM (SELECT * FROM read_parquet('${path.join(dir, 'plain.parquet')}') EXCEPT ALL SELECT * FROM read_parquet('${path.join(dir, 'guarded.parquet')}'))`)).getRowObjectsJson()[0].n;
  if (Number(same) !== 0) throw new Error('the guarded conversion wrote other rows');
} finally {
  conn.closeSync();
  duck.closeSync();
  fs.rmSync(dir, { recursive: true, force: true });
}
writeResult('ingest-check', {
  rows: ROWS,
  file_mb: Math.round(size / 2 ** 20),
  guarded_columns: guardedColumns,
  load_average_1min: { per_run: loads, cpus: os.cpus().length },
  csv_to_parquet_ms: { plain: { median: median(times.plain), runs: times.plain }, guarded: { median: median(times.guarded), runs: times.guarded } },
  guard_extra_share: median(times.guarded) / median(times.plain) - 1,
  csv_to_parquet_cpu_s: { plain: { median: median(cpu.plain), runs: cpu.plain }, guarded: { median: median(cpu.guarded), runs: cpu.guarded } },
  guard_extra_cpu_share: median(cpu.guarded) / median(cpu.plain) - 1,
  scan_when_a_fraction_is_found_ms: { median: median(times.scan), runs: times.scan },
});
