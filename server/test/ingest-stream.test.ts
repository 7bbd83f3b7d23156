import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import os from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import { PARQUET_OPTIONS } from '../src/features/datasets/ingest.js';
import { footerFigures, parquetStats } from '../src/features/datasets/column-stats.js';
import { loadConfig } from '../src/config.js';
import { until } from './until.js';
import { filesUnder, makeTestApp, multipart, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

/**
 * Issue 17: a CSV converted to Parquet while its upload streams in (stream-ingest.ts) must give the dataset the
 * whole-file conversion gives: the same rows, column types and statistics, and the same refusals. One app converts
 * every CSV beside its upload (threshold 0 MB), the other never does; each file goes to both.
 */
const shared = (p: string) => fs.readFileSync(path.join(SHARED_DATA, p));

/** `rows` lines of a, b, c where b is a whole number until `switchAt`, then text (the sample sees only integers). */
function typeChangeLate(rows: number, switchAt: number): string {
  const lines = ['a,b,c'];
  for (let i = 0; i < rows; i++) lines.push(`${i},${i >= switchAt ? `n/a ${i}` : i},k${i % 7}`);
  return lines.join('\n') + '\n';
}

/** Japanese headers, a BOM, quoted fields with commas and newlines, a timestamp column; long enough to stream past the head. */
function tricky(rows: number): Buffer {
  const lines = ['時刻,品番,温度,備考'];
  for (let i = 0; i < rows; i++) {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().replace('T', ' ').slice(0, 19);
    lines.push(`${ts},"A-${i % 13}",${(20 + (i % 50) / 10).toFixed(1)},"${i % 5 === 0 ? '改行\nあり' : '良品, 検査済'}"`);
  }
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join('\r\n') + '\r\n')]);
}

/**
 * Records whose second field is quoted and holds many newlines (and doubled quotes), so that the middle of the file,
 * where the upload is cut in two, falls inside a quoted field: the cut must move on to the next record's start.
 */
function quotedNewlines(rows: number): string {
  const lines = ['n,note,v'];
  for (let i = 0; i < rows; i++) lines.push(`${i},"${Array.from({ length: 40 }, (_, k) => `l${k} ""q""`).join('\n')}",${(i / 8).toFixed(3)}`);
  return lines.join('\n') + '\n';
}

/** "a,b": a = i and b = 2i for i < rows (whole numbers), then one row with `late` in a (past the sampled rows). */
function lateValue(rows: number, late: string | null): string {
  const lines = ['a,b'];
  for (let i = 0; i < rows; i++) lines.push(`${i},${2 * i}`);
  if (late !== null) lines.push(`${late},7`);
  return lines.join('\n') + '\n';
}

/** A float column with `nan`, `inf`, `-inf` (as numpy/pandas write them) among finite values, and a whole-number column. */
function nonFinite(rows: number): string {
  const lines = ['x,n'];
  const special = ['nan', 'inf', '-inf'];
  for (let i = 0; i < rows; i++) lines.push(`${i % 10 === 3 ? special[i % 3] : (i / 4).toFixed(2)},${i}`);
  return lines.join('\n') + '\n';
}

interface Case {
  name: string;
  content: Buffer | string;
  fields?: Record<string, string>;
  /** whether the conversion beside the upload is kept (false: it gives way to the whole-file conversion) */
  streamed: boolean;
}

