import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestCsv, StreamingIngest } from '../src/features/datasets/ingest.js';
import { sniffCsv } from '../src/features/datasets/csv-sniff.js';
import { makeTestApp, multipart, registerAndLogin, type TestApp, upload } from './helpers.js';

/** Every entry under a folder, pipes included (filesUnder lists regular files only). */
const entriesUnder = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : []);

/** ~3 MB: numbers, text, a timestamp and a column whose type only the later rows decide. */
function table(rows: number, late?: { at: number; value: string }) {
  const lines = ['id,x,label,ts,late'];
  for (let i = 0; i < rows; i++) {
    const lateValue = late && i === late.at ? late.value : String(i % 97);
    lines.push(`${i},${(i * 0.37) % 101},k${i % 13},2024-01-01 ${String(i % 24).padStart(2, '0')}:00:00,${lateValue}`);
  }
  return Buffer.from(lines.join('\n') + '\n');
}

async function feed(s: StreamingIngest, bytes: Buffer, chunk = 65536) {
  for (let i = 0; i < bytes.length; i += chunk) await s.write(bytes.subarray(i, i + chunk));
}

describe('converting a CSV while it uploads (issue 17)', () => {
  let duck: DuckDBInstance;
  let dir: string;
  beforeAll(async () => {
    duck = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MB' });
  });
  afterAll(() => duck.closeSync());

  const fresh = () => (dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'mitate-stream-')));
  const rows = async (file: string) => {
    const c = await duck.connect();
    try {
      return (await c.runAndReadAll(`SELECT * FROM read_parquet('${file}') ORDER BY id`)).getRowsJson();
    } finally {
      c.closeSync();
    }
  };

  it('gives the same Parquet file and statistics as converting the saved file', async () => {
    fresh();
    const bytes = table(60_000);
    const s = new StreamingIngest(duck, dir, null);
    await feed(s, bytes);
    const streamed = await s.finish();
    expect(streamed?.timings?.streamed).toBe(true);
    expect(entriesUnder(dir)).toEqual(['data.parquet']); // the pipe is gone
    const other = fs.mkdtempSync(path.join(dir, 'file-'));
    fs.writeFileSync(path.join(other, 'in.csv'), bytes);
    const viaFile = await ingestCsv(duck, { src: path.join(other, 'in.csv'), dir: other, sniffed: sniffCsv(bytes.subarray(0, 1 << 20), bytes.length) });
    expect(streamed!.rowCount).toBe(60_000);
    expect(streamed!.columns).toEqual(viaFile.columns);
    expect(await rows(path.join(dir, 'data.parquet'))).toEqual(await rows(path.join(other, 'data.parquet')));
    fs.rmSync(dir, { recursive: true });
  });

  it('casts the datetime column as the file path does', async () => {
    fresh();
    const s = new StreamingIngest(duck, dir, 'ts');
    await feed(s, table(40_000));
    const r = await s.finish();
    expect(r?.columns.find((c) => c.name === 'ts')?.dtype).toBe('TIMESTAMP');
    fs.rmSync(dir, { recursive: true });
  });

  it('gives up, leaving nothing, when a late value contradicts the sampled types or a row is ragged', async () => {
    for (const bytes of [table(60_000, { at: 50_000, value: 'text' }), Buffer.concat([table(60_000), Buffer.from('1,2,3\n')])]) {
      fresh();
      const s = new StreamingIngest(duck, dir, null);
      await feed(s, bytes);
      expect(await s.finish()).toBeNull();
      expect(entriesUnder(dir)).toEqual([]);
      fs.rmSync(dir, { recursive: true });
    }
  });

  it('leaves small and Shift_JIS uploads to the file path', async () => {
    fresh();
    const small = new StreamingIngest(duck, dir, null);
    await feed(small, table(100));
    expect(await small.finish()).toBeNull();
    const sjis = new StreamingIngest(duck, dir, null);
    await feed(sjis, Buffer.concat([Buffer.from([0x96, 0xbc, 0x91, 0x4f, 0x2c, 0x78, 0x0a]), table(60_000)])); // 名前,x
    expect(await sjis.finish()).toBeNull();
    expect(entriesUnder(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });

  it('stops when the upload is abandoned part-way', async () => {
    fresh();
    const s = new StreamingIngest(duck, dir, null);
    const bytes = table(60_000);
    await feed(s, bytes.subarray(0, bytes.length / 2));
    await s.abort();
    expect(entriesUnder(dir).filter((e) => e !== 'data.parquet')).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('registering large uploads through the route', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    alice = await registerAndLogin(t.app, 'alice', 'Org A');
  });
  afterAll(() => t.close());

  it('keeps the original byte for byte and falls back to the file for a late contradicting value', async () => {
    const bytes = table(60_000, { at: 55_000, value: 'text' });
    const res = await upload(t.app, alice.auth, { name: 'late.csv', content: bytes });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json().detail.response;
    expect(d.row_count).toBe(60_000);
    const got = await t.app.inject({ method: 'GET', url: `/api/dataset/${d.id}/false`, headers: alice.auth });
    expect(got.json().detail.response.columns.find((c: any) => c.name === 'late').type).toBe('string');
    const original = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: alice.auth, payload: { paths: [d.files.original] } });
    expect(original.statusCode).toBe(200);
    expect(original.rawPayload.equals(bytes)).toBe(true);
  });

  it('names a ragged row deep in a large file, and nothing stays behind', async () => {
    const bytes = Buffer.concat([table(60_000), Buffer.from('1,2\n')]);
    const res = await upload(t.app, alice.auth, { name: 'ragged.csv', content: bytes });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toMatch(/60002/);
    expect(entriesUnder(path.join(t.dataDir, 'tmp')).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
  });

  it('lists nothing and keeps nothing when the client goes away mid-upload', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/?page=1&page_size=50', headers: alice.auth })).json().detail.response.total;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const body = multipart({ name: 'cut', data_type: 'training_data', type: 'supervised', training_type: 'regression' }, { name: 'cut.csv', content: table(60_000) });
    await new Promise<void>((resolve) => {
      const req = http.request(`${address}/api/dataset/register`, {
        method: 'POST',
        headers: { ...body.headers, ...alice.auth, 'content-length': String(body.payload.length) },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(body.payload.subarray(0, body.payload.length / 2), () => setImmediate(() => req.destroy()));
    });
    // The server notices the broken connection on its own time; wait for the temporary folder to empty.
    const tmp = path.join(t.dataDir, 'tmp');
    const deadline = Date.now() + 120_000;
    while (entriesUnder(tmp).some((f) => !f.startsWith('duckdb')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(entriesUnder(tmp).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
    const after = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/?page=1&page_size=50', headers: alice.auth })).json().detail.response.total;
    expect(after).toBe(before);
  });
});
