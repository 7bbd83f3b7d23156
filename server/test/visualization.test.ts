import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { acceptedEncoding, AnswerCache, answerKey, answerOf, holdsAnswer } from '../src/features/visualization/answer-cache.js';
import { packColumn, unpackColumn } from '../src/features/visualization/packed.js';
import { lttb } from '../src/features/visualization/figures.js';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

/** Exploration queries in DuckDB, checked against numpy / pandas figures of the same files. */
describe.each(DATABASES)('visualization on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let ccpp: string;
  let skab: string;
  let small: string;

  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false });
    alice = await registerAndLogin(t.app, 'vis');
    ccpp = (await upload(t.app, alice.auth, { name: 'ccpp.csv', content: fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv')) })).json().detail.response.id;
    const s = await upload(t.app, alice.auth, { name: 'valve1.csv', content: fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv')) }, { datetime_column: 'datetime' });
    expect(s.statusCode).toBe(201);
    skab = s.json().detail.response.id;
    small = (await upload(t.app, alice.auth, { name: 'small.csv', content: 'g,v\na,1\nb,2\na,3\nc,\na,10\n' })).json().detail.response.id;
  });
  afterAll(() => t.close());
  // The answers this app keeps (each app instance its own).
  const answers = () => t.app.services.visualization.answers;

  const post = async (url: string, payload: unknown, auth = alice.auth) => t.app.inject({ method: 'POST', url, payload: payload as object, headers: auth });
  const body = async (url: string, payload: unknown) => {
    const res = await post(url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().detail.response;
  };

  it('histograms agree with numpy and count categories', async () => {
    const r = await body(`/api/visualization/histogram/${ccpp}`, { columns: ['AT'], bins: 10 });
    // numpy.histogram(AT, 10) on the same file
    expect(r.columns[0].counts).toEqual([120, 703, 1173, 1391, 1078, 1353, 1721, 1311, 652, 66]);
    expect(r.columns[0].edges).toHaveLength(11);
    const c = await body(`/api/visualization/histogram/${small}`, { columns: ['g', 'v'], bins: 3 });
    expect(c.columns[0]).toMatchObject({ kind: 'categorical', values: [{ value: 'a', count: 3 }, { value: 'b', count: 1 }, { value: 'c', count: 1 }], missing: 0 });
    // v = 1, 2, 3, 10 over [1, 10] in 3 bins of width 3: [1,4) [4,7) [7,10]
    expect(c.columns[1]).toMatchObject({ kind: 'numeric', counts: [3, 0, 1], missing: 1, count: 4 });
  });

  it('box plots give pandas quartiles and Tukey whiskers', async () => {
    const r = await body(`/api/visualization/boxplot/${ccpp}`, { columns: ['AT'] });
    expect(r.columns[0].q1).toBeCloseTo(13.51, 9);
    expect(r.columns[0].median).toBeCloseTo(20.345, 9);
    expect(r.columns[0].q3).toBeCloseTo(25.72, 9);
    const s = await body(`/api/visualization/boxplot/${small}`, { columns: ['v'] });
    // v = 1, 2, 3, 10: q1 1.75, q3 4.75, upper fence 9.25 → 10 is an outlier, the whisker ends at 3
    expect(s.columns[0]).toMatchObject({ q1: 1.75, median: 2.5, q3: 4.75, upper_whisker: 3, lower_whisker: 1, outlier_count: 1, outliers: [10] });
  });

  it('correlation matches pandas (Pearson and Spearman)', async () => {
    const p = await body(`/api/visualization/correlation/${ccpp}`, { method: 'pearson' });
    expect(p.columns).toEqual(['AT', 'V', 'AP', 'RH', 'EP']);
    expect(p.matrix[0][4]).toBeCloseTo(-0.948128470417, 9);
    expect(p.matrix[2][3]).toBeCloseTo(0.099574315263, 9);
    expect(p.matrix[3][3]).toBe(1);
    const s = await body(`/api/visualization/correlation/${ccpp}`, { method: 'spearman', columns: ['AT', 'AP', 'RH', 'EP'] });
    expect(s.sample).toBe(false);
    expect(s.matrix[0][3]).toBeCloseTo(-0.9444115990524774, 9);
    expect(s.matrix[1][2]).toBeCloseTo(0.08677629228969695, 9);
    // With a missing value: pairwise complete rows, as pandas (DataFrame.corr on a,b,c below).
    const holes = (await upload(t.app, alice.auth, { name: 'holes.csv', content: 'a,b,c\n1,2,5\n2,1,3\n3,4,4\n4,3,1\n5,,2.5\n' })).json().detail.response.id;
    const hp = await body(`/api/visualization/correlation/${holes}`, { method: 'pearson' });
    expect(hp.matrix[0][1]).toBeCloseTo(0.6, 9);
    expect(hp.matrix[0][2]).toBeCloseTo(-0.7298004492, 9);
    expect(hp.matrix[1][2]).toBeCloseTo(-0.075592894602, 9);
    const hs = await body(`/api/visualization/correlation/${holes}`, { method: 'spearman' });
    expect(hs.matrix[0][2]).toBeCloseTo(-0.8, 9);
    expect(hs.matrix[1][2]).toBeCloseTo(0, 9);
  });

  it('scatter sends every point when few, a flagged sample or a binned grid when many', async () => {
    const all = await body(`/api/visualization/scatter/${ccpp}`, { x: 'AT', y: 'EP', color: 'V' });
    expect(all).toMatchObject({ total: 9568, returned: 9568, sample: false, color_kind: 'numeric' });
    expect(all.points[0]).toEqual([8.34, 480.48, 40.77]);
    const some = await body(`/api/visualization/scatter/${ccpp}`, { x: 'AT', y: 'EP', max_points: 1000 });
    expect(some).toMatchObject({ total: 9568, returned: 1000, sample: true });
    const again = await body(`/api/visualization/scatter/${ccpp}`, { x: 'AT', y: 'EP', max_points: 1000 });
    expect(again.points).toEqual(some.points); // a reproducible sample
    const bins = await body(`/api/visualization/scatter/${ccpp}`, { x: 'AT', y: 'EP', mode: 'bin', bins: 20 });
    expect(bins.cells.reduce((a: number, c: number[]) => a + c[2], 0)).toBe(9568);
    expect(bins.cells.every((c: number[]) => c[0] >= 0 && c[0] < 20 && c[1] >= 0 && c[1] < 20)).toBe(true);
    const cat = await body(`/api/visualization/scatter/${small}`, { x: 'v', y: 'v', color: 'g' });
    expect(cat).toMatchObject({ total: 4, color_kind: 'categorical' });
    expect(cat.points.map((p: unknown[]) => p[2])).toEqual(['a', 'b', 'a', 'a']);
  });

  it('a packed scatter carries exactly the numbers of the arrays: points, colours and cells', async () => {
    const url = (id: string) => `/api/visualization/scatter/${id}`;
    const asked: [string, Record<string, unknown>][] = [
      [ccpp, { x: 'AT', y: 'EP', color: 'V' }], // every point, numeric colour (decimals: packed as scaled integers)
      [ccpp, { x: 'AT', y: 'RH', max_points: 1000 }], // a sample
      [small, { x: 'v', y: 'v', color: 'g' }], // categorical colour
      [skab, { x: 'datetime', y: 'Pressure', color: 'Temperature', max_points: 500 }], // epoch ms: doubles
    ];
    for (const [id, q] of asked) {
      const a = await body(url(id), q);
      const p = await body(url(id), { ...q, format: 'packed' });
      expect(p.points).toBeUndefined();
      const { x, y, color, color_categories } = p.packed_points;
      const [xs, ys] = [unpackColumn(x), unpackColumn(y)];
      const cs = color ? unpackColumn(color) : null;
      const points = Array.from(xs, (v, i) => (cs ? [v, ys[i], color_categories ? (cs[i] < 0 ? null : color_categories[cs[i]]) : Number.isNaN(cs[i]) ? null : cs[i]] : [v, ys[i]]));
      expect(points).toEqual(a.points);
      expect({ ...p, packed_points: undefined }).toEqual({ ...a, points: undefined });
    }
    // AT: 1.81 to 37.11 in hundredths, a range of 3530: two bytes a value.
    expect((await body(url(ccpp), { x: 'AT', y: 'EP', color: 'V', format: 'packed' })).packed_points.x).toMatchObject({ dtype: 'u16', scale: 100, offset: 181 });
    for (const q of [{ x: 'AT', y: 'EP', mode: 'bin', bins: 20 }, { x: 'AT', y: 'EP', color: 'V', mode: 'bin', bins: 15 }]) {
      const a = await body(url(ccpp), q);
      const p = await body(url(ccpp), { ...q, format: 'packed' });
      const counts = unpackColumn(p.packed_cells.counts);
      const means = p.packed_cells.means ? unpackColumn(p.packed_cells.means) : null;
      const cells: unknown[][] = [];
      counts.forEach((k, c) => k > 0 && cells.push([Math.floor(c / p.bins.ny), c % p.bins.ny, k, means && !Number.isNaN(means[c]) ? means[c] : null]));
      const order = (c: number[][]) => [...c].sort((u, v) => u[0] - v[0] || u[1] - v[1]);
      expect(cells).toEqual(order(a.cells));
      expect({ ...p, packed_cells: undefined }).toEqual({ ...a, cells: undefined });
    }
  });

  it('answers a repeated question from its kept bytes, checking access every time', async () => {
    const q = { x: 'AT', y: 'V', mode: 'bin', bins: 33, format: 'packed' };
    const first = await post(`/api/visualization/scatter/${ccpp}`, q);
    const again = await post(`/api/visualization/scatter/${ccpp}`, q);
    expect(String(first.headers['server-timing'])).not.toMatch(/\bcache;/);
    expect(String(again.headers['server-timing'])).toMatch(/\bcache;dur=/);
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    const other = await registerAndLogin(t.app, 'carol', 'Third Org');
    expect((await post(`/api/visualization/scatter/${ccpp}`, q, other.auth)).statusCode).toBe(404);
    // The caller holding this answer (its tag in If-None-Match) gets 304 and no body; access is checked first.
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect([again.headers.etag, again.headers['cache-control']]).toEqual([etag, 'private, no-cache']);
    const held = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: q, headers: { ...alice.auth, 'if-none-match': `"x", ${etag}` } });
    expect([held.statusCode, held.body, held.headers.etag]).toEqual([304, '', etag]);
    expect((await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: q, headers: { ...other.auth, 'if-none-match': etag } })).statusCode).toBe(404);
    // A viewer of the same organisation reads (the routes change nothing): the same answer, the same tag, a 304.
    const val = await registerAndLogin(t.app, 'val', 'Val Org');
    const org = await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db.updateTable('users').set({ organisation_id: org.organisation_id, role: 'viewer' }).where('email', '=', val.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: val.email, password: STRONG_PASSWORD } });
    const viewer = { authorization: `Bearer ${login.json().detail.response.access_token}` };
    const seen = await post(`/api/visualization/scatter/${ccpp}`, q, viewer);
    expect([seen.statusCode, seen.headers.etag, seen.body]).toEqual([200, etag, first.body]);
    expect((await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: q, headers: { ...viewer, 'if-none-match': etag } })).statusCode).toBe(304);
    // Only the very same answer: another question (even one differing in its format only) has another tag, and
    // sending this tag with it gets the whole answer; so does a tag the server never gave, or `*`.
    for (const [question, tag] of [[{ ...q, bins: 34 }, etag], [{ ...q, format: 'arrays' }, etag], [q, '"nope"'], [q, '*']] as const) {
      const r = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: question, headers: { ...alice.auth, 'if-none-match': tag } });
      expect(r.statusCode).toBe(200);
      expect(r.body.length).toBeGreaterThan(0);
      if (question !== q) expect(r.headers.etag).not.toBe(etag);
    }
    // A kept answer dropped meanwhile is computed again, with the same tag: still a 304.
    answers().invalidate(ccpp);
    const recomputed = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: q, headers: { ...alice.auth, 'if-none-match': etag } });
    expect([recomputed.statusCode, String(recomputed.headers['server-timing'])]).toEqual([304, expect.stringMatching(/\bserialize;dur=/)]);
    // Another question is another answer; a deleted dataset leaves no kept answer behind.
    const keys = (id: string) => [...(answers() as unknown as { entries: Map<string, Buffer> }).entries.keys()].filter((k) => k.startsWith(`${id}|`));
    const gone = (await upload(t.app, alice.auth, { name: 'gone2.csv', content: 'a,b\n1,2\n2,3\n' })).json().detail.response.id;
    for (const kind of ['histogram', 'boxplot', 'correlation']) await body(`/api/visualization/${kind}/${gone}`, { columns: ['a', 'b'] });
    await body(`/api/visualization/scatter/${gone}`, { x: 'a', y: 'b' });
    expect(keys(gone)).toHaveLength(4);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/dataset/delete/${gone}`, headers: alice.auth })).statusCode).toBe(200);
    expect(keys(gone)).toEqual([]);
  });

  it('sends a kept answer compressed as the caller accepts, compressing it once', async () => {
    const q = { x: 'AT', y: 'EP', color: 'V', max_points: 3000, format: 'packed' };
    const ask = (encoding?: string) =>
      t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${ccpp}`, payload: q, headers: { ...alice.auth, ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) } });
    const plain = await ask();
    expect([plain.statusCode, plain.headers['content-encoding']]).toEqual([200, undefined]);
    expect(plain.body.length).toBeGreaterThan(1024);
    const first = await ask('gzip, deflate, br');
    expect([first.statusCode, first.headers['content-encoding'], first.headers.etag]).toEqual([200, 'br', plain.headers.etag]);
    expect(String(first.headers.vary)).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(first.rawPayload).toString()).toBe(plain.body);
    // the compressed copy is kept with the answer (and counted): a repeat sends the same bytes, compressing nothing
    const held = answers().bytes;
    const again = await ask('br');
    expect([again.headers['content-encoding'], again.rawPayload.equals(first.rawPayload), answers().bytes]).toEqual(['br', true, held]);
    expect(String(again.headers['server-timing'])).toMatch(/\bcache;dur=/);
    const gz = await ask('gzip, br;q=0');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(answers().bytes).toBe(held + gz.rawPayload.length);
    expect((await ask('identity')).headers['content-encoding']).toBeUndefined();
    // a small answer goes as it is, as the compression plugin leaves it
    const tiny = await t.app.inject({ method: 'POST', url: `/api/visualization/histogram/${small}`, payload: { columns: ['v'], bins: 2 }, headers: { ...alice.auth, 'accept-encoding': 'br' } });
    expect([tiny.statusCode, tiny.headers['content-encoding']]).toEqual([200, undefined]);
  });

  it('scatter matrix samples complete rows of up to 8 columns', async () => {
    const m = await body(`/api/visualization/matrix/${ccpp}`, { columns: ['AT', 'V', 'EP'], max_points: 500 });
    expect(m).toMatchObject({ columns: ['AT', 'V', 'EP'], total: 9568, returned: 500, sample: true });
    expect(m.rows[0]).toHaveLength(3);
    const tooMany = await post(`/api/visualization/matrix/${ccpp}`, { columns: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] });
    expect(tooMany.statusCode).toBe(422);
  });

  it('time series: raw rows for a short window, min/max per bucket (keeping extremes) or LTTB for a long one', async () => {
    const overview = (await t.app.inject({ method: 'GET', url: `/api/statistics/timeseries/result/${skab}?buckets=100`, headers: alice.auth })).json().detail.response;
    expect(overview).toMatchObject({ datetime_column: 'datetime', total_rows: 1147, window_rows: 1147, downsampled: true });
    expect(overview.full_start).toBe(Date.UTC(2020, 2, 9, 10, 14, 33));
    expect(overview.series).toHaveLength(4);
    const pressure = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure'], buckets: 100 });
    const raw = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure'], buckets: 5000 });
    expect(raw.downsampled).toBe(false);
    expect(raw.series[0].points).toHaveLength(1147);
    const values = raw.series[0].points.map((p: number[]) => p[1]);
    const down = pressure.series[0].points.map((p: number[]) => p[1]);
    expect(down.length).toBeLessThanOrEqual(200);
    expect(Math.max(...down)).toBe(Math.max(...values));
    expect(Math.min(...down)).toBe(Math.min(...values));
    const start = overview.full_start + 60_000;
    const zoom = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure'], start, end: start + 120_000, buckets: 1000 });
    expect(zoom.window_rows).toBe(115); // pandas: rows with start <= datetime <= start + 120 s
    expect(zoom.series[0].points[0][0]).toBe(start);
    const l = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure'], buckets: 50, method: 'lttb' });
    expect(l.series[0].points).toHaveLength(50);
    // The min/max pyramid (used for long series; forced here) gives the same extremes and row count.
    t.app.ctx.config.pyramidMinRows = 1;
    try {
      const viaPyramid = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure', 'Temperature'], buckets: 100 });
      const p = viaPyramid.series[0].points.map((x: number[]) => x[1]);
      expect(viaPyramid.window_rows).toBe(1147);
      expect(Math.max(...p)).toBe(Math.max(...values));
      expect(Math.min(...p)).toBe(Math.min(...values));
      expect(viaPyramid.series[0].points.every((x: number[], i: number, a: number[][]) => i === 0 || x[0] >= a[i - 1][0])).toBe(true);
      const zoomed = await body(`/api/statistics/timeseries/${skab}`, { columns: ['Pressure'], start, end: start + 600_000, buckets: 50 });
      const inWindow = raw.series[0].points.filter((x: number[]) => x[0] >= start && x[0] <= start + 600_000).map((x: number[]) => x[1]);
      expect(Math.max(...zoomed.series[0].points.map((x: number[]) => x[1]))).toBe(Math.max(...inWindow));
    } finally {
      t.app.ctx.config.pyramidMinRows = 500_000;
    }
    const notTs = await post(`/api/statistics/timeseries/${ccpp}`, {});
    expect(notTs.statusCode).toBe(422);
  });

  it('names a missing column, and hides another organisation’s dataset', async () => {
    const bad = await post(`/api/visualization/histogram/${ccpp}`, { columns: ['nope'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].msg).toContain('"nope"');
    const ja = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${small}`, payload: { x: 'g', y: 'v' }, headers: { ...alice.auth, 'accept-language': 'ja' } });
    expect(ja.json().detail[0].msg).toContain('数値ではありません');
    const bob = await registerAndLogin(t.app, 'bob', 'Other Org');
    expect((await post(`/api/visualization/histogram/${ccpp}`, { columns: ['AT'] }, bob.auth)).statusCode).toBe(404);
    // Answers are kept for repeated questions, but never for a dataset that is gone.
    const gone = (await upload(t.app, alice.auth, { name: 'gone.csv', content: 'v\n1\n2\n' })).json().detail.response.id;
    const first = await body(`/api/visualization/histogram/${gone}`, { columns: ['v'], bins: 2 });
    expect(await body(`/api/visualization/histogram/${gone}`, { columns: ['v'], bins: 2 })).toEqual(first);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/dataset/delete/${gone}`, headers: alice.auth })).statusCode).toBe(200);
    expect((await post(`/api/visualization/histogram/${gone}`, { columns: ['v'], bins: 2 })).statusCode).toBe(404);
  });
});

