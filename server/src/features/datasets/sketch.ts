import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ByteLru } from './byte-lru.js';

/**
 * Exploration sketches of a dataset (issue 17), written beside its Parquet file by the statistics job
 * (engine/mitate_engine/sketch.py): per numeric column its sorted non-missing values and its values in row order
 * (float64 files), the Pearson covariance sums and the Spearman matrix of the complete numeric columns on all
 * rows, 100 × 100 density grids of pairs of complete numeric columns, and a seeded sample of whole rows stratified
 * over row ranges. Only the sample is a sample (and the page says so): histograms and box plots are binary
 * searches and index reads on the sorted values, binned scatter counts every row (or reads the grid that did).
 */
export const SketchColumn = z.object({ name: z.string(), file: z.string(), count: z.number(), complete: z.boolean(), mean: z.number().optional() });
export type SketchColumn = z.output<typeof SketchColumn>;
/** manifest.json as sketch.py writes it (json.dump with allow_nan=False: no number is ever null but Spearman's). */
export const SketchManifest = z.object({
  version: z.number(),
  build_id: z.string(),
  row_count: z.number(),
  columns: z.array(SketchColumn),
  pearson: z.object({ names: z.array(z.string()), cov: z.array(z.array(z.number())) }).nullable(),
  spearman: z.object({ names: z.array(z.string()), matrix: z.array(z.array(z.number().nullable())) }).nullable(),
  sample_rows: z.number(),
  /** Row ranges the sample is stratified over (absent: a uniform sample, written before the strata). */
  sample_strata: z.number().optional(),
  /** Cell counts of each pair (i < j) of `columns`, bins² little-endian uint32 per pair, pair after pair (absent: written before the grids). */
  grid: z.object({ bins: z.number(), file: z.string(), columns: z.array(z.object({ name: z.string(), lo: z.number(), hi: z.number() })) }).nullable().optional(),
});
export type SketchManifest = z.output<typeof SketchManifest>;

export const sketchDirOf = (parquet: string) => path.join(path.dirname(parquet), 'sketch');

/**
 * Least-recently-used float64 columns held in memory, bounded in bytes (MITATE_COLUMN_CACHE_MB, default 512).
 * Keys start with the dataset id and the sketch's build id, so a rebuilt sketch is never answered from the old
 * one, and deleting a dataset drops its columns at once.
 */
export class ColumnCache<T extends Float64Array | Uint8Array = Float64Array> extends ByteLru<T> {
  private loading = new Map<string, Promise<T>>();
  constructor(limitBytes: number) {
    super(limitBytes, ':');
  }

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.touch(key);
    if (hit) return hit;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const p = load().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    const value = await p;
    if (value.byteLength <= this.limitBytes && !this.has(key)) this.put(key, value);
    return value;
  }
}

/** The sketches' memory settings (config.ts: MITATE_COLUMN_CACHE_MB, MITATE_BIN_CACHE_MB, MITATE_SKETCH_WARM_MB). */
export interface SketchSettings {
  columnCacheMb: number;
  binCacheMb: number;
  warmMb: number;
}

/**
 * One app instance's memory for sketches (two apps in one process share none of it). `columns`: the row-order
 * float64 columns (MITATE_COLUMN_CACHE_MB, default 512). `bins`: each row's bin (one byte) of a complete column for
 * a binned scatter's bounds and bin count (MITATE_BIN_CACHE_MB, default 128: twelve 10 M-row columns); a coloured
 * binned scatter (mean colour per cell: a pass over the rows) then reads two bytes and one colour per row instead
 * of dividing two doubles, the bins binIndexOf's, computed once per column. `warmBytes`: how much of a new sketch
 * Sketch.warm reads ahead (MITATE_SKETCH_WARM_MB).
 */
export interface SketchCaches {
  columns: ColumnCache;
  bins: ColumnCache<Uint8Array>;
  warmBytes: number;
}

const MB = 1024 * 1024;
export const sketchCaches = (s: SketchSettings): SketchCaches => ({
  columns: new ColumnCache(s.columnCacheMb * MB),
  bins: new ColumnCache<Uint8Array>(s.binCacheMb * MB),
  warmBytes: s.warmMb * MB,
});

/**
 * Each value's bin: least(floor((v - lo) / width), bins - 1), as the stored grids and the SQL of the scan; written
 * into `out` from index `first` on (a chunk of a column), or into a new array.
 */
export function binIndexOf(values: Float64Array, lo: number, width: number, bins: number, out = new Uint8Array(values.length), first = 0): Uint8Array {
  const last = bins - 1;
  for (let r = 0; r < values.length; r++) out[first + r] = Math.min(Math.floor((values[r] - lo) / width), last);
  return out;
}

/** Bytes read at a time by Sketch.eachValue (a multiple of 8): small enough to stay in the CPU's cache. */
const CHUNK_BYTES = 1 << 20;

