import { describe, expect, it } from 'vitest';
import { unpackColumn, unpackScatter } from './packed';

const b64 = (a: Int32Array | Float64Array) => btoa(String.fromCharCode(...new Uint8Array(a.buffer)));
const base = { x: 'x', y: 'y', x_type: 'float', y_type: 'float', total: 3, rows: 3, sample: false, returned: 3 };

describe('packed scatter answers', () => {
  it('give back the same doubles: scaled integers and doubles, NaN as missing', () => {
    expect(Array.from(unpackColumn({ dtype: 'i32', scale: 1000, data: b64(Int32Array.from([123456, -5, 0])) }))).toEqual([123.456, -0.005, 0]);
    const exact = [0.1 + 0.2, 1e300, -Math.PI, NaN];
    expect(Array.from(unpackColumn({ dtype: 'f64', data: b64(Float64Array.from(exact)) }))).toEqual(exact);
  });

  it('read integers of 1, 2 or 3 bytes from their offset: the doubles of the decimal text', () => {
    // Little-endian unsigned integers of `w` bytes, as the server writes them.
    const bytes = (w: number, us: number[]) => btoa(String.fromCharCode(...us.flatMap((u) => Array.from({ length: w }, (_, b) => (u >> (8 * b)) & 255))));
    expect(Array.from(unpackColumn({ dtype: 'u8', scale: 10, offset: -1, data: bytes(1, [0, 6, 8, 255]) }))).toEqual([-0.1, 0.5, 0.7, 25.4]);
    expect(Array.from(unpackColumn({ dtype: 'u16', scale: 100, offset: 181, data: bytes(2, [0, 65535, 256]) }))).toEqual([1.81, 657.16, 4.37]);
    expect(Array.from(unpackColumn({ dtype: 'u24', scale: 1, offset: -5, data: bytes(3, [0, 2 ** 24 - 1, 65536]) }))).toEqual([-5, 2 ** 24 - 6, 65531]);
    // Thousandths written as text (what the JSON arrays carry) and packed as the server packs them.
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const texts = Array.from({ length: 3000 }, () => (Math.floor(rnd() * 2e6) - 1e6) / 1000).map(String);
    const ints = texts.map((t) => Math.round(Number(t) * 1000));
    const lo = Math.min(...ints);
    const got = unpackColumn({ dtype: 'u24', scale: 1000, offset: lo, data: bytes(3, ints.map((k) => k - lo)) });
    expect(Array.from(got).every((v, i) => Object.is(v, Number(texts[i])))).toBe(true);
  });

  it('become the points and cells the chart draws', () => {
    const cat = unpackScatter({
      ...base,
      color: 'g',
      color_kind: 'categorical',
      mode: 'sample',
      packed_points: {
        x: { dtype: 'i32', scale: 10, data: b64(Int32Array.from([15, 20, 25])) },
        y: { dtype: 'f64', data: b64(Float64Array.from([1.25, 2, 3])) },
        color: { dtype: 'i32', scale: 1, data: b64(Int32Array.from([0, -1, 1])) },
        color_categories: ['a', 'b'],
      },
    });
    expect(cat.points).toEqual([[1.5, 1.25, 'a'], [2, 2, null], [2.5, 3, 'b']]);
    expect('packed_points' in cat).toBe(false);
    const num = unpackScatter({ ...base, color: 'v', color_kind: 'numeric', mode: 'sample', packed_points: { x: { dtype: 'f64', data: b64(Float64Array.from([1])) }, y: { dtype: 'f64', data: b64(Float64Array.from([2])) }, color: { dtype: 'f64', data: b64(Float64Array.from([NaN])) }, color_categories: null } });
    expect(num.points).toEqual([[1, 2, null]]);
    // A 2 × 3 grid, x's cell major: cells (0, 1) and (1, 2) hold rows.
    const bin = unpackScatter({
      ...base,
      color: 'v',
      color_kind: 'numeric',
      mode: 'bin',
      bins: { nx: 2, ny: 3, x0: 0, x1: 2, y0: 0, y1: 3 },
      packed_cells: { counts: { dtype: 'i32', scale: 1, data: b64(Int32Array.from([0, 4, 0, 0, 0, 1])) }, means: { dtype: 'f64', data: b64(Float64Array.from([NaN, 0.5, NaN, NaN, NaN, NaN])) } },
    });
    expect(bin.cells).toEqual([[0, 1, 4, 0.5], [1, 2, 1, null]]);
  });
});
