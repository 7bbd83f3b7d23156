import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binIndexOf, ColumnCache, histogramOfSorted, quantileOfSorted, Sketch, type SketchCaches, sketchCaches, type SketchManifest } from '../src/features/datasets/sketch.js';
import { loadConfig } from '../src/config.js';
import { addToCells, cellCounts, cellsOf } from '../src/features/visualization/figures.js';
import { unpackColumn } from '../src/features/visualization/packed.js';
import { makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

/** Issue 17: answers from the exploration sketch equal the exact answers of the scans over the Parquet file. */

describe('column cache', () => {
  const col = (n: number, v = 0) => new Float64Array(n).fill(v);
  it('stays within its byte bound, dropping the least recently used column', async () => {
    const cache = new ColumnCache(3 * 80);
    await cache.get('d1:b:c0', async () => col(10, 1));
    await cache.get('d1:b:c1', async () => col(10, 2));
    await cache.get('d1:b:c2', async () => col(10, 3));
    expect(cache.bytes).toBe(240);
    await cache.get('d1:b:c0', async () => col(10, 9)); // a hit: c0 becomes the most recent, not reloaded
    await cache.get('d2:b:c0', async () => col(10, 4));
    expect(cache.bytes).toBeLessThanOrEqual(240);
    expect(cache.has('d1:b:c1')).toBe(false);
    expect(cache.has('d1:b:c0') && cache.has('d1:b:c2') && cache.has('d2:b:c0')).toBe(true);
    expect((await cache.get('d1:b:c0', async () => col(10, 9)))[0]).toBe(1);
    // A column larger than the whole bound is answered but never kept.
    expect((await cache.get('d3:b:big', async () => col(100, 5))).length).toBe(100);
    expect(cache.has('d3:b:big')).toBe(false);
    expect(cache.bytes).toBeLessThanOrEqual(240);
  });

  it('drops a deleted dataset, and the other builds of a replaced sketch', async () => {
    const cache = new ColumnCache(1000);
    await cache.get('d1:old:c0', async () => col(4));
    await cache.get('d1:new:c0', async () => col(4));
    await cache.get('d2:x:c0', async () => col(4));
    cache.invalidate('d1', 'new');
    expect([cache.has('d1:old:c0'), cache.has('d1:new:c0'), cache.has('d2:x:c0')]).toEqual([false, true, true]);
    cache.invalidate('d1');
    expect([cache.has('d1:new:c0'), cache.has('d2:x:c0')]).toEqual([false, true]);
    expect(cache.bytes).toBe(32);
  });
});

describe('the sketch settings', () => {
  it('come from the environment, each with its default, and bound the caches built from them', () => {
    expect(loadConfig({}).sketch).toEqual({ columnCacheMb: 512, binCacheMb: 128, warmMb: 256 });
    const set = loadConfig({ MITATE_COLUMN_CACHE_MB: '7', MITATE_BIN_CACHE_MB: '3', MITATE_SKETCH_WARM_MB: '0' }).sketch;
    expect(set).toEqual({ columnCacheMb: 7, binCacheMb: 3, warmMb: 0 });
    const c = sketchCaches(set);
    expect([c.columns.limitBytes, c.bins.limitBytes, c.warmBytes]).toEqual([7 * 2 ** 20, 3 * 2 ** 20, 0]);
    expect([loadConfig({}).exactUniqueRows, loadConfig({ MITATE_EXACT_UNIQUE_ROWS: '10' }).exactUniqueRows]).toEqual([1_000_000, 10]);
  });
});

describe('coloured binned scatter cells', () => {
  it('equal, bit for bit, the row-by-row rule, the colour streamed from its file in chunks or read from memory', async () => {
    // 300,001 rows: the colour's file (2.4 MB) is read in three chunks, the last one short.
    const n = 300_001;
    const bins = 37;
    let seed = 5;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const x = Float64Array.from({ length: n }, (_, i) => (i % 11 === 0 ? Math.round(rnd() * bins) : rnd() * 1e3)); // values on cell edges
    const y = Float64Array.from({ length: n }, () => Math.round(rnd() * 1e6) / 1e3 - 250);
    const c = Float64Array.from({ length: n }, () => Math.round(rnd() * 1e5) / 7);
    const range = (v: Float64Array): [number, number] => [v.reduce((a, b) => Math.min(a, b)), v.reduce((a, b) => Math.max(a, b))];
    const [[xl, xh], [yl, yh]] = [range(x), range(y)];
    const [wx, wy] = [(xh - xl) / bins, (yh - yl) / bins];
    // The rule as the pass over whole rows computed it: each row's cells, the colour summed in row order.
    const counts = new Map<number, number>();
    const sums = new Map<number, number>();
    for (let r = 0; r < n; r++) {
      const k = Math.min(Math.floor((x[r] - xl) / wx), bins - 1) * bins + Math.min(Math.floor((y[r] - yl) / wy), bins - 1);
      counts.set(k, (counts.get(k) ?? 0) + 1);
      sums.set(k, (sums.get(k) ?? 0) + c[r]);
    }
    const want = [...counts.keys()].sort((a, b) => a - b).map((k) => [Math.floor(k / bins), k % bins, counts.get(k)!, sums.get(k)! / counts.get(k)!]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-cells-'));
    try {
      fs.writeFileSync(path.join(dir, 'c0.values.f64'), new Uint8Array(c.buffer));
      const manifest = { version: 1, build_id: 'b1', row_count: n, columns: [{ name: 'c', file: 'c0', count: n, complete: true }], pearson: null, spearman: null, sample_rows: 0 } as SketchManifest;
      const caches = sketchCaches({ columnCacheMb: 512, binCacheMb: 128, warmMb: 0 });
      const { columns: columnCache } = caches;
      const sketch = new Sketch('cells-test', dir, manifest, caches);
      const [ix, iy] = [binIndexOf(x, xl, wx, bins), binIndexOf(y, yl, wy, bins)];
      const coloured = async () => {
        const s = new Float64Array(bins * bins);
        let chunks = 0;
        expect(await sketch.eachValue('c', (chunk, first) => (chunks++, addToCells(s, ix, iy, chunk, first, bins)))).toBe(true);
        return { cells: cellsOf(cellCounts(ix, iy, bins), s, bins), chunks };
      };
      const streamed = await coloured();
      expect(streamed.chunks).toBe(3);
      expect(streamed.cells).toEqual(want);
      // A column's bins, streamed in the same chunks, are those of the whole column in one piece.
      const [cl, ch] = range(c);
      expect(await sketch.binIndex('c', cl, (ch - cl) / bins, bins)).toEqual(binIndexOf(c, cl, (ch - cl) / bins, bins));
      expect(await sketch.values('c')).not.toBeNull(); // now in the column cache: one chunk, the same answer
      const kept = await coloured();
      expect(kept.chunks).toBe(1);
      expect(kept.cells).toEqual(want);
      expect(cellsOf(cellCounts(ix, iy, bins), null, bins)).toEqual(want.map(([i, j, k]) => [i, j, k, null]));
      // A file of another length than the sketch's rows (replaced meanwhile) is not read: the scan answers.
      columnCache.invalidate('cells-test');
      fs.writeFileSync(path.join(dir, 'c0.values.f64'), new Uint8Array(c.buffer, 0, 8 * (n - 1)));
      expect(await sketch.eachValue('c', () => {})).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});

describe('sorted-value histograms and quantiles', () => {
  it('count exactly as the rule [e_i, e_i+1) with the last bin closed, edge values included', () => {
    let seed = 5;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const xs = Array.from({ length: 5000 }, (_, i) => (i % 10 === 0 ? Math.round(rnd() * 20) / 2 : rnd() * 10));
    xs.push(0, 10);
    const s = Float64Array.from(xs).sort();
    for (const bins of [1, 3, 7, 20, 64]) {
      const { edges, counts } = histogramOfSorted(s, bins);
      const brute = new Array(bins).fill(0);
      for (const x of s) {
        let b = bins - 1;
        for (let i = 0; i < bins - 1; i++) if (x < edges[i + 1]) { b = i; break; }
        brute[b]++;
      }
      expect(counts).toEqual(brute);
    }
    expect(histogramOfSorted(Float64Array.from([4, 4, 4]), 5).counts).toEqual([3, 0, 0, 0, 0]);
    expect(quantileOfSorted(Float64Array.from([1, 2, 3, 10]), 0.25)).toBe(1.75);
  });
});

describe('exploration with and without the sketch', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let withSketch: string;
  let exact: string;
  // This app's sketch caches (its own: another app in the process has others).
  let columnCache: SketchCaches['columns'];
  let binCache: SketchCaches['bins'];
  const sketchDir = async (id: string) => {
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', id, 'sketch');
  };
  const waitStatistics = async (id: string) => {
    const r = (await t.app.inject({ method: 'POST', url: `/api/statistics/result/${id}`, headers: alice.auth })).json().detail.response;
    await t.app.ctx.jobs.waitFor(r.job_id, 600_000);
  };

  beforeAll(async () => {
    t = await makeTestApp('sqlite');
    alice = await registerAndLogin(t.app, 'sketch');
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const lines = ['x,y,z,gap,g'];
    for (let i = 0; i < 3000; i++) {
      const x = i % 7 === 0 ? Math.round(rnd() * 8) : Math.round(rnd() * 1e6) / 1e5; // ties and values on bin edges
      const y = Math.round((x * 0.7 + rnd() * 3) * 1e4) / 1e4;
      lines.push(`${x},${y},${Math.floor(rnd() * 9)},${i % 13 === 0 ? '' : Math.round(rnd() * 1e3) / 10},${['a', 'b', 'c'][i % 3]}`);
    }
    const csv = lines.join('\n') + '\n';
    withSketch = (await upload(t.app, alice.auth, { name: 'a.csv', content: csv })).json().detail.response.id;
    exact = (await upload(t.app, alice.auth, { name: 'b.csv', content: csv })).json().detail.response.id;
    await waitStatistics(withSketch);
    await waitStatistics(exact);
    fs.rmSync(await sketchDir(exact), { recursive: true });
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', withSketch).executeTakeFirstOrThrow();
    ({ columns: columnCache, bins: binCache } = t.app.services.datasets.sketchOf(row)!.caches);
  }, 900_000);
  afterAll(() => t.close());

  const ask = async (kind: string, id: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: `/api/visualization/${kind}/${id}`, payload, headers: alice.auth });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().detail.response;
  };

  it('the statistics job wrote the sketch beside the Parquet file', async () => {
    const m = JSON.parse(fs.readFileSync(path.join(await sketchDir(withSketch), 'manifest.json'), 'utf8'));
    expect(m.columns.map((c: { name: string }) => c.name)).toEqual(['x', 'y', 'z', 'gap']);
    expect(m.pearson.names).toEqual(['x', 'y', 'z']);
    expect(m.sample_rows).toBe(3000);
  });

  it('the end of the statistics job reads the complete columns into memory', async () => {
    const m = JSON.parse(fs.readFileSync(path.join(await sketchDir(withSketch), 'manifest.json'), 'utf8'));
    const want = m.columns.filter((c: { complete: boolean }) => c.complete).map((c: { file: string }) => `${withSketch}:${m.build_id}:${c.file}.values`);
    expect(want).toHaveLength(3);
    // It runs in the background once the job has finished: wait for it (the suite's 30 s at most).
    const deadline = Date.now() + 30_000;
    while (!want.every((k: string) => columnCache.has(k)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(want.filter((k: string) => !columnCache.has(k))).toEqual([]);
  });

  it('histograms: the same edges and counts for any bin count', async () => {
    for (const bins of [1, 4, 10, 33, 100]) {
      const a = await ask('histogram', withSketch, { columns: ['x', 'z', 'gap', 'g'], bins });
      const b = await ask('histogram', exact, { columns: ['x', 'z', 'gap', 'g'], bins });
      expect(a).toEqual(b);
    }
  });

  it('box plots: the same quartiles, whiskers and outlier count', async () => {
    const a = await ask('boxplot', withSketch, { columns: ['x', 'y', 'gap'] });
    const b = await ask('boxplot', exact, { columns: ['x', 'y', 'gap'] });
    a.columns.forEach((c: Record<string, number>, i: number) => {
      const e = b.columns[i];
      for (const k of ['count', 'min', 'max', 'lower_whisker', 'upper_whisker', 'outlier_count', 'mean']) expect(c[k], k).toBe(e[k]);
      for (const k of ['q1', 'median', 'q3']) expect(Math.abs(c[k] - e[k]), k).toBeLessThan(1e-12 * Math.max(1, Math.abs(e[k])));
    });
  });

  it('binned scatter: the same cells and counts; colour means equal', async () => {
    const a = await ask('scatter', withSketch, { x: 'x', y: 'y', color: 'z', mode: 'bin', bins: 25 });
    const b = await ask('scatter', exact, { x: 'x', y: 'y', color: 'z', mode: 'bin', bins: 25 });
    const key = (c: number[]) => c[0] * 1000 + c[1];
    const sa = [...a.cells].sort((p: number[], q: number[]) => key(p) - key(q));
    const sb = [...b.cells].sort((p: number[], q: number[]) => key(p) - key(q));
    expect(sa.map((c: number[]) => c.slice(0, 3))).toEqual(sb.map((c: number[]) => c.slice(0, 3)));
    sa.forEach((c: number[], i: number) => expect(Math.abs(c[3] - sb[i][3])).toBeLessThan(1e-12));
    expect({ ...a, cells: null }).toEqual({ ...b, cells: null });
    // Counted over the rows in memory: each row's bins of x and y, kept per column for the next question.
    const res = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${withSketch}`, payload: { x: 'y', y: 'z', color: 'x', mode: 'bin', bins: 25 }, headers: alice.auth });
    expect(String(res.headers['server-timing'])).toMatch(/\bbin_rows;dur=/);
    const bins = [...(binCache as unknown as { entries: Map<string, Uint8Array> }).entries.keys()].filter((k) => k.startsWith(`${withSketch}:`) && k.includes('.bins:25:'));
    expect(bins).toHaveLength(3); // x, y, z
    const c = await ask('scatter', exact, { x: 'y', y: 'z', color: 'x', mode: 'bin', bins: 25 });
    const order = (cells: number[][]) => [...cells].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    expect(order(res.json().detail.response.cells)).toEqual(order(c.cells).map((cell) => cell.map((v, i) => (i === 3 ? expect.closeTo(v, 12) : v))));
  });

  it('binned scatter from the stored density grids: the same cells and counts, either way round', async () => {
    for (const [x, y] of [['x', 'y'], ['y', 'x'], ['z', 'x'], ['y', 'z']]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${withSketch}`, payload: { x, y, mode: 'bin' }, headers: alice.auth });
      expect(res.statusCode, res.body).toBe(200);
      expect(String(res.headers['server-timing'])).toMatch(/\bgrid;dur=/); // answered from the grid, not the rows
      const a = res.json().detail.response;
      const b = await ask('scatter', exact, { x, y, mode: 'bin' });
      const key = (c: number[]) => c[0] * 1000 + c[1];
      expect([...a.cells].sort((p: number[], q: number[]) => key(p) - key(q))).toEqual([...b.cells].sort((p: number[], q: number[]) => key(p) - key(q)));
      expect({ ...a, cells: null }).toEqual({ ...b, cells: null });
    }
    // Coloured by a numeric column: the grid's counts, the colour's means from one pass over its values, here
    // streamed from the sketch's file (not in the column cache), equal to the scan's to 1e-12.
    columnCache.invalidate(withSketch);
    for (const [x, y, color] of [['x', 'y', 'z'], ['z', 'x', 'y']]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${withSketch}`, payload: { x, y, color, mode: 'bin' }, headers: alice.auth });
      expect(res.statusCode, res.body).toBe(200);
      expect(String(res.headers['server-timing'])).toMatch(/\bbin_rows;dur=/);
      const a = res.json().detail.response;
      const b = await ask('scatter', exact, { x, y, color, mode: 'bin' });
      const key = (c: number[]) => c[0] * 1000 + c[1];
      const [sa, sb] = [a, b].map((v) => [...v.cells].sort((p: number[], q: number[]) => key(p) - key(q)));
      expect(sa.map((c: number[]) => c.slice(0, 3))).toEqual(sb.map((c: number[]) => c.slice(0, 3)));
      sa.forEach((c: number[], i: number) => expect(Math.abs(c[3] - sb[i][3])).toBeLessThan(1e-12 * Math.max(1, Math.abs(sb[i][3]))));
      expect({ ...a, cells: null }).toEqual({ ...b, cells: null });
    }
    expect([...(columnCache as unknown as { entries: Map<string, unknown> }).entries.keys()].filter((k) => k.startsWith(`${withSketch}:`) && k.endsWith('.values'))).toEqual([]);
    // Another bin count, or a column not in the grids, is counted from the rows.
    const other = await t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${withSketch}`, payload: { x: 'x', y: 'y', mode: 'bin', bins: 40 }, headers: alice.auth });
    expect(String(other.headers['server-timing'])).not.toMatch(/\bgrid;/);
    const sorted = (cells: number[][]) => [...cells].sort((p, q) => p[0] * 1000 + p[1] - (q[0] * 1000 + q[1]));
    expect(sorted(other.json().detail.response.cells)).toEqual(sorted((await ask('scatter', exact, { x: 'x', y: 'y', mode: 'bin', bins: 40 })).cells));
  });

  it('Pearson to 1e-12 and Spearman on all rows', async () => {
    for (const method of ['pearson', 'spearman']) {
      const a = await ask('correlation', withSketch, { columns: ['x', 'y', 'z'], method });
      const b = await ask('correlation', exact, { columns: ['x', 'y', 'z'], method });
      expect(a.sample).toBe(false);
      expect(a.sample_rows).toBe(3000);
      a.matrix.forEach((r: number[], i: number) => r.forEach((v, j) => expect(Math.abs(v - b.matrix[i][j])).toBeLessThan(1e-12)));
    }
  });

  it('sampled scatter: whole rows of the data, flagged as a sample', async () => {
    const a = await ask('scatter', withSketch, { x: 'x', y: 'y', color: 'g', max_points: 500 });
    expect(a).toMatchObject({ sample: true, sample_method: 'stratified_rows', returned: 500, total: 3000 });
    // Without the sketch the sample is drawn for the question, and says so.
    expect(await ask('scatter', exact, { x: 'x', y: 'y', max_points: 500 })).toMatchObject({ sample: true, sample_method: 'random', returned: 500 });
    const b = await ask('scatter', exact, { x: 'x', y: 'y', color: 'g', max_points: 3000 });
    const rows = new Set(b.points.map((p: unknown[]) => JSON.stringify(p)));
    for (const p of a.points) expect(rows.has(JSON.stringify(p))).toBe(true);
    expect(new Set(a.points.map((p: unknown[]) => JSON.stringify(p))).size).toBeGreaterThan(450);
    // From the sample's columns held in memory (a numeric colour or none): the very rows the query over the
    // sample's file gives (a categorical colour is answered by that query), also where gap is missing.
    for (const [x, y] of [['x', 'y'], ['gap', 'x']]) {
      const viaQuery = await ask('scatter', withSketch, { x, y, color: 'g', max_points: 500 });
      const plain = await ask('scatter', withSketch, { x, y, max_points: 500 });
      const coloured = await ask('scatter', withSketch, { x, y, color: 'gap', max_points: 500, format: 'packed' });
      expect(plain.points).toEqual(viaQuery.points.map((p: unknown[]) => p.slice(0, 2)));
      expect({ ...plain, points: null }).toEqual({ ...viaQuery, points: null, color: null, color_kind: null });
      expect(Array.from(unpackColumn(coloured.packed_points.x))).toEqual(plain.points.map((p: number[]) => p[0]));
      // gap is missing in some rows of x, y (NaN: doubles); none where gap is an axis (tenths from 0 to 100:
      // scaled integers in two bytes).
      expect(coloured.packed_points.color.dtype).toBe(x === 'gap' ? 'u16' : 'f64');
    }
    expect(columnCache.has(`${withSketch}:${JSON.parse(fs.readFileSync(path.join(await sketchDir(withSketch), 'manifest.json'), 'utf8')).build_id}:sample:x`)).toBe(true);
  });

  it('a rebuilt sketch replaces the cached columns; a deleted dataset leaves none', async () => {
    await ask('scatter', withSketch, { x: 'x', y: 'y', mode: 'bin', bins: 10 });
    const sampled = { x: 'x', y: 'y', max_points: 100, format: 'packed' };
    const scatter = (etag?: string) => t.app.inject({ method: 'POST', url: `/api/visualization/scatter/${withSketch}`, payload: sampled, headers: { ...alice.auth, ...(etag ? { 'if-none-match': etag } : {}) } });
    const tagBefore = String((await scatter()).headers.etag);
    expect((await scatter(tagBefore)).statusCode).toBe(304);
    const before = JSON.parse(fs.readFileSync(path.join(await sketchDir(withSketch), 'manifest.json'), 'utf8')).build_id;
    const keys = () => [...(columnCache as unknown as { entries: Map<string, unknown> }).entries.keys()].filter((k) => k.startsWith(`${withSketch}:`));
    expect(keys().some((k) => k.includes(before))).toBe(true);
    const again = await t.app.inject({ method: 'POST', url: `/api/statistics/${withSketch}`, headers: alice.auth });
    await t.app.ctx.jobs.waitFor(again.json().detail.response.job_id, 600_000);
    const after = JSON.parse(fs.readFileSync(path.join(await sketchDir(withSketch), 'manifest.json'), 'utf8')).build_id;
    expect(after).not.toBe(before);
    // Another version of the dataset's answers: another tag, and the copy held from before is not confirmed.
    const rebuilt = await scatter(tagBefore);
    expect(rebuilt.statusCode).toBe(200);
    expect(rebuilt.headers.etag).not.toBe(tagBefore);
    expect((await scatter(String(rebuilt.headers.etag))).statusCode).toBe(304);
    await ask('scatter', withSketch, { x: 'x', y: 'y', mode: 'bin', bins: 11 });
    expect(keys().length).toBeGreaterThan(0);
    expect(keys().every((k) => k.includes(after))).toBe(true);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/dataset/delete/${withSketch}`, headers: alice.auth });
    expect(del.statusCode).toBe(200);
    expect(keys()).toEqual([]);
    const gone = await t.app.inject({ method: 'POST', url: `/api/visualization/histogram/${withSketch}`, payload: { columns: ['y'], bins: 4 }, headers: alice.auth });
    expect(gone.statusCode).toBe(404);
  });
});