async function readFloat64(file: string): Promise<Float64Array> {
  const buf = await fs.promises.readFile(file);
  if (buf.byteOffset % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8);
  return new Float64Array(new Uint8Array(buf).buffer);
}

export class Sketch {
  constructor(
    readonly datasetId: string,
    readonly dir: string,
    readonly manifest: SketchManifest,
    readonly caches: SketchCaches,
  ) {}

  column(name: string): SketchColumn | undefined {
    return this.manifest.columns.find((c) => c.name === name);
  }

  private valuesKey(col: SketchColumn) {
    return `${this.datasetId}:${this.manifest.build_id}:${col.file}.values`;
  }

  private load(col: SketchColumn) {
    return this.caches.columns.get(this.valuesKey(col), () => readFloat64(path.join(this.dir, `${col.file}.values.f64`)));
  }

  /**
   * Sorted non-missing values, read in place (a histogram needs ~25 reads of 8 bytes per edge, not the whole
   * file), or null when the column has none or non-finite ones (the scan then answers). Close it after use.
   */
  sorted(name: string): SortedFile | null {
    const col = this.column(name);
    if (!col || col.count === 0) return null;
    const file = path.join(this.dir, `${col.file}.sorted.f64`);
    let f: SortedFile;
    try {
      f = new SortedFile(file);
    } catch {
      return null;
    }
    if (f.length !== col.count || !Number.isFinite(f.at(0)) || !Number.isFinite(f.at(f.length - 1))) {
      f.close();
      return null;
    }
    return f;
  }

  /** Values in row order (NaN where missing) of a complete, finite column; otherwise null. */
  async values(name: string): Promise<Float64Array | null> {
    const col = this.column(name);
    if (!col?.complete) return null;
    const v = await this.load(col);
    return v.length === this.manifest.row_count ? v : null;
  }

  /**
   * Visits the row-order values of a complete (so finite) column in order, chunk by chunk (`visit(chunk, index of
   * its first row)`): the column cache's array when it holds them, else the file read 1 MB at a time into one
   * buffer. A pass that needs the values once (a coloured binned scatter's colour) then allocates no 80 MB array,
   * whose page faults cost as much as the pass itself on 10 M rows, and evicts nothing from the cache. false when
   * the column's values are not in the sketch (possibly after visiting some chunks: discard what was summed).
   */
  async eachValue(name: string, visit: (chunk: Float64Array, first: number) => void): Promise<boolean> {
    const col = this.column(name);
    if (!col?.complete) return false;
    const kept = this.caches.columns.touch(this.valuesKey(col));
    if (kept) {
      if (kept.length !== this.manifest.row_count) return false;
      visit(kept, 0);
      return true;
    }
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(path.join(this.dir, `${col.file}.values.f64`), 'r');
    } catch {
      return false;
    }
    try {
      const total = this.manifest.row_count * 8;
      if ((await fh.stat()).size !== total) return false;
      const chunk = new Float64Array(Math.min(CHUNK_BYTES, total) / 8);
      const bytes = new Uint8Array(chunk.buffer);
      for (let at = 0; at < total; ) {
        const want = Math.min(bytes.length, total - at);
        for (let got = 0; got < want; ) {
          const { bytesRead } = await fh.read(bytes, got, want - got, at + got);
          if (bytesRead === 0) return false; // shorter than it was a moment ago: replaced meanwhile
          got += bytesRead;
        }
        visit(want === bytes.length ? chunk : chunk.subarray(0, want / 8), at / 8);
        at += want;
      }
      return true;
    } finally {
      await fh.close();
    }
  }

  /**
   * Reads the row-order values of complete columns into the column cache while they fit in what the cache has
   * free, at most MITATE_SKETCH_WARM_MB (default 256: three 10 M-row columns; 0 turns it off), in the manifest's
   * order, so reading ahead adds at most that much to the server's memory (and the grid columns' bins to the bin cache,
   * within its bound). Run once the sketch is written, so the first binned scatter about those columns is a pass
   * over memory, not a file read.
   */
  async warm(limitBytes = this.caches.warmBytes): Promise<string[]> {
    const { columns, bins } = this.caches;
    const warmed: string[] = [];
    let budget = Math.min(limitBytes, columns.limitBytes - columns.bytes);
    for (const col of this.manifest.columns) {
      const bytes = this.manifest.row_count * 8;
      if (!col.complete || bytes > budget) continue;
      if ((await this.values(col.name)) === null) continue;
      budget -= bytes;
      warmed.push(col.name);
    }
    // The bins of the grid's columns at its bounds (the page's binned scatter), while the bin cache has room: the
    // first coloured binned scatter is then one pass over bytes and one colour column.
    const g = this.manifest.grid;
    if (limitBytes > 0 && g) {
      for (const c of g.columns) {
        if (bins.bytes + this.manifest.row_count > bins.limitBytes) break;
        await this.binIndex(c.name, c.lo, c.hi > c.lo ? (c.hi - c.lo) / g.bins : 1, g.bins);
      }
    }
    return warmed;
  }

  /**
   * The bin of each row of a complete column (binIndexOf) for bins ≤ 256, kept in the bin cache; null when the
   * column's values are not in the sketch.
   */
  async binIndex(name: string, lo: number, width: number, bins: number): Promise<Uint8Array | null> {
    const col = this.column(name);
    if (!col?.complete || bins > 256 || !(width > 0)) return null;
    try {
      return await this.caches.bins.get(`${this.datasetId}:${this.manifest.build_id}:${col.file}.bins:${bins}:${lo}:${width}`, async () => {
        // From the column cache when the values are there; else streamed from the file, not kept (the bins are).
        const out = new Uint8Array(this.manifest.row_count);
        if (!(await this.eachValue(name, (chunk, first) => binIndexOf(chunk, lo, width, bins, out, first)))) throw new Error('no values');
        return out;
      });
    } catch {
      return null;
    }
  }

  /**
   * The stored density grid of x against y: counts of the bins × bins cells, x's cell major (as cellCounts), or
   * null when the pair has none or its grid was made on other bounds than `xr`, `yr` (the dataset's min, max).
   */
  grid(x: string, y: string, bins: number, xr: [number, number], yr: [number, number]): Uint32Array | null {
    const g = this.manifest.grid;
    if (!g || g.bins !== bins || x === y) return null;
    const i = g.columns.findIndex((c) => c.name === x);
    const j = g.columns.findIndex((c) => c.name === y);
    if (i < 0 || j < 0) return null;
    if (g.columns[i].lo !== xr[0] || g.columns[i].hi !== xr[1] || g.columns[j].lo !== yr[0] || g.columns[j].hi !== yr[1]) return null;
    const [a, b] = i < j ? [i, j] : [j, i];
    const k = g.columns.length;
    const pair = a * k - (a * (a + 1)) / 2 + (b - a - 1); // index of (a, b) among the pairs a < b in order
    const cells = bins * bins;
    const buf = Buffer.alloc(cells * 4);
    let fd: number;
    try {
      fd = fs.openSync(path.join(this.dir, g.file), 'r');
    } catch {
      return null;
    }
    try {
      if (fs.readSync(fd, buf, 0, buf.length, pair * buf.length) !== buf.length) return null;
    } finally {
      fs.closeSync(fd);
    }
    const stored = new Uint32Array(buf.buffer, buf.byteOffset, cells);
    if (i < j) return stored;
    const out = new Uint32Array(cells); // stored as (y, x): transposed
    for (let p = 0; p < bins; p++) for (let q = 0; q < bins; q++) out[q * bins + p] = stored[p * bins + q];
    return out;
  }

  get samplePath() {
    return path.join(this.dir, 'sample.parquet');
  }
}

