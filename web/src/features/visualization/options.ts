import { formatNumber } from '../../lib/format';
import { histogramParts } from '../../charts/histogram';
import type { BoxStats, CorrelationResult, Histogram, MatrixResult, ScatterResult, TimeSeriesResult } from './api';
import type { EChartsCoreOption } from './echarts';

export const PRIMARY = '#1f5f8b';
export const SECONDARY = '#c2410c';
const AXIS = { fontSize: 11, color: '#5b6775' };
const SPLIT = { lineStyle: { color: '#eef1f5' } };
export const PALETTE = ['#1f5f8b', '#c2410c', '#2f7d6d', '#7c3aed', '#b45309', '#0e7490', '#be185d', '#4d7c0f', '#475569', '#9f1239'];

const fmt = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : String(v ?? ''));
const fmtTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, '');
const dateAxis = (t: string) => t === 'datetime' || t === 'date';

/** Histogram (numeric: bins, datetime: bins of time) or bar chart of the most frequent values. */
export function histogramOption(h: Histogram, labels: { count: string; other: string }): EChartsCoreOption {
  if (h.kind === 'categorical') {
    const items = [...h.values];
    const data = items.map((v) => v.count);
    const names = items.map((v) => v.value);
    if (h.other > 0) {
      names.push(labels.other);
      data.push(h.other);
    }
    return {
      animation: false,
      grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      xAxis: { type: 'category', data: names, axisLabel: { ...AXIS, rotate: names.length > 8 ? 35 : 0, width: 90, overflow: 'truncate' } },
      yAxis: { type: 'value', name: labels.count, axisLabel: AXIS, splitLine: SPLIT },
      series: [{ type: 'bar', name: labels.count, data, itemStyle: { color: '#2f7d6d' }, barMaxWidth: 40 }],
    };
  }
  const parts = histogramParts(h.edges, h.counts, { color: PRIMARY, name: labels.count, ...(h.kind === 'datetime' ? { xFormatter: fmtTime } : {}) });
  return {
    animation: false,
    grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
    ...parts,
    xAxis: { ...parts.xAxis, axisLabel: { ...AXIS, ...parts.xAxis.axisLabel } },
    yAxis: { type: 'value', name: labels.count, axisLabel: AXIS, splitLine: SPLIT },
  };
}

/** Tukey box plots, one small panel per column (each with its own scale), with the sampled outliers as points. */
export function boxplotOption(cols: BoxStats[], labels: { outliers: string }): EChartsCoreOption {
  const ok = cols.filter((c) => c.q1 !== null);
  const perRow = Math.min(6, Math.max(1, ok.length));
  const rows = Math.ceil(ok.length / perRow);
  const w = 100 / perRow;
  const h = 100 / rows;
  const grid = ok.map((_, i) => ({
    left: `${(i % perRow) * w + 1.5}%`,
    width: `${w - 3}%`,
    top: `${Math.floor(i / perRow) * h + 4}%`,
    height: `${h - 14}%`,
    containLabel: true,
  }));
  return {
    animation: false,
    grid,
    tooltip: {
      trigger: 'item',
      formatter: (p: { seriesType: string; seriesIndex: number; data: number[] }) => {
        const c = ok[Math.floor(p.seriesIndex / 2)];
        if (!c) return '';
        if (p.seriesType === 'scatter') return `${c.name} (${labels.outliers}): ${fmt(p.data[1])}`;
        return [
          `<b>${c.name}</b>`,
          `max: ${fmt(c.max)}`,
          `upper whisker: ${fmt(c.upper_whisker)}`,
          `Q3: ${fmt(c.q3)}`,
          `median: ${fmt(c.median)}`,
          `Q1: ${fmt(c.q1)}`,
          `lower whisker: ${fmt(c.lower_whisker)}`,
          `min: ${fmt(c.min)}`,
          `mean: ${fmt(c.mean)}`,
          `${labels.outliers}: ${fmt(c.outlier_count)}`,
        ].join('<br/>');
      },
    },
    xAxis: ok.map((c, i) => ({ gridIndex: i, type: 'category', data: [c.name], axisLabel: { ...AXIS, width: 120, overflow: 'truncate' }, axisTick: { show: false } })),
    yAxis: ok.map((_, i) => ({ gridIndex: i, type: 'value', scale: true, axisLabel: { fontSize: 10, color: '#5b6775' }, splitLine: SPLIT })),
    series: ok.flatMap((c, i) => [
      { type: 'boxplot', xAxisIndex: i, yAxisIndex: i, data: [[c.lower_whisker, c.q1, c.median, c.q3, c.upper_whisker]], boxWidth: ['30%', '60%'], itemStyle: { color: '#dbe8f3', borderColor: PRIMARY } },
      { type: 'scatter', xAxisIndex: i, yAxisIndex: i, name: labels.outliers, symbolSize: 5, itemStyle: { color: SECONDARY, opacity: 0.6 }, data: c.outliers.map((v) => [0, v]) },
    ]),
  };
}

