import { type PackedColumn, packColumn } from './packed.js';
/** Figures of the exploration pages that need no database: downsampling, time pyramids, binned cells, packing, timing. */

/** A column of the dataset's schema_json, as the datasets area declares it. */
export type { SchemaColumn } from '../datasets/stored.js';

const NUMERIC = new Set(['integer', 'float']);
export const isNumericType = (t: string) => NUMERIC.has(t);

/** The most points a scatter plot sends to the browser (the issue: about 50,000). */
export const MAX_SCATTER_POINTS = 50_000;
/** Spearman ranks are computed on a sample above this many rows (a full sort per column would be slow). */
export const SPEARMAN_MAX_ROWS = 200_000;

export const num = (v: unknown): number | null => {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
};

/** Largest-triangle-three-buckets downsampling of (x, y) points sorted by x (Steinarsson 2013). */
export function lttb(points: [number, number][], threshold: number): [number, number][] {
  const n = points.length;
  if (threshold >= n || threshold < 3) return points.slice();
  const out: [number, number][] = [points[0]];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const avgStart = Math.floor((i + 1) * every) + 1;
    const avgEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let ax = 0;
    let ay = 0;
    for (let j = avgStart; j < avgEnd; j++) {
      ax += points[j][0];
      ay += points[j][1];
    }
    const len = Math.max(1, avgEnd - avgStart);
    ax /= len;
    ay /= len;
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    let best = -1;
    let chosen = start;
    const [px, py] = points[a];
    for (let j = start; j < end; j++) {
      const area = Math.abs((px - ax) * (points[j][1] - py) - (px - points[j][0]) * (ay - py));
      if (area > best) {
        best = area;
        chosen = j;
      }
    }
    out.push(points[chosen]);
    a = chosen;
  }
  out.push(points[n - 1]);
  return out;
}

/** Time buckets of the min/max pyramid of a long series (config.pyramidMinRows: the length from which a series gets one). */
export const PYRAMID_BUCKETS = 65_536;

export interface Pyramid {
  idx: number[];
  cnt: number[];
  tmin: (number | null)[];
  vmin: (number | null)[];
  tmax: (number | null)[];
  vmax: (number | null)[];
}

/**
 * Display buckets of width `width` over [start, end] from pyramids (one per column, same time buckets): counts
 * add up, minima and maxima are the extremes of the pyramid buckets that fall in the window. Rows in the same
 * shape as the window query: [bucket, count, (tmin, vmin, tmax, vmax) per column].
 */
export function fromPyramids(pyrs: Pyramid[], fullStart: number, wp: number, start: number, end: number, width: number, nb: number): unknown[][] {
  const out = new Map<number, (number | null)[]>();
  const p0 = pyrs[0];
  for (let k = 0; k < p0.idx.length; k++) {
    const bStart = fullStart + p0.idx[k] * wp;
    if (bStart + wp < start || bStart > end) continue;
    const j = Math.min(nb - 1, Math.max(0, Math.floor((Math.max(bStart, start) - start) / width)));
    let o = out.get(j);
    if (!o) {
      o = [j, 0, ...pyrs.flatMap(() => [null, null, null, null])];
      out.set(j, o);
    }
    o[1] = (o[1] as number) + p0.cnt[k];
    pyrs.forEach((p, ci) => {
      const at = 2 + ci * 4;
      const [tn, vn, tx, vx] = [p.tmin[k], p.vmin[k], p.tmax[k], p.vmax[k]];
      if (vn !== null && tn !== null && tn >= start && tn <= end && (o![at + 1] === null || vn < (o![at + 1] as number))) {
        o![at] = tn;
        o![at + 1] = vn;
      }
      if (vx !== null && tx !== null && tx >= start && tx <= end && (o![at + 3] === null || vx > (o![at + 3] as number))) {
        o![at + 2] = tx;
        o![at + 3] = vx;
      }
    });
  }
  return [...out.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
}

type BinCell = [number, number, number, number | null];

/** Counts of a binned scatter's cells, x's cell major (as the stored grids), from each row's bins of x and y (binIndexOf). */
export function cellCounts(ix: Uint8Array, iy: Uint8Array, bins: number): Uint32Array {
  const counts = new Uint32Array(bins * bins);
  for (let r = 0; r < ix.length; r++) counts[ix[r] * bins + iy[r]]++;
  return counts;
}

/**
 * Adds a chunk of a complete colour column (its rows from `first` on) to the colour sums of their cells. The rows'
 * order is kept, so chunk by chunk or in one piece the sums are the same doubles.
 */
export function addToCells(sums: Float64Array, ix: Uint8Array, iy: Uint8Array, chunk: Float64Array, first: number, bins: number): void {
  for (let r = 0; r < chunk.length; r++) {
    const g = first + r;
    sums[ix[g] * bins + iy[g]] += chunk[r];
  }
}

/**
 * Cells of a binned scatter, those with rows, in x's then y's order: [x's cell, y's cell, count, mean colour] from
 * the cells' counts and (a numeric colour, present on every row) the sums of the colour (else null).
 */
export function cellsOf(counts: Uint32Array, sums: Float64Array | null, bins: number): BinCell[] {
  const out: BinCell[] = [];
  for (let k = 0; k < counts.length; k++) if (counts[k] > 0) out.push([Math.floor(k / bins), k % bins, counts[k], sums ? sums[k] / counts[k] : null]);
  return out;
}

/**
 * Where a request's time went, phase by phase, for the `Server-Timing` header (the exploration benchmark writes
 * the breakdown of cold answers from it). `lap(name)` charges the time since the previous lap to `name`.
 */
export class Phases {
  private last = performance.now();
  readonly spent = new Map<string, number>();
  lap(name: string) {
    const now = performance.now();
    this.spent.set(name, (this.spent.get(name) ?? 0) + now - this.last);
    this.last = now;
  }
  header() {
    return [...this.spent].map(([k, v]) => `${k};dur=${v.toFixed(1)}`).join(', ');
  }
}

/** Sampled points as packed columns: x, y, and the colour (numbers, or indices into its categories). */
export function packedPoints(r: unknown[][], colorKind: 'numeric' | 'categorical' | null) {
  const n = r.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = Number(r[i][0]);
    y[i] = Number(r[i][1]);
  }
  let color: PackedColumn | null = null;
  let categories: string[] | null = null;
  if (colorKind === 'numeric') {
    const c = new Float64Array(n);
    for (let i = 0; i < n; i++) c[i] = num(r[i][2]) ?? NaN;
    color = packColumn(c);
  } else if (colorKind === 'categorical') {
    const at = new Map<string, number>();
    const codes = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = r[i][2];
      if (v === null || v === undefined) codes[i] = -1;
      else {
        const k = String(v);
        let j = at.get(k);
        if (j === undefined) at.set(k, (j = at.size));
        codes[i] = j;
      }
    }
    color = packColumn(codes);
    categories = [...at.keys()];
  }
  return { x: packColumn(x), y: packColumn(y), color, color_categories: categories };
}

/** Binned cells as a packed dense grid: counts of the nx × ny cells (x's cell major) and their mean colour. */
export function packedCells(cells: [number, number, number, number | null][], nx: number, ny: number, colorNumeric: boolean) {
  const counts = new Float64Array(nx * ny);
  const means = colorNumeric ? new Float64Array(nx * ny).fill(NaN) : null;
  for (const [i, j, k, m] of cells) {
    counts[i * ny + j] = k;
    if (means && m !== null) means[i * ny + j] = m;
  }
  return { counts: packColumn(counts), means: means ? packColumn(means) : null };
}