/** Sorted float64 values read from their file by offset (pread), a few bytes per question. */
export class SortedFile {
  private fd: number;
  private buf = Buffer.alloc(8);
  readonly length: number;
  constructor(file: string) {
    this.fd = fs.openSync(file, 'r');
    this.length = fs.fstatSync(this.fd).size / 8;
  }
  at(i: number): number {
    fs.readSync(this.fd, this.buf, 0, 8, i * 8);
    return this.buf.readDoubleLE(0);
  }
  close() {
    fs.closeSync(this.fd);
  }
}

/** Sorted values: in memory or in their file. */
export type Sorted = Float64Array | SortedFile;
const valueAt = (a: Sorted, i: number) => (a instanceof Float64Array ? a[i] : a.at(i));

/** First index whose value is >= x (a sorted array). */
export function lowerBound(a: Sorted, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (valueAt(a, m) < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** First index whose value is > x (a sorted array). */
export function upperBound(a: Sorted, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (valueAt(a, m) <= x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/**
 * Histogram of sorted values with numpy's rule (bins [e_i, e_{i+1}), the last one closed), the same edges as the
 * scan over the Parquet file (lo + i × width): counts by binary search, exact.
 */
export function histogramOfSorted(s: Sorted, bins: number): { edges: number[]; counts: number[] } {
  const lo = valueAt(s, 0);
  const hi = valueAt(s, s.length - 1);
  const width = hi > lo ? (hi - lo) / bins : 1;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? (hi > lo ? hi : lo + 1) : lo + i * width));
  const at = Array.from({ length: bins }, (_, i) => (i === 0 ? 0 : lowerBound(s, lo + i * width)));
  const counts = at.map((a, i) => (i === bins - 1 ? s.length : at[i + 1]) - a);
  return { edges, counts };
}

/** quantile_cont (linear interpolation between the two nearest ranks, as DuckDB and pandas). */
export function quantileOfSorted(s: Sorted, q: number): number {
  const pos = (s.length - 1) * q;
  const i = Math.floor(pos);
  const j = Math.ceil(pos);
  if (i === j) return valueAt(s, i);
  const [a, b] = [valueAt(s, i), valueAt(s, j)];
  return a + (pos - i) * (b - a);
}