describe('packed columns', () => {
  it('are exact: scaled integers only when every value comes back, doubles otherwise', () => {
    const same = (a: ArrayLike<number>, b: ArrayLike<number>) => expect(Array.from(b).map((v, i) => Object.is(v, a[i]))).toEqual(Array.from(b, () => true));
    let seed = 3;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    // [values, dtype, scale, offset]: integers in as few bytes as their range (largest - smallest) needs.
    const thousandths = Array.from({ length: 2000 }, () => Math.round(rnd() * 1e6) / 1e3);
    const signed = Array.from({ length: 2000 }, () => Math.round((rnd() - 0.5) * 1e5) / 1e4);
    const cases: [number[], string, number | null, number | null][] = [
      [thousandths, 'u24', 1000, Math.round(Math.min(...thousandths) * 1000)],
      [signed, 'u24', 10_000, Math.round(Math.min(...signed) * 10_000)],
      [[0.5, 0.7, -0.1, 2.4], 'u8', 10, -1], // range 25
      [[-3, 252], 'u8', 1, -3], // range 255: the largest a byte holds
      [[-3, 253], 'u16', 1, -3],
      [[1.25, 600], 'u16', 100, 125],
      [[100, 100 + 2 ** 16], 'u24', 1, 100],
      [[-5, 2 ** 24 - 6], 'u24', 1, -5], // range 2^24 - 1
      [[-5, 2 ** 24 - 5], 'i32', 1, null], // range 2^24: four bytes
      [[1, 2, -3, 0, 2147483647], 'i32', 1, null],
      [[7, 7, 7], 'u8', 1, 7],
      [[0.1, 0.2, 0.3, 1e-7], 'f64', null, null], // 1e-7 needs more than a million
      [[2 ** 31, 1], 'f64', null, null], // beyond 32 bits
      [Array.from({ length: 500 }, () => rnd() * 100), 'f64', null, null], // full doubles
      [[1.5, Number.NaN, 2], 'f64', null, null], // a missing value
      [[1.7e12 + 0.5, 1], 'f64', null, null], // epoch ms
      [[], 'i32', 1, null],
    ];
    for (const [values, dtype, scale, offset] of cases) {
      const p = packColumn(values);
      expect([p.dtype, p.scale ?? null, p.offset ?? null]).toEqual([dtype, scale, offset]);
      expect(Buffer.from(p.data, 'base64').length).toBe(values.length * ({ u8: 1, u16: 2, u24: 3, i32: 4, f64: 8 } as Record<string, number>)[dtype]);
      same(values, unpackColumn(p));
    }
    // A small value before a finely scaled one is checked again at the larger scale.
    same([0.3, 0.123456], unpackColumn(packColumn([0.3, 0.123456])));
  });
});