const cases: Case[] = [
  { name: 'ccpp.csv', content: shared('uci_ccpp/ccpp.csv'), streamed: true },
  { name: 'concrete_data.csv', content: shared('uci_concrete/concrete_data.csv'), streamed: true },
  { name: 'steel_plates_faults.csv', content: shared('uci_steel_plates_faults/steel_plates_faults.csv'), streamed: true },
  { name: 'debutanizer.csv', content: shared('fortuna_soft_sensors/debutanizer.csv'), streamed: true },
  { name: 'd00_te.csv', content: shared('tep_braatz_subset/d00_te.csv'), streamed: true },
  {
    name: 'machine_temperature_system_failure.csv',
    content: shared('nab_subset/data/realKnownCause/machine_temperature_system_failure.csv'),
    fields: { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'timestamp' },
    streamed: true,
  },
  // semicolons, a datetime column read as a timestamp
  {
    name: 'anomaly-free.csv',
    content: shared('skab_subset/anomaly-free/anomaly-free.csv'),
    fields: { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'datetime' },
    streamed: true,
  },
  { name: 'tricky.csv', content: tricky(30_000), streamed: true },
  { name: 'quoted-newlines.csv', content: quotedNewlines(3_000), streamed: true },
  // text after the sampled rows: the stream's integer column fails, the whole-file path reads all rows to type it
  { name: 'late-text.csv', content: typeChangeLate(60_000, 50_000), streamed: false },
  // a 3 MB line: longer than the stream's 2 MB line limit, within the whole-file path's 16 MB
  { name: 'long-line.csv', content: `a,b\n1,x\n2,${'y'.repeat(3 * 1024 * 1024)}\n3,z\n`, streamed: false },
  // Shift_JIS is re-encoded first, as before (not converted beside the upload)
  { name: 'sjis.csv', content: iconv.encode('品番,温度,備考\n' + Array.from({ length: 3000 }, (_, i) => `A-${i},${i}.5,良品`).join('\n') + '\n', 'cp932'), streamed: false },
  // DuckDB reads these as timestamps itself
  {
    name: 'slash-dates.csv',
    content: 'when,value\n' + Array.from({ length: 5000 }, (_, i) => `2024/01/${String(1 + (i % 28)).padStart(2, '0')} 00:00:00,${i}`).join('\n') + '\n',
    fields: { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'when' },
    streamed: true,
  },
  // a fraction past the sampled rows of a whole-number column: the stream rounded it, the whole-file path reads DOUBLE
  { name: 'late-decimal.csv', content: lateValue(30_000, '50000.5'), streamed: false },
  // whole numbers all through, and a late whole number written with an exponent: BIGINT, exact. The stream reads
  // whole numbers as DOUBLE (doubleGuards): a late value of 2^52 or more is left to the whole-file path's text guard.
  { name: 'all-integer.csv', content: lateValue(30_000, '9007199254740993'), streamed: false },
  { name: 'late-2^52-1.csv', content: lateValue(30_000, '4503599627370495'), streamed: true },
  { name: 'late-2^52.csv', content: lateValue(30_000, '4503599627370496'), streamed: false },
  { name: 'late-2^52-half.csv', content: lateValue(30_000, '4503599627370496.5'), streamed: false },
  { name: 'late-2^53.csv', content: lateValue(30_000, '9007199254740992'), streamed: false },
  { name: 'late-min-int64.csv', content: lateValue(30_000, '-9223372036854775808'), streamed: false },
  { name: 'late-exponent.csv', content: lateValue(30_000, '1e3'), streamed: true },
  { name: 'late-zero-fraction.csv', content: lateValue(30_000, '5.0'), streamed: true },
  { name: 'late-nan.csv', content: lateValue(30_000, 'NaN'), streamed: false },
  { name: 'late-hex.csv', content: lateValue(30_000, '0x10'), streamed: false },
  // identifiers of 19 digits from the first row on: that column keeps the text guard, and the stream is kept
  {
    name: 'large-ids.csv',
    content: 'id,v\n' + Array.from({ length: 30_000 }, (_, i) => `${1_000_000_000_000_000_000n + BigInt(i) * 7919n},${i % 97}`).join('\n') + '\n',
    streamed: true,
  },
  // NaN and ±Infinity in a float column: the statistics leave them out and count them as missing
  { name: 'non-finite.csv', content: nonFinite(30_000), streamed: true },
  // a datetime column of dates must be cast to timestamps: the whole-file path does it
  {
    name: 'dates.csv',
    content: 'day,value\n' + Array.from({ length: 5000 }, (_, i) => `${new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)},${i}`).join('\n') + '\n',
    fields: { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'day' },
    streamed: false,
  },
];

