import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COLUMNS } from '../src/features/datasets/csv-sniff.js';
import { filesUnder, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

/** Issue 18 items 3 and 8: wide and ragged CSVs get a clear 4xx or work; never a 5xx. */
function wideCsv(columns: number, rows = 5, text = false, modulo = 10): string {
  const header = Array.from({ length: columns }, (_, i) => `c${i}`).join(',');
  const body = Array.from({ length: rows }, (_, r) =>
    Array.from({ length: columns }, (_, i) => (text && i % 2 === 1 ? `label ${(r + i) % 7}` : String((r * 7 + i) % modulo))).join(','),
  );
  return [header, ...body].join('\n') + '\n';
}

describe('wide and ragged CSV files', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;

  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    alice = await registerAndLogin(t.app, 'alice', 'Wide Org');
  });
  afterAll(() => t?.close());

  it('registers 3,000 columns (half of them text) with statistics for every column', async () => {
    const res = await upload(t.app, alice.auth, { name: 'wide3000.csv', content: wideCsv(3000, 5, true) });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(201);
    const id = res.json().detail.response.id;
    const d = (await t.app.inject({ method: 'GET', url: `/api/dataset/${id}/false`, headers: alice.auth })).json().detail.response;
    expect(d.column_count).toBe(3000);
    expect(d.row_count).toBe(5);
    // A column far past the first statistics batch: c2998 holds (7r + 2998) % 10 = 8, 5, 2, 9, 6.
    const last = d.columns.find((c: { name: string }) => c.name === 'c2998');
    expect(last).toMatchObject({ count: 5, missing: 0, min: 2, max: 9, mean: 6 });
    const text = d.columns.find((c: { name: string }) => c.name === 'c2999');
    expect(text).toMatchObject({ type: 'string', count: 5 });
  }, 900_000);

  it('refuses 5,000 columns (97 KB) up front with a 422 naming the limit, in the user\'s language', async () => {
    const content = wideCsv(5000, 5, false, 100);
    expect(content.length).toBeGreaterThan(90_000);
    const filesBefore = filesUnder(path.join(t.dataDir, 'files'));
    for (const [lang, text] of [
      ['en', `The file has 5000 columns; at most ${MAX_COLUMNS} columns are supported.`],
      ['ja', `ファイルの列数は5000です。扱える列数は最大${MAX_COLUMNS}です。`],
    ]) {
      const res = await upload(t.app, alice.auth, { name: 'wide5000.csv', content }, {}, { 'accept-language': lang });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].msg).toBe(text);
    }
    expect(filesUnder(path.join(t.dataDir, 'files'))).toEqual(filesBefore);
  }, 900_000);

  it('answers a file too wide and long for the memory cap with a 422, never a 5xx', async () => {
    // 3,000 text columns by 3,000 rows (about 80 MB) cannot convert within 768 MB.
    const res = await upload(t.app, alice.auth, { name: 'widelong.csv', content: wideCsv(3000, 3000, true) });
    expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
    if (res.statusCode !== 201) expect(JSON.stringify(res.json().detail)).toMatch(/memory limit|columns/);
  }, 900_000);
});

describe('ragged rows', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    auth = (await registerAndLogin(t.app, 'rag', 'Ragged Org')).auth;
  });
  afterAll(() => t?.close());

  it.each([
    ['rows of 3, 2 and 4 fields', 'a,b,c\n1,2\n3,4,5,6\n', 'Row 2 has 2 fields but the header has 3.'],
    ['a short row after good ones', 'a,b,c\n1,2,3\n4,5\n', 'Row 3 has 2 fields but the header has 3.'],
    ['a long row after good ones', 'a,b,c\n1,2,3\n4,5,6,7\n', 'Row 3 has 4 fields but the header has 3.'],
    ['a short row with CRLF line ends', 'a,b,c\r\n1,2,3\r\n4,5\r\n1,2,3\r\n', 'Row 3 has 2 fields but the header has 3.'],
  ])('%s: names the first ragged row', async (_label, content, msg) => {
    const res = await upload(t.app, auth, { name: 'ragged.csv', content });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toBe(msg);
  });
});
