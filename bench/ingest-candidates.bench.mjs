// Issue 17: the cost of each part of the ingest (CSV parse with the whole-number guard, Parquet write, statistics
// scan) in CPU-seconds and wall, with the server's DuckDB settings, for candidate changes. One process, one query at
// a time; each candidate run REPEAT times, the least CPU kept. Writes bench/results/ingest-candidates.json.
//   BENCH_ROWS=2000000 node --import tsx bench/ingest-candidates.bench.mjs [group ...]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchCsv, WORK } from './lib.mjs';
import { integerGuards, doubleGuards, csvReadOptions, sqlString, ident, SAMPLE_ROWS } from '../server/src/features/datasets/ingest.ts';

const ROWS = Number(process.env.BENCH_ROWS || 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT || 2);
const groups = process.argv.slice(2);
const csv = await benchCsv(ROWS);
const out = path.join(WORK, 'cand.parquet');

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const db = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '768MB', preserve_insertion_order: 'true', temp_directory: path.join(WORK, 'duck-tmp') });
const conn = await db.connect();
async function measure(label, fn) {
  let best = null;
  for (let i = 0; i < REPEAT; i++) {
    const load = os.loadavg()[0];
    const c0 = cpu();
    const t0 = performance.now();
    const got = await fn();
    const extra = got && typeof got.file_mb === 'number' ? got : {};
    const r = { cpu_s: cpu() - c0, wall_s: (performance.now() - t0) / 1000, load_1min: load, ...extra };
    if (!best || r.cpu_s < best.cpu_s) best = r;
  }
  console.log(label, JSON.stringify(best));
  return best;
}

// the stream path's read: DuckDB's sniff of the head, then auto_detect=false with the sniffed columns
const sniff = (await conn.runAndReadAll(`SELECT * EXCLUDE (UserArguments, Prompt) FROM sniff_csv(${sqlString(csv)}, sample_size=${SAMPLE_ROWS})`)).getRowObjectsJson()[0];
const cols = sniff.Columns.map((c) => ({ name: String(c.name), dtype: String(c.type) }));
const formats = [['dateformat', sniff.DateFormat], ['timestampformat', sniff.TimestampFormat]].filter(([, v]) => v != null).map(([k, v]) => `, ${k}=${sqlString(String(v))}`).join('');
const readWith = (types) => `read_csv(${sqlString(csv)}, ${csvReadOptions(',', 2 << 20, 4 << 20, SAMPLE_ROWS)}, auto_detect=false, columns={${cols.map((c) => `${sqlString(c.name)}: ${sqlString(types[c.name] ?? c.dtype)}`).join(', ')}}${formats})`;
const select = (g) => `SELECT *${g.replace.length ? ` REPLACE (${g.replace.join(', ')})` : ''} FROM ${readWith(g.types)}`;
const SNAPPY = '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880)';

const results = {};
const want = (g) => groups.length === 0 || groups.includes(g);

