import type { components } from '../../api/schema';

/**
 * The reader of packed scatter answers (the server writes them: server/src/features/visualization/packed.ts):
 * columns of numbers as little-endian base64: integers divided by their power-of-ten `scale` (`u8`, `u16`, `u24`:
 * unsigned in 1, 2, 3 bytes, added to `offset`; `i32`: signed in 4), or `f64` doubles (NaN = missing). Each gives
 * back the very doubles the server had, as the JSON arrays would.
 */
type Schemas = components['schemas'];
export type PackedColumn = Schemas['PackedColumn'];
type ScatterView = Schemas['ScatterView'];

const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;

function bytesOf(b64: string): Uint8Array {
  if (fromBase64) return fromBase64(b64);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const littleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function unpackColumn(p: PackedColumn): Float64Array {
  const bytes = bytesOf(p.data);
  const scale = p.scale ?? 1;
  if (p.dtype === 'u8' || p.dtype === 'u16' || p.dtype === 'u24') {
    // Integer = offset + the unsigned value (exact: below 2^31), divided as the parse of the decimal text would be.
    const offset = p.offset ?? 0;
    const w = p.dtype === 'u8' ? 1 : p.dtype === 'u16' ? 2 : 3;
    const n = bytes.byteLength / w;
    const out = new Float64Array(n);
    if (w === 1) for (let i = 0; i < n; i++) out[i] = (offset + bytes[i]) / scale;
    else if (w === 2) for (let i = 0, j = 0; i < n; i++, j += 2) out[i] = (offset + (bytes[j] | (bytes[j + 1] << 8))) / scale;
    else for (let i = 0, j = 0; i < n; i++, j += 3) out[i] = (offset + (bytes[j] | (bytes[j + 1] << 8) | (bytes[j + 2] << 16))) / scale;
    return out;
  }
  const width = p.dtype === 'i32' ? 4 : 8;
  const n = bytes.byteLength / width;
  if (littleEndianHost && bytes.byteOffset % width === 0) {
    // Read in place: the host's order is the answer's.
    if (p.dtype === 'f64') return new Float64Array(bytes.buffer, bytes.byteOffset, n);
    const ints = new Int32Array(bytes.buffer, bytes.byteOffset, n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = ints[i] / scale;
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(n);
  if (p.dtype === 'i32') {
    for (let i = 0; i < n; i++) out[i] = view.getInt32(i * 4, true) / scale;
  } else {
    for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
  }
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