/** Scatter (sampled points, coloured by a numeric or categorical column) or the density of a binned grid. */
export function scatterOption(r: ScatterResult, labels: { count: string; other: string }): EChartsCoreOption {
  const xType = dateAxis(r.x_type) ? 'time' : 'value';
  const yType = dateAxis(r.y_type) ? 'time' : 'value';
  const base = {
    animation: false,
    grid: { left: 16, right: 90, top: 40, bottom: 40, containLabel: true },
    xAxis: { type: xType, name: r.x, nameLocation: 'middle', nameGap: 28, scale: true, axisLabel: AXIS, splitLine: SPLIT },
    yAxis: { type: yType, name: r.y, nameLocation: 'end', scale: true, axisLabel: AXIS, splitLine: SPLIT },
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'empty' },
      { type: 'inside', yAxisIndex: 0, filterMode: 'empty' },
    ],
  };
  if (r.mode === 'bin' && r.bins && r.cells) {
    const { nx, ny, x0, x1, y0, y1 } = r.bins;
    const wx = (x1 - x0) / nx;
    const wy = (y1 - y0) / ny;
    const max = r.cells.reduce((m, c) => Math.max(m, c[2]), 1);
    return {
      ...base,
      tooltip: { formatter: (p: { data: number[] }) => `${r.x}: ${fmt(p.data[0])}<br/>${r.y}: ${fmt(p.data[1])}<br/>${labels.count}: ${fmt(p.data[2])}` },
      visualMap: { min: 1, max, dimension: 2, orient: 'vertical', right: 0, top: 'middle', calculable: true, text: [labels.count, ''], inRange: { color: ['#dbeafe', '#60a5fa', '#1d4ed8', '#172554'] } },
      series: [
        {
          type: 'scatter',
          symbol: 'rect',
          symbolSize: 6,
          large: true,
          data: r.cells.map(([i, j, k]) => [x0 + (i + 0.5) * wx, y0 + (j + 0.5) * wy, k]),
        },
      ],
    };
  }
  const pts = r.points ?? [];
  if (r.color_kind === 'categorical') {
    const counts = new Map<string, number>();
    for (const p of pts) counts.set(String(p[2] ?? ''), (counts.get(String(p[2] ?? '')) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 9).map(([k]) => k);
    const groups = new Map<string, (number | string | null)[][]>();
    for (const p of pts) {
      const k = top.includes(String(p[2] ?? '')) ? String(p[2] ?? '') : labels.other;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k)!.push([p[0], p[1]]);
    }
    return {
      ...base,
      legend: { type: 'scroll', orient: 'vertical', right: 0, top: 40, textStyle: { fontSize: 11 } },
      tooltip: { trigger: 'item', formatter: (p: { seriesName: string; data: number[] }) => `${r.color}: ${p.seriesName}<br/>${r.x}: ${fmt(p.data[0])}<br/>${r.y}: ${fmt(p.data[1])}` },
      series: [...groups.entries()].map(([name, data], i) => ({ type: 'scatter', name, data, symbolSize: 4, large: data.length > 5000, itemStyle: { color: PALETTE[i % PALETTE.length], opacity: 0.7 } })),
    };
  }
  const colorNums = r.color_kind === 'numeric' ? pts.map((p) => p[2]).filter((v): v is number => typeof v === 'number') : [];
  return {
    ...base,
    tooltip: {
      trigger: 'item',
      formatter: (p: { data: (number | null)[] }) =>
        `${r.x}: ${fmt(p.data[0])}<br/>${r.y}: ${fmt(p.data[1])}${r.color ? `<br/>${r.color}: ${fmt(p.data[2])}` : ''}`,
    },
    visualMap: colorNums.length
      ? { min: Math.min(...colorNums), max: Math.max(...colorNums), dimension: 2, orient: 'vertical', right: 0, top: 'middle', calculable: true, text: [r.color, ''], inRange: { color: ['#2563eb', '#a3e635', '#dc2626'] } }
      : undefined,
    series: [{ type: 'scatter', data: pts, symbolSize: 4, large: pts.length > 5000, largeThreshold: 5000, itemStyle: { color: PRIMARY, opacity: 0.6 } }],
  };
}