if (want('parse')) {
  results.parse = {
    // a sink that reads every column: the parse alone (and its guard)
    no_guard_count: await measure('parse no guard', () => conn.run(`SELECT count(*), ${cols.map((c) => `count(${ident(c.name)})`).join(', ')} FROM ${readWith({})}`)),
    text_guard_count: await measure('parse text guard', () => conn.run(`SELECT count(*), ${cols.map((c) => `count(${ident(c.name)})`).join(', ')} FROM (${select(integerGuards(cols))})`)),
    double_guard_count: await measure('parse double guard', () => conn.run(`SELECT count(*), ${cols.map((c) => `count(${ident(c.name)})`).join(', ')} FROM (${select(doubleGuards(cols))})`)),
  };
}
if (want('convert')) {
  const size = () => ({ file_mb: fs.statSync(out).size / 2 ** 20 });
  results.convert = {
    text_guard_snappy: await measure('convert text guard', async () => (await conn.run(`COPY (${select(integerGuards(cols))}) TO ${sqlString(out)} ${SNAPPY}`), size())),
    double_guard_snappy: await measure('convert double guard', async () => (await conn.run(`COPY (${select(doubleGuards(cols))}) TO ${sqlString(out)} ${SNAPPY}`), size())),
    no_guard_snappy: await measure('convert no guard', async () => (await conn.run(`COPY (${select({ types: {}, replace: [] })}) TO ${sqlString(out)} ${SNAPPY}`), size())),
  };
}
if (want('write')) {
  // the write alone: from a table in memory
  await conn.run(`CREATE OR REPLACE TABLE t AS ${select({ types: {}, replace: [] })}`);
  const variants = {
    snappy: SNAPPY,
    uncompressed: '(FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 122880)',
    lz4_raw: '(FORMAT parquet, COMPRESSION lz4_raw, ROW_GROUP_SIZE 122880)',
    zstd_1: '(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 122880)',
    snappy_rg_1m: '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1000000)',
    snappy_rg_61440: '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 61440)',
    snappy_no_dict: '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880, DICTIONARY_SIZE_LIMIT 0)',
    snappy_dict_small: '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880, STRING_DICTIONARY_PAGE_SIZE_LIMIT 65536)',
    lz4_raw_no_dict: '(FORMAT parquet, COMPRESSION lz4_raw, ROW_GROUP_SIZE 122880, DICTIONARY_SIZE_LIMIT 0)',
  };
  results.write = {};
  for (const [k, opts] of Object.entries(variants)) {
    const file = path.join(WORK, `cand-${k}.parquet`);
    try {
      const w = await measure(`write ${k}`, async () => (await conn.run(`COPY t TO ${sqlString(file)} ${opts}`), { file_mb: fs.statSync(file).size / 2 ** 20 }));
      // what exploration and the statistics pay to read it back: a full scan of every column, and one page
      const scan = await measure(`scan ${k}`, () => conn.run(`SELECT ${cols.map((c) => `max(${ident(c.name)})`).join(', ')} FROM read_parquet(${sqlString(file)})`));
      const page = await measure(`page ${k}`, async () => void await conn.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)}) LIMIT 100 OFFSET ${Math.floor(ROWS / 2)}`));
      results.write[k] = { options: opts, write: w, scan_all_columns: scan, middle_page: page };
    } catch (e) {
      results.write[k] = { options: opts, error: String(e.message).split('\n')[0] };
      console.log(k, results.write[k].error);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }
  await conn.run('DROP TABLE t');
}
if (want('stats')) {
  await conn.run(`COPY (${select(integerGuards(cols))}) TO ${sqlString(out)} ${SNAPPY}`);
  const src = `read_parquet(${sqlString(out)})`;
  const num = cols.filter((c) => /INT|DOUBLE/.test(c.dtype));
  const q = (parts) => () => conn.run(`SELECT ${parts.join(', ')} FROM ${src}`);
  results.stats = {
    count_all: await measure('stats count', q(cols.map((c) => `count(${ident(c.name)})`))),
    approx_distinct_all: await measure('stats approx_count_distinct all', q(cols.map((c) => `approx_count_distinct(${ident(c.name)})`))),
    approx_distinct_numeric: await measure('stats approx_count_distinct numeric', q(num.map((c) => `approx_count_distinct(${ident(c.name)})`))),
    approx_distinct_text: await measure('stats approx_count_distinct text', q(cols.filter((c) => !num.includes(c)).map((c) => `approx_count_distinct(${ident(c.name)})`))),
    avg_numeric: await measure('stats avg', q(num.map((c) => `avg(${ident(c.name)})`))),
    stddev_numeric: await measure('stats stddev', q(num.map((c) => `stddev_samp(${ident(c.name)})`))),
    minmax_text: await measure('stats min/max text', q(cols.filter((c) => !num.includes(c)).flatMap((c) => [`min(${ident(c.name)})`, `max(${ident(c.name)})`]))),
    // the query statsBatch runs today (the numeric columns' count, min and max from the footer), and the same
    // without the text and timestamp columns' count, min and max (what the footer could give them)
    today_query: await measure('stats today', q(cols.flatMap((c) => num.includes(c) ? [`approx_count_distinct(${ident(c.name)})`, `avg(${ident(c.name)})`, `stddev_samp(${ident(c.name)})`] : [`count(${ident(c.name)})`, `approx_count_distinct(${ident(c.name)})`, `min(${ident(c.name)})::VARCHAR`, `max(${ident(c.name)})::VARCHAR`]))),
    without_text_bounds: await measure('stats without text bounds', q(cols.flatMap((c) => num.includes(c) ? [`approx_count_distinct(${ident(c.name)})`, `avg(${ident(c.name)})`, `stddev_samp(${ident(c.name)})`] : [`approx_count_distinct(${ident(c.name)})`]))),
  };
}
fs.rmSync(out, { force: true });
conn.closeSync();
// groups measured apart are merged into the one file (each with its own load figures)
const file = path.join(path.dirname(WORK), 'results', 'ingest-candidates.json');
const prev = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
const stamp = { at: new Date().toISOString(), rows: ROWS, repeat: REPEAT, load_after: os.loadavg() };
for (const [k, v] of Object.entries(results)) prev[k] = { ...stamp, ...v };
fs.writeFileSync(file, JSON.stringify({ name: 'ingest-candidates', machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) }, ...prev }, null, 2));
console.log(`written ${file}`);