describe('the answer cache', () => {
  it('stays within its byte bound, least recently used out, and drops a dataset or its other versions', () => {
    const c = new AnswerCache(400);
    const b = (n: number) => ({ bytes: Buffer.alloc(n, 1), etag: '', byteLength: n, encoded: {} });
    c.set('d1|v1|h|1', b(100));
    c.set('d1|v1|h|2', b(100));
    c.set('d2|v1|h|1', b(100));
    expect(c.get('d1|v1|h|1')?.bytes.length).toBe(100); // now the most recent
    c.set('d2|v1|h|2', b(100));
    c.set('d3|v1|h|1', b(100)); // over 400: d1|v1|h|2 goes
    expect([c.get('d1|v1|h|2'), c.bytes]).toEqual([undefined, 400]);
    c.set('big', b(101)); // more than a quarter of the bound: not kept
    expect(c.get('big')).toBeUndefined();
    c.set('d2|v2|h|1', b(50));
    c.invalidate('d2', 'v2');
    expect([c.get('d2|v1|h|1'), c.get('d2|v2|h|1')?.bytes.length]).toEqual([undefined, 50]);
    c.invalidate('d1');
    expect([c.get('d1|v1|h|1'), c.size, c.bytes]).toEqual([undefined, 2, 150]);
  });

  it("is each app instance's own, bounded by its setting", async () => {
    const a = await makeTestApp('sqlite', { startJobs: false, config: { exploreCacheMb: 1 } });
    const b = await makeTestApp('sqlite', { startJobs: false });
    try {
      const [ca, cb] = [a.app.services.visualization.answers, b.app.services.visualization.answers];
      expect([ca.limitBytes, cb.limitBytes]).toEqual([1024 * 1024, loadConfig().exploreCacheMb * 1024 * 1024]);
      ca.set('d1|v1|h|1', answerOf('d1|v1|h|1', Buffer.from('1')));
      expect([ca.size, cb.size]).toEqual([1, 0]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('tags an answer by its dataset version, question and bytes', () => {
    const bytes = Buffer.from('{"detail":{"response":1}}');
    const tag = (version: string, question: unknown, b = bytes) => answerOf(answerKey('d1', version, 'scatter', question), b).etag;
    expect(tag('v1', { x: 'a' })).toBe(tag('v1', { x: 'a' }));
    expect(tag('v2', { x: 'a' })).not.toBe(tag('v1', { x: 'a' })); // a rebuilt sketch: another version
    expect(tag('v1', { x: 'b' })).not.toBe(tag('v1', { x: 'a' }));
    expect(tag('v1', { x: 'a' }, Buffer.from('{"detail":{"response":2}}'))).not.toBe(tag('v1', { x: 'a' }));
    expect(answerOf('k', bytes).byteLength).toBe(bytes.length + answerOf('k', bytes).etag.length);
    const t = tag('v1', { x: 'a' });
    expect([holdsAnswer(t, t), holdsAnswer(`W/${t}`, t), holdsAnswer(`"a", ${t}`, t), holdsAnswer([`"a"`, t], t)]).toEqual([true, true, true, true]);
    expect([holdsAnswer(undefined, t), holdsAnswer('*', t), holdsAnswer('"a"', t), holdsAnswer(t.slice(1, -1), t)]).toEqual([false, false, false, false]);
  });
});

describe('the content coding of a kept answer', () => {
  it('is negotiated as the compression plugin does: brotli first, then gzip, none when refused or small', () => {
    expect(acceptedEncoding('gzip, deflate, br', 5000)).toBe('br');
    expect(acceptedEncoding('gzip', 5000)).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip;q=0.5', 5000)).toBe('gzip');
    expect(acceptedEncoding(['deflate', 'br'], 5000)).toBe('br');
    expect(acceptedEncoding('*', 5000)).toBe('br');
    expect(acceptedEncoding('*, br;q=0', 5000)).toBe('gzip');
    expect([acceptedEncoding('identity', 5000), acceptedEncoding('deflate', 5000), acceptedEncoding(undefined, 5000), acceptedEncoding('br', 1023)]).toEqual([null, null, null, null]);
  });
});

describe('lttb', () => {
  it('keeps the ends and the spike, and returns the threshold count', () => {
    const pts: [number, number][] = Array.from({ length: 1000 }, (_, i) => [i, i === 500 ? 100 : Math.sin(i / 50)]);
    const out = lttb(pts, 20);
    expect(out).toHaveLength(20);
    expect(out[0]).toEqual([0, 0]);
    expect(out[19]).toEqual(pts[999]);
    expect(out.some((p) => p[1] === 100)).toBe(true);
  });
});
