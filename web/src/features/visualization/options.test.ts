import { describe, expect, it } from 'vitest';
import { boxplotOption, correlationOption, histogramOption, scatterOption, timeseriesOption } from './options';

const series = (o: unknown) => (o as { series: { type: string; data: unknown[] }[] }).series;

describe('chart options', () => {
  it('histogram: one bar per bin from edge to edge on a value axis; categories keep their order and add "other"', () => {
    const h = histogramOption({ name: 'x', type: 'float', kind: 'numeric', edges: [0, 1, 2], counts: [3, 4], count: 7, missing: 0 }, { count: 'Count', other: 'Other' });
    expect(series(h)[0].data).toEqual([[0, 1, 3], [1, 2, 4]]);
    expect((h as { xAxis: { type: string } }).xAxis.type).toBe('value');
    const c = histogramOption({ name: 'g', type: 'string', kind: 'categorical', values: [{ value: 'a', count: 5 }, { value: 'b', count: 2 }], other: 1, distinct: 3, count: 8, missing: 0 }, { count: 'Count', other: 'Other' });
    expect((c as { xAxis: { data: string[] } }).xAxis.data).toEqual(['a', 'b', 'Other']);
    expect(series(c)[0].data).toEqual([5, 2, 1]);
  });
  it('correlation: cell (column j, reversed row i) carries r rounded to 3 decimals', () => {
    const o = correlationOption({ method: 'pearson', columns: ['a', 'b'], matrix: [[1, 0.12345], [0.12345, 1]], rows: 10, sample: false, sample_rows: 10 }, 'r');
    expect(series(o)[0].data).toEqual([[0, 1, 1], [1, 1, 0.123], [0, 0, 0.123], [1, 0, 1]]);
  });
  it('box plots: one panel per column with Tukey whiskers', () => {
    const o = boxplotOption([{ name: 'v', count: 4, min: 1, q1: 1.75, median: 2.5, q3: 4.75, max: 10, mean: 4, lower_whisker: 1, upper_whisker: 3, outlier_count: 1, outliers: [10] }], { outliers: 'Outliers' });
    expect(series(o)[0].data).toEqual([[1, 1.75, 2.5, 4.75, 3]]);
    expect(series(o)[1].data).toEqual([[0, 10]]);
  });
  it('scatter: categories become one series each; a binned grid becomes cell centres with counts', () => {
    const cat = scatterOption({ x: 'x', y: 'y', color: 'g', color_kind: 'categorical', x_type: 'float', y_type: 'float', total: 3, rows: 3, mode: 'sample', sample: false, returned: 3, points: [[1, 2, 'a'], [2, 3, 'b'], [3, 4, 'a']] }, { count: 'n', other: 'Other' });
    expect(series(cat).map((s) => [(s as unknown as { name: string }).name, s.data.length])).toEqual([['a', 2], ['b', 1]]);
    const bin = scatterOption({ x: 'x', y: 'y', color: null, color_kind: null, x_type: 'float', y_type: 'float', total: 5, rows: 5, mode: 'bin', sample: false, returned: 1, bins: { nx: 2, ny: 2, x0: 0, x1: 2, y0: 0, y1: 2 }, cells: [[1, 0, 5, null]] }, { count: 'n', other: 'Other' });
    expect(series(bin)[0].data).toEqual([[1.5, 0.5, 5]]);
  });
  it('time series: panels give each column its own axes, zoomed together', () => {
    const r = { datetime_column: 't', time_kind: 'datetime' as const, full_start: 0, full_end: 10, start: 0, end: 10, total_rows: 3, window_rows: 3, downsampled: false, method: 'minmax' as const, series: [{ name: 'a', points: [[0, 1]] as [number, number][] }, { name: 'b', points: [[0, 2]] as [number, number][] }] };
    const o = timeseriesOption(r, { start: 2, end: 5 }, true) as { grid: unknown[]; dataZoom: { xAxisIndex: number[]; startValue: number }[]; series: { xAxisIndex: number }[] };
    expect(o.grid).toHaveLength(2);
    expect(o.dataZoom[0]).toMatchObject({ xAxisIndex: [0, 1], startValue: 2 });
    expect(o.series.map((s) => s.xAxisIndex)).toEqual([0, 1]);
    expect((o as unknown as { xAxis: { type: string }[] }).xAxis[0].type).toBe('time');
  });
  it('time series ordered by a whole-number column: a value axis labelled with the numbers, not dates', () => {
    const r = { datetime_column: 'sample', time_kind: 'order' as const, full_start: 1, full_end: 500, start: 1, end: 500, total_rows: 500, window_rows: 500, downsampled: false, method: 'minmax' as const, series: [{ name: 'a', points: [[1, 1], [500, 2]] as [number, number][] }] };
    const o = timeseriesOption(r, { start: null, end: null }) as unknown as { xAxis: { type: string; min: number }[]; dataZoom: { labelFormatter?: (v: number) => string }[] };
    expect(o.xAxis[0]).toMatchObject({ type: 'value', min: 1 });
    expect(o.dataZoom[1].labelFormatter!(161.2)).toBe('161');
  });
});
