import { BoxplotChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { useTranslation } from 'react-i18next';
import EChart from '../../charts/EChart';
import { formatNumber } from '../../lib/format';
import type { BoxData, ReferenceCurve, ResultOf } from './api';

// The chart kinds this area draws, registered on the app's modular ECharts (echarts/core only).
echarts.use([BoxplotChart, LineChart, ScatterChart, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent]);

const BLUE = '#1565c0';
const RED = '#d32f2f';
const fmt = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : String(v ?? ''));

/** A deterministic jitter, so the strip plot does not move between renders. */
function jitter(i: number): number {
  const x = Math.sin(i * 12.9898) * 43758.5453;
  return (x - Math.floor(x) - 0.5) * 0.5;
}

/** Box plot (Tukey whiskers), outliers, and a jittered strip of the values beside each box. */
export function BoxStripChart({ boxes, referenceLine, ariaLabel }: { boxes: BoxData[]; referenceLine?: number; ariaLabel: string }) {
  const labels = boxes.map((b) => b.label);
  const option = {
    animation: false,
    grid: { left: 56, right: 16, top: 16, bottom: 36 },
    tooltip: { trigger: 'item', valueFormatter: fmt },
    xAxis: [
      { type: 'category', data: labels, axisLabel: { interval: 0, hideOverlap: true }, axisLine: { onZero: false } },
      { type: 'value', min: -0.5, max: boxes.length - 0.5, show: false },
    ],
    yAxis: { type: 'value', scale: true, axisLabel: { formatter: fmt }, axisLine: { onZero: false } },
    series: [
      {
        type: 'boxplot',
        name: 'box',
        data: boxes.map((b) => [b.low, b.q1, b.median, b.q3, b.high]),
        itemStyle: { color: '#e3f2fd', borderColor: '#37474f' },
        boxWidth: ['20%', '45%'],
        markLine:
          referenceLine !== undefined
            ? { symbol: 'none', silent: true, lineStyle: { color: RED, type: 'dashed' }, label: { formatter: fmt(referenceLine) }, data: [{ yAxis: referenceLine }] }
            : undefined,
      },
      {
        type: 'scatter',
        name: 'outliers',
        data: boxes.flatMap((b, i) => b.outliers.map((v) => [i, v])),
        symbolSize: 6,
        itemStyle: { color: 'transparent', borderColor: RED, borderWidth: 1.2 },
      },
      {
        type: 'scatter',
        name: 'values',
        xAxisIndex: 1,
        data: boxes.flatMap((b, i) => b.points.map((v, j) => [i + 0.3 + jitter(j) * 0.25, v])),
        symbolSize: 4,
        itemStyle: { color: BLUE, opacity: 0.45 },
        tooltip: { show: false },
      },
      {
        type: 'scatter',
        name: 'mean',
        data: boxes.map((b, i) => [i, b.mean]),
        symbol: 'diamond',
        symbolSize: 9,
        itemStyle: { color: '#ef6c00' },
      },
    ],
  };
  return <EChart option={option} height={300} ariaLabel={ariaLabel} />;
}