describe('CSV converted while the upload streams in', () => {
  let streaming: TestApp;
  let whole: TestApp;
  let sa: Awaited<ReturnType<typeof registerAndLogin>>;
  let wa: Awaited<ReturnType<typeof registerAndLogin>>;
  const streamedLog: string[] = [];

  beforeAll(async () => {
    streaming = await makeTestApp('sqlite', { startJobs: false, config: { streamIngestMinMb: 0, maxUploadMb: 8 } });
    whole = await makeTestApp('sqlite', { startJobs: false, config: { streamIngestMinMb: 1_000_000, maxUploadMb: 8 } });
    sa = await registerAndLogin(streaming.app, 'stream');
    wa = await registerAndLogin(whole.app, 'whole');
    const info = streaming.app.ctx.log.info.bind(streaming.app.ctx.log);
    vi.spyOn(streaming.app.ctx.log, 'info').mockImplementation((msg: string) => {
      if (/registered: .*converted while receiving/.test(msg)) streamedLog.push(msg);
      info(msg);
    });
  });
  afterAll(async () => {
    await streaming.close();
    await whole.close();
  });

  const dataset = async (t: TestApp, auth: Record<string, string>, id: string) => {
    const d = (await t.app.inject({ method: 'GET', url: `/api/dataset/${id}/false`, headers: auth })).json().detail.response;
    const page = (await t.app.inject({ method: 'GET', url: `/api/dataset/upload/${id}?page=1&page_size=50`, headers: auth })).json().detail.response;
    const last = (await t.app.inject({ method: 'GET', url: `/api/dataset/upload/${id}?page=${Math.ceil(d.row_count / 50)}&page_size=50`, headers: auth })).json().detail.response;
    return { encoding: d.encoding, delimiter: d.delimiter, row_count: d.row_count, column_count: d.column_count, datetime_column: d.datetime_column, columns: d.columns, first: page.rows, last: last.rows };
  };

  it.each(cases)('$name: the same dataset either way', async (c) => {
    const before = streamedLog.length;
    const s = await upload(streaming.app, sa.auth, { name: c.name, content: c.content }, c.fields);
    expect(s.statusCode, s.body).toBe(201);
    const w = await upload(whole.app, wa.auth, { name: c.name, content: c.content }, c.fields);
    expect(w.statusCode, w.body).toBe(201);
    const got = await dataset(streaming, sa.auth, s.json().detail.response.id);
    const want = await dataset(whole, wa.auth, w.json().detail.response.id);
    // a standard deviation's last digits may depend on the order DuckDB's threads add up: compared apart
    const noStd = (d: typeof got) => ({ ...d, columns: d.columns.map((c: { std: number | null }) => ({ ...c, std: c.std === null })) });
    expect(noStd(got)).toEqual(noStd(want));
    got.columns.forEach((c: { name: string; std: number | null }, i: number) => {
      const w = want.columns[i].std as number | null;
      if (c.std !== null && w !== null) expect(Math.abs(c.std - w) / Math.max(1, Math.abs(w)), c.name).toBeLessThan(1e-9);
    });
    expect(got.row_count).toBeGreaterThan(0);
    expect(streamedLog.length - before, `${c.name}: kept the conversion beside the upload`).toBe(c.streamed ? 1 : 0);
    // the upload was cut in two at a record boundary and both pieces parsed at once
    if (c.streamed) expect(streamedLog.at(-1)).toMatch(/in 2 piece\(s\) at once/);
    // nothing of the conversion beside the upload stays behind (its pipe, its file)
    expect(filesUnder(path.join(streaming.dataDir, 'files')).filter((f) => /upload\.pipe|streamed\.parquet/.test(f))).toEqual([]);
  });

  it('types a column that changes after the first rows as the whole-file path does', async () => {
    const s = await upload(streaming.app, sa.auth, { name: 'late.csv', content: typeChangeLate(60_000, 50_000) });
    const cols = s.json().detail.response.column_count;
    expect(cols).toBe(3);
    const d = (await streaming.app.inject({ method: 'GET', url: `/api/dataset/${s.json().detail.response.id}/true`, headers: sa.auth })).json().detail.response;
    expect(d.columns.map((c: { type: string }) => c.type)).toEqual(['integer', 'string', 'string']);
  });

  const columnsOf = async (t: TestApp, auth: Record<string, string>, name: string, content: string) => {
    const r = await upload(t.app, auth, { name, content });
    expect(r.statusCode, r.body).toBe(201);
    const id = String(r.json().detail.response.id);
    const d = await dataset(t, auth, id);
    const parquet = filesUnder(path.join(t.dataDir, 'files')).find((f) => f.includes(id) && f.endsWith('.parquet'));
    return { d, last: d.last[d.last.length - 1] as unknown[], parquet: path.join(t.dataDir, 'files', parquet!) };
  };
  /** The late row's `a` as the Parquet file holds it (a 64-bit integer as its digits; the page gives it as a number). */
  const lateInParquet = async (file: string) => {
    const duck = await DuckDBInstance.create(':memory:');
    try {
      const conn = await duck.connect();
      const r = await conn.runAndReadAll(`SELECT a FROM read_parquet('${file}') WHERE b = 7`);
      conn.closeSync();
      return r.getRowObjectsJson().map((row) => row.a);
    } finally {
      duck.closeSync();
    }
  };

  it.each([
    // 50000.5 would be rounded to 50001 by DuckDB's text-to-integer cast
    ['a late fraction', '50000.5', 'DOUBLE', 50000.5],
    ['a late negative fraction with an exponent', '-1.25e1', 'DOUBLE', -12.5],
    ['a late fraction of a whole number beyond a double', '9007199254740993.5', 'DOUBLE', 9007199254740994],
    ['a late whole number with an exponent (negative)', '-1.25e2', 'BIGINT', -125],
    ['a late whole number with an exponent', '1e3', 'BIGINT', 1000],
    ['a late whole number with a zero fraction', '12.000', 'BIGINT', 12],
    ['whole numbers only (beyond a double)', '9007199254740993', 'BIGINT', '9007199254740993'],
    ['a late 2^52 - 1', '4503599627370495', 'BIGINT', 4503599627370495],
    ['a late -2^63', '-9223372036854775808', 'BIGINT', '-9223372036854775808'],
    ['a late whole number with a zero fraction (5.0)', '5.0', 'BIGINT', 5],
  ])('%s in a whole-number column (%s) is kept exactly, either way', async (_label, late, dtype, value) => {
    for (const [t, auth] of [
      [streaming, sa.auth],
      [whole, wa.auth],
    ] as const) {
      const { d, last, parquet } = await columnsOf(t, auth, `late-${late}.csv`, lateValue(30_000, late));
      expect(d.columns.map((c: { dtype: string }) => c.dtype)).toEqual([dtype, 'BIGINT']);
      expect(d.row_count).toBe(30_001);
      expect(await lateInParquet(parquet)).toEqual([dtype === 'DOUBLE' ? Number(value) : String(value)]);
      // the page shows a 64-bit integer a double cannot hold by its digits (datasets service exactInteger)
      expect(last[0]).toBe(dtype === 'BIGINT' && !Number.isSafeInteger(Number(value)) ? String(value) : Number(value));
      expect(last[1]).toBe(7);
      expect(d.columns[0].max).toBe(Math.max(29_999, Number(value)));
    }
  });

  it('reads nan, inf and -inf in a numeric column and gives its figures over the finite values, either way', async () => {
    const rows = 30_000;
    const finite = Array.from({ length: rows }, (_, i) => i).filter((i) => i % 10 !== 3).map((i) => Number((i / 4).toFixed(2)));
    const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
    const std = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / (finite.length - 1));
    for (const [t, auth] of [
      [streaming, sa.auth],
      [whole, wa.auth],
    ] as const) {
      const { d } = await columnsOf(t, auth, 'nan-inf.csv', nonFinite(rows));
      const x = d.columns[0];
      expect(x).toMatchObject({ name: 'x', dtype: 'DOUBLE', count: finite.length, missing: rows - finite.length, min: 0, max: Math.max(...finite) });
      expect(x.unique).toBeLessThanOrEqual(finite.length);
      expect(Math.abs(x.mean - mean)).toBeLessThan(1e-9);
      expect(Math.abs(x.std - std) / std).toBeLessThan(1e-9);
      expect(d.columns[1]).toMatchObject({ name: 'n', dtype: 'BIGINT', count: rows, missing: 0 });
    }
  });

  it('converts an upload of unknown size (no content-length) in one piece, the same dataset', async () => {
    const before = streamedLog.length;
    const file = { name: 'chunked.csv', content: tricky(20_000) };
    const body = multipart({ name: file.name, data_type: 'training_data', type: 'supervised', training_type: 'regression' }, file);
    // a stream body goes without a content-length: the size is not announced, so there is nowhere to cut
    const s = await streaming.app.inject({ method: 'POST', url: '/api/dataset/register', payload: Readable.from([body.payload]), headers: { ...body.headers, ...sa.auth } });
    expect(s.statusCode, s.body).toBe(201);
    expect(streamedLog.length - before).toBe(1);
    expect(streamedLog.at(-1)).toMatch(/in 1 piece\(s\) at once/);
    const w = await upload(whole.app, wa.auth, file);
    const got = await dataset(streaming, sa.auth, s.json().detail.response.id);
    const want = await dataset(whole, wa.auth, w.json().detail.response.id);
    expect({ ...got, columns: got.columns.map((c: { std: unknown }) => ({ ...c, std: null })) }).toEqual({ ...want, columns: want.columns.map((c: { std: unknown }) => ({ ...c, std: null })) });
  });

  it('takes several uploads at once: one is converted beside its upload, the others after theirs, all complete', async () => {
    const before = streamedLog.length;
    const files = [0, 1, 2].map((k) => ({ name: `many-${k}.csv`, content: typeChangeLate(40_000 + k, 1_000_000) }));
    const res = await Promise.all(files.map((f) => upload(streaming.app, sa.auth, f)));
    expect(res.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(res.map((r) => r.json().detail.response.row_count)).toEqual([40_000, 40_001, 40_002]);
    expect(streamedLog.length - before).toBeGreaterThanOrEqual(1);
    expect(filesUnder(path.join(streaming.dataDir, 'tmp')).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
  });

  it('stops the conversion when the client goes away mid-upload, leaves nothing behind, and takes the next upload', async () => {
    const address = await streaming.app.listen({ port: 0, host: '127.0.0.1' });
    const body = multipart({ name: 'gone.csv', data_type: 'training_data', type: 'supervised', training_type: 'regression' }, { name: 'gone.csv', content: typeChangeLate(200_000, 1_000_000) });
    const url = new URL(`${address}/api/dataset/register`);
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...sa.auth, ...body.headers, 'content-length': body.payload.length } });
    req.on('error', () => {});
    req.write(body.payload.subarray(0, Math.floor(body.payload.length / 2)));
    const tmp = path.join(streaming.dataDir, 'tmp');
    await until('the upload converting', () => fs.readdirSync(tmp).some((d) => fs.existsSync(path.join(tmp, d, 'upload.pipe'))));
    req.destroy();
    await until('its folder removed', () => fs.readdirSync(tmp).filter((d) => d !== 'duckdb').length === 0);
    const before = streamedLog.length;
    const again = await upload(streaming.app, sa.auth, { name: 'after.csv', content: typeChangeLate(50_000, 1_000_000) });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().detail.response.row_count).toBe(50_000);
    expect(streamedLog.length - before, 'the next upload is converted beside it again').toBe(1);
  });

  const bad: [string, { name: string; content: Buffer | string }, number, RegExp, RegExp][] = [
    // ragged after the head: the stream fails mid-way, the whole-file path finds the row
    ['a ragged row late in the file', { name: 'r.csv', content: 'a,b,c\n' + '1,2,3\n'.repeat(300_000) + '4,5\n' }, 422, /Row 300002 has 2 fields but the header has 3/, /300002/],
    ['a header only', { name: 'h.csv', content: 'a,b,c\n' }, 422, /no data rows/, /ヘッダーのみ/],
    ['an oversized file', { name: 'big.csv', content: 'a,b\n' + '1,2\n'.repeat(3_000_000) }, 413, /less than 8 MB/, /8 MB未満/],
    ['a value that is not a date', { name: 'd.csv', content: 'when,value\n' + '2024-01-01 00:00:00,1\n'.repeat(30_000) + 'yesterday,2\n' }, 422, /when/, /when/],
  ];
  it.each(bad)('refuses %s as before (English and Japanese), leaving nothing behind', async (label, file, status, en, ja) => {
    const fields: Record<string, string> = label.includes('date') ? { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'when' } : {};
    for (const [lang, pattern] of [['en', en], ['ja', ja]] as const) {
      const before = await streaming.app.ctx.db.selectFrom('datasets').select('id').execute();
      const filesBefore = filesUnder(path.join(streaming.dataDir, 'files'));
      const res = await upload(streaming.app, sa.auth, file, fields, { 'accept-language': lang });
      expect(res.statusCode, res.body).toBe(status);
      expect(JSON.stringify(res.json().detail)).toMatch(pattern);
      const ref = await upload(whole.app, wa.auth, file, fields, { 'accept-language': lang });
      expect(res.json()).toEqual(ref.json());
      expect((await streaming.app.ctx.db.selectFrom('datasets').select('id').execute()).length).toBe(before.length);
      expect(filesUnder(path.join(streaming.dataDir, 'files'))).toEqual(filesBefore);
      expect(filesUnder(path.join(streaming.dataDir, 'tmp')).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
    }
  });
});