/** Scatter-plot matrix: n × n small grids; the diagonal shows each column's histogram (of the sample). */
export function matrixOption(m: MatrixResult): EChartsCoreOption {
  const n = m.columns.length;
  const gap = 1.5;
  const size = (100 - 8 - gap * (n - 1)) / n;
  const grids = [];
  const xAxes: Record<string, unknown>[] = [];
  const yAxes = [];
  const series = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const k = i * n + j;
      grids.push({ left: `${6 + j * (size + gap)}%`, top: `${4 + i * (size + gap)}%`, width: `${size}%`, height: `${size}%` });
      const diag = i === j;
      xAxes.push({
        gridIndex: k,
        type: diag ? 'category' : 'value',
        scale: true,
        axisLabel: { show: i === n - 1 && !diag, fontSize: 9, color: '#5b6775', hideOverlap: true },
        axisTick: { show: false },
        splitLine: { show: false },
        name: i === n - 1 ? m.columns[j] : '',
        nameLocation: 'middle',
        nameGap: 22,
        nameTextStyle: { fontSize: 11 },
      });
      yAxes.push({
        gridIndex: k,
        type: 'value',
        scale: !diag,
        axisLabel: { show: j === 0 && !diag, fontSize: 9, color: '#5b6775', hideOverlap: true },
        splitLine: { show: false },
        name: j === 0 ? m.columns[i] : '',
        nameLocation: 'middle',
        nameGap: 40,
        nameTextStyle: { fontSize: 11 },
      });
      if (diag) {
        const vals = m.rows.map((r) => r[i]).filter((v): v is number => typeof v === 'number');
        const lo = Math.min(...vals);
        const hi = Math.max(...vals);
        const bins = 15;
        const counts = new Array<number>(bins).fill(0);
        for (const v of vals) counts[Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo || 1)) * bins))]++;
        series.push({ type: 'bar', xAxisIndex: k, yAxisIndex: k, data: counts, barCategoryGap: '5%', itemStyle: { color: '#2f7d6d' }, silent: true });
        xAxes[k].data = counts.map((_, b) => formatNumber(lo + ((hi - lo) * b) / bins));
      } else {
        series.push({ type: 'scatter', xAxisIndex: k, yAxisIndex: k, symbolSize: 2.5, data: m.rows.map((r) => [r[j], r[i]]), itemStyle: { color: PRIMARY, opacity: 0.5 }, silent: true });
      }
    }
  }
  return { animation: false, grid: grids, xAxis: xAxes, yAxis: yAxes, series };
}

