import type { components } from '../../api/schema';

/**
 * The reader of packed scatter answers (the server writes them: server/src/features/visualization/packed.ts):
 * columns of numbers as little-endian base64, `i32` integers divided by their power-of-ten `scale`, or `f64`
 * doubles (NaN = missing). Both give back the very doubles the server had, as the JSON arrays would.
 */
type Schemas = components['schemas'];
export type PackedColumn = Schemas['PackedColumn'];
type ScatterView = Schemas['ScatterView'];

function bytesOf(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function unpackColumn(p: PackedColumn): Float64Array {
  const bytes = bytesOf(p.data);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (p.dtype === 'i32') {
    const scale = p.scale ?? 1;
    const out = new Float64Array(bytes.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true) / scale;
    return out;
  }
  const out = new Float64Array(bytes.byteLength / 8);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

type Point = (number | string | null)[];
type Cell = [number, number, number, number | null];

/**
 * A packed answer as the arrays the chart draws: `points` ([x, y] or [x, y, colour]) and `cells`
 * ([i, j, count, mean colour], x's cell major), the same values the server's `format: arrays` sends.
 */
export function unpackScatter<T extends ScatterView>(r: T): Omit<T, 'packed_points' | 'packed_cells' | 'cells'> & { points?: Point[]; cells?: Cell[] } {
  const { packed_points: pp, packed_cells: pc, cells: _cells, ...rest } = r;
  const out: Omit<T, 'packed_points' | 'packed_cells' | 'cells'> & { points?: Point[]; cells?: Cell[] } = rest;
  if (_cells) out.cells = _cells as Cell[];
  if (pp) {
    const xs = unpackColumn(pp.x);
    const ys = unpackColumn(pp.y);
    const cs = pp.color ? unpackColumn(pp.color) : null;
    const cats = pp.color_categories;
    const points: Point[] = new Array(xs.length);
    for (let i = 0; i < xs.length; i++) {
      if (!cs) points[i] = [xs[i], ys[i]];
      else if (cats) points[i] = [xs[i], ys[i], cs[i] < 0 ? null : cats[cs[i]]];
      else points[i] = [xs[i], ys[i], Number.isNaN(cs[i]) ? null : cs[i]];
    }
    out.points = points;
  }
  if (pc && r.bins) {
    const ny = r.bins.ny;
    const counts = unpackColumn(pc.counts);
    const means = pc.means ? unpackColumn(pc.means) : null;
    const cells: Cell[] = [];
    for (let k = 0; k < counts.length; k++) {
      if (counts[k] > 0) cells.push([Math.floor(k / ny), k % ny, counts[k], means && !Number.isNaN(means[k]) ? means[k] : null]);
    }
    out.cells = cells;
  }
  return out;
}
