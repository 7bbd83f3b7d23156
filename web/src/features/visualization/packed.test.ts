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