/** Correlation heat-map with the coefficient in each cell and on hover. */
export function correlationOption(c: CorrelationResult, label: string): EChartsCoreOption {
  const n = c.columns.length;
  const data: [number, number, number | null][] = [];
  c.matrix.forEach((row, i) => row.forEach((v, j) => data.push([j, n - 1 - i, v === null ? null : Math.round(v * 1000) / 1000])));
  return {
    animation: false,
    grid: { left: 8, right: 80, top: 36, bottom: 8, containLabel: true },
    tooltip: {
      formatter: (p: { data: [number, number, number | null] }) =>
        `${c.columns[n - 1 - p.data[1]]} × ${c.columns[p.data[0]]}<br/>${label}: <b>${p.data[2] === null ? '–' : p.data[2].toFixed(3)}</b>`,
    },
    xAxis: { type: 'category', data: c.columns, axisLabel: { ...AXIS, rotate: n > 5 ? 40 : 0, width: 90, overflow: 'truncate' }, splitArea: { show: true } },
    yAxis: { type: 'category', data: [...c.columns].reverse(), axisLabel: { ...AXIS, width: 110, overflow: 'truncate' }, splitArea: { show: true } },
    visualMap: { min: -1, max: 1, calculable: true, orient: 'vertical', right: 0, top: 'middle', inRange: { color: ['#1d4ed8', '#f8fafc', '#b91c1c'] } },
    series: [
      {
        type: 'heatmap',
        name: label,
        data,
        label: { show: n <= 12, fontSize: n <= 8 ? 11 : 9, formatter: (p: { data: [number, number, number | null] }) => (p.data[2] === null ? '' : p.data[2].toFixed(2)) },
        emphasis: { itemStyle: { borderColor: '#111', borderWidth: 1 } },
      },
    ],
  };
}

/**
 * Lines against time with zoom and pan (inside + slider); the axis spans the whole series. `panels` draws one
 * panel per column, each with its own scale, all zoomed together.
 */
export function timeseriesOption(r: TimeSeriesResult, window: { start: number | null; end: number | null }, panels = false): EChartsCoreOption {
  const n = panels ? Math.max(1, r.series.length) : 1;
  const top = 40;
  const bottom = 70;
  const zoomWindow = { startValue: window.start ?? undefined, endValue: window.end ?? undefined };
  const order = r.time_kind === 'order';
  const xAxis = Array.from({ length: n }, (_, i) => ({
    gridIndex: i,
    type: order ? 'value' : 'time',
    min: r.full_start ?? undefined,
    max: r.full_end ?? undefined,
    axisLabel: { ...AXIS, show: i === n - 1 },
    splitLine: SPLIT,
  }));
  const yAxis = Array.from({ length: n }, (_, i) => ({
    gridIndex: i,
    type: 'value',
    scale: true,
    name: panels ? r.series[i]?.name : undefined,
    nameTextStyle: { align: 'left', fontSize: 11 },
    axisLabel: AXIS,
    splitLine: SPLIT,
  }));
  const grid = Array.from({ length: n }, (_, i) => ({
    left: 16,
    right: 24,
    containLabel: true,
    top: panels ? `${(i * (100 - 16)) / n + 6}%` : top,
    height: panels ? `${(100 - 16) / n - 7}%` : undefined,
    bottom: panels ? undefined : bottom,
  }));
  const all = Array.from({ length: n }, (_, i) => i);
  return {
    animation: false,
    useUTC: true,
    grid,
    legend: { top: 4, type: 'scroll', right: 60 },
    tooltip: { trigger: 'axis' },
    axisPointer: { link: [{ xAxisIndex: 'all' }] },
    xAxis,
    yAxis,
    dataZoom: [
      { type: 'inside', xAxisIndex: all, filterMode: 'none', ...zoomWindow },
      { type: 'slider', xAxisIndex: all, filterMode: 'none', ...zoomWindow, bottom: 16, height: 28, labelFormatter: (v: number) => (order ? String(Math.round(v)) : fmtTime(v)) },
    ],
    series: r.series.map((s, i) => ({
      type: 'line',
      name: s.name,
      data: s.points,
      xAxisIndex: panels ? i : 0,
      yAxisIndex: panels ? i : 0,
      showSymbol: false,
      lineStyle: { width: 1.2 },
      color: PALETTE[i % PALETTE.length],
    })),
  };
}