describe('statistics of numeric columns from the Parquet footer', () => {
  let dir: string;
  let duck: DuckDBInstance;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-footer-'));
    duck = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '768MB' });
  });
  afterAll(() => {
    duck?.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const { exactUniqueRows } = loadConfig();
  /** Writes the query's rows as the ingest does and returns its statistics with and without the footer's figures. */
  const both = async (name: string, query: string) => {
    const conn = await duck.connect();
    try {
      const file = path.join(dir, `${name}.parquet`);
      await conn.run(`COPY (${query}) TO '${file}' ${PARQUET_OPTIONS}`);
      return { footer: await parquetStats(conn, file, { exactUniqueRows, footer: true }), scanned: await parquetStats(conn, file, { exactUniqueRows }) };
    } finally {
      conn.closeSync();
    }
  };

  it.each([
    ['ccpp', `SELECT * FROM read_csv('${path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv')}')`],
    ['steel', `SELECT * FROM read_csv('${path.join(SHARED_DATA, 'uci_steel_plates_faults', 'steel_plates_faults.csv')}')`],
    // several row groups; nulls, negatives, 64-bit integers beyond a double's precision, -0.0
    [
      'mixed',
      `SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE (i - 150000) * 0.25 END AS f, 9007199254740993 - i AS big, CASE WHEN i = 5 THEN -0.0 ELSE i END::DOUBLE AS z,
         CASE WHEN i < 200000 THEN NULL ELSE i END AS late, 'k' || (i % 3) AS s FROM range(300000) t(i)`,
    ],
    // text from the footer: Japanese, empty strings, nulls, a row group of nulls only, prefixes and case, a string
    // longer than the writer keeps exact, bytes above ASCII; and a timestamp column (scanned)
    [
      'text',
      `SELECT i, CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN '' ELSE ['検査', 'a', 'ab', 'B', 'é', '~', 'Z', '良品'][1 + (i % 8)] || (i % 5)::VARCHAR END AS s,
         CASE WHEN i < 130000 THEN NULL ELSE 'v' || i::VARCHAR END AS late_text,
         CASE WHEN i = 7 THEN repeat('z', 20000) WHEN i = 8 THEN repeat('a', 20000) ELSE 'm' || (i % 100)::VARCHAR END AS long_text,
         TIMESTAMP '2024-01-01' + to_seconds(i) AS ts FROM range(300000) t(i)`,
    ],
  ])('%s: the same as a scan', async (name, query) => {
    const { footer, scanned } = await both(name, query);
    // a standard deviation's last digits depend on the order DuckDB's threads add up (in a scan as much as here);
    // the 64-bit column's is not meaningful at all (its values lose their last digits as doubles)
    const exact = (r: typeof footer) => ({ ...r, columns: r.columns.map((c) => ({ ...c, std: c.name === 'big' ? 0 : null })) });
    expect(exact(footer)).toEqual(exact(scanned));
    footer.columns.forEach((c, i) => {
      const want = scanned.columns[i].std;
      if (c.name === 'big' || want === null) expect(c.std === null, c.name).toBe(want === null);
      else expect(Math.abs((c.std as number) - want) / Math.max(1, Math.abs(want)), c.name).toBeLessThan(1e-9);
    });
    expect(footer.rowCount).toBeGreaterThan(0);
    if (name === 'text') {
      // the text columns' bounds did come from the footer (the long strings' do not: their bounds are cut)
      const conn = await duck.connect();
      try {
        const f = await footerFigures(conn, path.join(dir, 'text.parquet'));
        expect(f.get('s')?.text).toEqual({ min: '', max: '良品4' });
        expect(f.get('late_text')?.text).not.toBeNull();
        expect(f.get('long_text')?.text ?? null).toBeNull();
      } finally {
        conn.closeSync();
      }
    }
  });
});