/** The reference distribution's density, its critical region(s) shaded, and the observed statistic. */
export function ReferenceChart({ curve, ariaLabel }: { curve: ReferenceCurve; ariaLabel: string }) {
  const pts = curve.x.map((x, i) => [x, curve.y[i]]);
  const tail = (keep: (x: number) => boolean) => pts.filter(([x]) => keep(x));
  const region = (data: number[][]) => ({
    type: 'line',
    data,
    symbol: 'none',
    lineStyle: { width: 0 },
    areaStyle: { color: RED, opacity: 0.35 },
    silent: true,
  });
  const series: unknown[] = [
    { type: 'line', data: pts, symbol: 'none', lineStyle: { color: '#37474f', width: 2 }, smooth: false, silent: true },
  ];
  if (curve.critical_low !== null) series.push(region(tail((x) => x <= curve.critical_low!)));
  if (curve.critical_high !== null) series.push(region(tail((x) => x >= curve.critical_high!)));
  // The observed statistic: a vertical line at its value, labelled with it.
  const observedMark = (xAxis: number, type: 'solid' | 'dashed', label: Record<string, unknown>) => ({
    type: 'line',
    data: [],
    markLine: { symbol: 'none', silent: true, lineStyle: { color: BLUE, width: 2, type }, label: { color: BLUE, ...label }, data: [{ xAxis }] },
  });
  if (curve.observed !== null && curve.observed_off_chart) {
    // Far beyond the plotted range: marked at the edge it lies beyond, with its value.
    const left = curve.observed < curve.x[0];
    const span = curve.x[curve.x.length - 1] - curve.x[0];
    // Just inside the axis, so the mark is not clipped away at the boundary.
    const edge = left ? curve.x[0] + span * 0.004 : curve.x[curve.x.length - 1] - span * 0.004;
    series.push(observedMark(edge, 'dashed', { formatter: left ? `← ${fmt(curve.observed)}` : `${fmt(curve.observed)} →`, position: 'end', align: left ? 'left' : 'right' }));
  } else if (curve.observed !== null) {
    series.push(observedMark(curve.observed, 'solid', { formatter: fmt(curve.observed) }));
  }
  const option = {
    animation: false,
    grid: { left: 48, right: 40, top: 32, bottom: 32 },
    xAxis: { type: 'value', min: curve.x[0], max: curve.x[curve.x.length - 1], axisLabel: { formatter: fmt, showMinLabel: false, showMaxLabel: false }, axisLine: { onZero: false } },
    yAxis: { type: 'value', axisLabel: { show: false }, splitLine: { show: false }, axisLine: { show: false }, axisTick: { show: false } },
    series,
  };
  return <EChart option={option} height={260} ariaLabel={ariaLabel} />;
}

export function ScatterFitChart({ result, ariaLabel }: { result: ResultOf<'pearson' | 'spearman'>; ariaLabel: string }) {
  const s = result.charts.scatter;
  const data = s.x.map((x, i) => [x, s.y[i]]);
  const series: unknown[] = [{ type: 'scatter', data, symbolSize: 5, itemStyle: { color: BLUE, opacity: 0.55 } }];
  if (s.slope !== null && s.intercept !== null && s.x.length) {
    const lo = Math.min(...s.x);
    const hi = Math.max(...s.x);
    series.push({ type: 'line', data: [[lo, s.intercept + s.slope * lo], [hi, s.intercept + s.slope * hi]], symbol: 'none', lineStyle: { color: RED, width: 2 } });
  }
  const option = {
    animation: false,
    grid: { left: 56, right: 16, top: 16, bottom: 44 },
    tooltip: { trigger: 'item', valueFormatter: fmt },
    xAxis: { type: 'value', scale: true, name: result.variables.variable1, nameLocation: 'middle', nameGap: 28, axisLabel: { formatter: fmt } },
    yAxis: { type: 'value', scale: true, name: result.variables.variable2 ?? '', axisLabel: { formatter: fmt } },
    series,
  };
  return <EChart option={option} height={300} ariaLabel={ariaLabel} />;
}

export function QQChart({ result, ariaLabel }: { result: ResultOf<'shapiro'>; ariaLabel: string }) {
  const { t } = useTranslation('statisticalAnalysis');
  const q = result.charts.qq;
  const lo = q.theoretical[0];
  const hi = q.theoretical[q.theoretical.length - 1];
  const option = {
    animation: false,
    grid: { left: 56, right: 16, top: 16, bottom: 44 },
    xAxis: { type: 'value', name: t('details.theoretical'), nameLocation: 'middle', nameGap: 28, axisLabel: { formatter: fmt }, axisLine: { onZero: false } },
    yAxis: { type: 'value', scale: true, name: result.variables.variable1, axisLabel: { formatter: fmt }, axisLine: { onZero: false } },
    series: [
      { type: 'scatter', data: q.theoretical.map((x, i) => [x, q.sample[i]]), symbolSize: 4, itemStyle: { color: BLUE, opacity: 0.6 } },
      { type: 'line', data: [[lo, q.intercept + q.slope * lo], [hi, q.intercept + q.slope * hi]], symbol: 'none', lineStyle: { color: RED, width: 2 } },
    ],
  };
  return <EChart option={option} height={300} ariaLabel={ariaLabel} />;
}
