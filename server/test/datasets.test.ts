import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, filesUnder, makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

const ccpp = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'));

describe.each(DATABASES)('datasets on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let ccppId: string;

  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false, config: { maxUploadMb: 2 } });
    alice = await registerAndLogin(t.app, 'alice', 'Org A');
    bob = await registerAndLogin(t.app, 'bob', 'Org B');
    const res = await upload(t.app, alice.auth, { name: 'ccpp.csv', content: ccpp }, { name: 'Power plant', category: 'energy' });
    expect(res.statusCode, res.body).toBe(201);
    ccppId = res.json().detail.response.id;
  });
  afterAll(() => t.close());

  it('registers a CSV: Parquet, schema and statistics', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/dataset/${ccppId}/false`, headers: alice.auth });
    const d = res.json().detail.response;
    expect(d.row_count).toBe(9568);
    expect(d.column_count).toBe(5);
    expect(d.encoding).toBe('utf-8');
    expect(d.delimiter).toBe(',');
    expect(d.columns.map((c: { name: string }) => c.name)).toEqual(['AT', 'V', 'AP', 'RH', 'EP']);
    const at = d.columns[0];
    expect(at.type).toBe('float');
    expect(at.count).toBe(9568);
    expect(at.missing).toBe(0);
    // Hand-checked against pandas: ccpp.AT.mean() = 19.6512311872, std = 7.4524732296
    expect(at.mean).toBeCloseTo(19.6512311872, 6);
    expect(at.std).toBeCloseTo(7.4524732296, 6);
    expect(at.min).toBe(1.81);
    expect(at.max).toBe(37.11);
    // distinct values counted exactly on a table this size (pandas nunique; DuckDB's estimate is off by up to ~25 %)
    expect(d.columns.map((c: { unique: number; unique_exact: boolean }) => [c.unique, c.unique_exact])).toEqual([2773, 634, 2517, 4546, 4836].map((n) => [n, true]));
    expect(fs.existsSync(path.join(t.dataDir, 'files', 'org'))).toBe(true);
  });

  it('pages the rows of the preview', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/dataset/upload/${ccppId}?page=2&page_size=3`, headers: alice.auth });
    const p = res.json().detail.response;
    expect(p.total).toBe(9568);
    expect(p.columns).toEqual(['AT', 'V', 'AP', 'RH', 'EP']);
    const lines = ccpp.toString().trim().split('\n');
    expect(p.rows).toEqual(lines.slice(4, 7).map((l) => l.split(',').map(Number)));
  });

  it('shows 64-bit integers beyond 2^53 with their exact digits', async () => {
    const csv = 'serial,n\n9007199254740993,1\n-9223372036854775807,2\n12,3\n';
    const carol = await registerAndLogin(t.app, 'carol', 'Org C');
    const up = await upload(t.app, carol.auth, { name: 'serials.csv', content: Buffer.from(csv) }, { name: 'Serials' });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().detail.response.id;
    const res = await t.app.inject({ method: 'GET', url: `/api/dataset/upload/${id}?page=1&page_size=10`, headers: carol.auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().detail.response.rows).toEqual([
      ['9007199254740993', 1],
      ['-9223372036854775807', 2],
      [12, 3],
    ]);
  });

  it('lists with search, filters and paging', async () => {
    await upload(t.app, alice.auth, { name: 'b.csv', content: 'x,y\n1,2\n' }, { name: 'Second set', data_type: 'inference_data' });
    const all = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/?page=1&page_size=1', headers: alice.auth })).json().detail.response;
    expect(all.total).toBe(2);
    expect(all.items).toHaveLength(1);
    const found = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/?query=POWER&page=1&page_size=20', headers: alice.auth })).json().detail.response;
    expect(found.items.map((d: { name: string }) => d.name)).toEqual(['Power plant']);
    const inf = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/?data_type=inference_data', headers: alice.auth })).json().detail.response;
    expect(inf.items.map((d: { name: string }) => d.name)).toEqual(['Second set']);
    const bad = await t.app.inject({ method: 'GET', url: '/api/datasets/list/?page=0', headers: alice.auth });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toContain('page');
  });

  it('edits, downloads the original file and a list of paths', async () => {
    const put = await t.app.inject({ method: 'PUT', url: `/api/dataset/${ccppId}`, headers: alice.auth, payload: { comment: 'Combined cycle', category: 'plant' } });
    expect(put.statusCode).toBe(200);
    expect(put.json().detail.response.comment).toBe('Combined cycle');
    const dl = await t.app.inject({ method: 'GET', url: `/api/dataset/download/${ccppId}`, headers: alice.auth });
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(ccpp)).toBe(true);
    const one = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: alice.auth, payload: { paths: [`datasets/${ccppId}/original.csv`] } });
    expect(one.rawPayload.equals(ccpp)).toBe(true);
    const zip = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: alice.auth, payload: { paths: [`datasets/${ccppId}/original.csv`, `datasets/${ccppId}/data.parquet`] } });
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const escape = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: alice.auth, payload: { paths: ['../../secret.key'] } });
    expect(escape.statusCode).toBe(400);
  });

  it("keeps one organisation's datasets invisible to another", async () => {
    for (const [method, url] of [
      ['GET', `/api/dataset/${ccppId}/false`],
      ['GET', `/api/dataset/upload/${ccppId}`],
      ['GET', `/api/dataset/download/${ccppId}`],
      ['DELETE', `/api/dataset/delete/${ccppId}`],
      ['POST', `/api/statistics/${ccppId}`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bob.auth });
      expect(res.statusCode, url).toBe(404);
    }
    const put = await t.app.inject({ method: 'PUT', url: `/api/dataset/${ccppId}`, headers: bob.auth, payload: { name: 'stolen' } });
    expect(put.statusCode).toBe(404);
    const files = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: bob.auth, payload: { paths: [`datasets/${ccppId}/original.csv`] } });
    expect(files.statusCode).toBe(404);
    const list = (await t.app.inject({ method: 'GET', url: '/api/datasets/list/', headers: bob.auth })).json().detail.response;
    expect(list.total).toBe(0);
    const mine = (await t.app.inject({ method: 'GET', url: `/api/dataset/${ccppId}/true`, headers: alice.auth })).json().detail.response;
    expect(mine.name).toBe('Power plant');
  });

  it('reads UTF-8 with BOM, Shift_JIS, semicolons, tabs and quoted fields', async () => {
    const jp = '品番,温度,備考\nA-1,20.5,"良品, 検査済"\nB-2,21.0,"改行\nあり"\n';
    const cases = [
      { name: 'bom.csv', content: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jp)]), encoding: 'utf-8-sig', delimiter: ',' },
      { name: 'sjis.csv', content: iconv.encode(jp, 'cp932'), encoding: 'cp932', delimiter: ',' },
      { name: 'semi.csv', content: Buffer.from('品番;温度;備考\nA-1;20.5;"良品, 検査済"\nB-2;21.0;"改行\nあり"\n'), encoding: 'utf-8', delimiter: ';' },
      { name: 'tab.tsv', content: Buffer.from('品番\t温度\t備考\nA-1\t20.5\t"良品, 検査済"\nB-2\t21.0\t"改行\nあり"\n'), encoding: 'utf-8', delimiter: '\t' },
    ];
    for (const c of cases) {
      const res = await upload(t.app, alice.auth, c);
      expect(res.statusCode, `${c.name}: ${res.body}`).toBe(201);
      const d = res.json().detail.response;
      expect([d.encoding, d.delimiter], c.name).toEqual([c.encoding, c.delimiter]);
      const rows = (await t.app.inject({ method: 'GET', url: `/api/dataset/upload/${d.id}`, headers: alice.auth })).json().detail.response;
      expect(rows.columns, c.name).toEqual(['品番', '温度', '備考']);
      expect(rows.rows, c.name).toEqual([
        ['A-1', 20.5, '良品, 検査済'],
        ['B-2', 21, '改行\nあり'],
      ]);
    }
  });

  it('registers a time series with its datetime column, and refuses a column that is not a date', async () => {
    const csv = 'timestamp,value\n2024-01-01 00:00:00,1.5\n2024-01-01 00:05:00,2.5\n';
    const ok = await upload(t.app, alice.auth, { name: 'ts.csv', content: csv }, { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'timestamp' });
    expect(ok.statusCode, ok.body).toBe(201);
    const d = (await t.app.inject({ method: 'GET', url: `/api/dataset/${ok.json().detail.response.id}/true`, headers: alice.auth })).json().detail.response;
    expect(d.datetime_column).toBe('timestamp');
    expect(d.columns[0].type).toBe('datetime');
    const missing = await upload(t.app, alice.auth, { name: 'ts.csv', content: csv }, { training_type: 'time_series_anomaly_detection_unsupervised' });
    expect(missing.statusCode).toBe(422);
    const wrong = await upload(t.app, alice.auth, { name: 'ts.csv', content: 'when,value\nyesterday,1\n2024-01-01,2\n' }, { datetime_column: 'when' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail[0].msg).toContain('when');
  });

  describe('bad input gets a clear 4xx and leaves nothing behind', () => {
    const wide = Array.from({ length: 20000 }, (_, i) => `c${i}`).join(',') + '\n' + Array.from({ length: 20000 }, () => '1').join(',') + '\n';
    const cases: [string, { name: string; content: Buffer | string }, number, RegExp][] = [
      ['ragged rows', { name: 'r.csv', content: 'a,b,c\n1,2,3\n4,5\n' }, 422, /Row 3 has 2 fields but the header has 3/],
      ['binary named .csv', { name: 'bin.csv', content: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 1, 2, 3, 0, 0xff, 0xfe]) }, 422, /binary/],
      ['an empty file', { name: 'empty.csv', content: '' }, 422, /empty/],
      ['whitespace only', { name: 'ws.csv', content: '\n\n  \n' }, 422, /empty/],
      ['a header only', { name: 'h.csv', content: 'a,b,c\n' }, 422, /no data rows/],
      ['20,000 columns', { name: 'wide.csv', content: wide }, 422, /20000 columns/],
      ['a 1.5 MB single line', { name: 'line.csv', content: 'x'.repeat(1_500_000) }, 422, /longer than/],
      ['an oversized file', { name: 'big.csv', content: 'a,b\n' + '1,2\n'.repeat(600_000) }, 413, /less than 2 MB/],
      ['not a CSV extension', { name: 'photo.png', content: 'a,b\n1,2\n' }, 422, /CSV/],
    ];
    it.each(cases)('%s', async (_label, file, status, pattern) => {
      const before = await t.app.ctx.db.selectFrom('datasets').select('id').execute();
      const filesBefore = filesUnder(path.join(t.dataDir, 'files'));
      const res = await upload(t.app, alice.auth, file);
      expect(res.statusCode, res.body).toBe(status);
      const msg = JSON.stringify(res.json().detail);
      expect(msg).toMatch(pattern);
      const after = await t.app.ctx.db.selectFrom('datasets').select('id').execute();
      expect(after.length).toBe(before.length);
      expect(filesUnder(path.join(t.dataDir, 'files'))).toEqual(filesBefore);
      expect(filesUnder(path.join(t.dataDir, 'tmp')).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
    });

    it('says it in Japanese for a Japanese user', async () => {
      const res = await upload(t.app, alice.auth, { name: 'h.csv', content: 'a,b\n' }, {}, { 'accept-language': 'ja' });
      expect(res.json().detail[0].msg).toBe('ファイルにはヘッダーのみがあり、データ行がありません。');
      const big = await upload(t.app, alice.auth, { name: 'big.csv', content: 'a,b\n' + '1,2\n'.repeat(600_000) }, {}, { 'accept-language': 'ja' });
      expect(big.json().detail.response).toBe('ファイルサイズは2 MB未満にしてください。');
    });

    it('answers an unknown dataset id with 404 and a missing name with 422', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/dataset/does-not-exist/false', headers: alice.auth });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail.response).toBe('The dataset does not exist.');
      const noName = await upload(t.app, alice.auth, { name: 'x.csv', content: 'a\n1\n' }, { name: '' });
      expect(noName.statusCode).toBe(422);
      expect(noName.json().detail[0].loc).toContain('name');
    });
  });

  it('deletes a dataset with its files', async () => {
    const res = await upload(t.app, alice.auth, { name: 'del.csv', content: 'a\n1\n' });
    const id = res.json().detail.response.id;
    const del = await t.app.inject({ method: 'DELETE', url: `/api/dataset/delete/${id}`, headers: alice.auth });
    expect(del.statusCode).toBe(200);
    expect(filesUnder(path.join(t.dataDir, 'files')).some((f) => f.includes(id))).toBe(false);
    const again = await t.app.inject({ method: 'GET', url: `/api/dataset/${id}/true`, headers: alice.auth });
    expect(again.statusCode).toBe(404);
  });
});

describe('a 50 MB single line under the default size limit', () => {
  it('is refused as not a CSV, and nothing stays behind', async () => {
    const t = await makeTestApp('sqlite', { startJobs: false });
    try {
      const { auth } = await registerAndLogin(t.app, 'line');
      const res = await upload(t.app, auth, { name: 'line.csv', content: Buffer.alloc(50 * 1024 * 1024, 'x') });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].msg).toBe('A line of the file is longer than 1 MB; is it really a CSV file?');
      expect(filesUnder(path.join(t.dataDir, 'files'))).toEqual([]);
      expect(filesUnder(path.join(t.dataDir, 'tmp')).filter((f) => !f.startsWith('duckdb'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
