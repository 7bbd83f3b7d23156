import EChart from '../../charts/EChart';
import type { EChartsCoreOption } from '../../charts/echarts';
import { histogramParts } from '../../charts/histogram';
import type { ColumnStatistics } from '../../api/types';
import { formatFor, formatTime, isoOf, timeMs } from '../../lib/timeAxis';
import { chartKind } from './chartKind';

const PRIMARY = '#1f5f8b';
const SECONDARY = '#2f7d6d';

export function histogramOption(h: { edges: number[]; counts: number[] }, countLabel: string, xFormatter?: (v: number) => string): EChartsCoreOption {
  const parts = histogramParts(h.edges, h.counts, { color: PRIMARY, name: countLabel, xFormatter });
  return {
    animation: false,
    grid: { left: 8, right: 8, top: 10, bottom: 4, containLabel: true },
    ...parts,
    xAxis: { ...parts.xAxis, axisLabel: { ...parts.xAxis.axisLabel, fontSize: 10, color: '#5b6775' } },
    yAxis: { type: 'value', name: '', axisLabel: { fontSize: 10, color: '#5b6775' }, splitLine: { lineStyle: { color: '#eef1f5' } } },
  };
}

export function topValuesOption(top: { value: unknown; count: number }[], countLabel: string, emptyLabel: string): EChartsCoreOption {
  const items = [...top].slice(0, 10).reverse();
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 6, bottom: 4, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'value', axisLabel: { fontSize: 10, color: '#5b6775' }, splitLine: { lineStyle: { color: '#eef1f5' } } },
    yAxis: {
      type: 'category',
      data: items.map((i) => (i.value === null || i.value === '' ? emptyLabel : String(i.value))),
      axisTick: { show: false },
      axisLabel: { fontSize: 10, color: '#1d2733', width: 110, overflow: 'truncate' },
    },
    series: [{ type: 'bar', name: countLabel, data: items.map((i) => i.count), itemStyle: { color: SECONDARY }, barMaxWidth: 18 }],
  };
}

/** The small chart of one column (see chartKind). */
export default function ColumnChart({ column, countLabel, emptyLabel }: { column: ColumnStatistics; countLabel: string; emptyLabel: string }) {
  const kind = chartKind(column);
  if (kind === 'histogram' && column.kind === 'numeric') {
    return <EChart option={histogramOption(column.histogram, countLabel)} height={190} ariaLabel={`${column.name} histogram`} />;
  }
  if (kind === 'histogram' && column.kind === 'datetime') {
    // A datetime column's edges are ISO dates or times: placed by their time, labelled at the precision the span needs.
    const edges = column.histogram.edges.map((e) => timeMs(e) ?? NaN);
    const f = formatFor(column.histogram.edges);
    const label = (v: number) => formatTime(isoOf(v), f);
    return <EChart option={histogramOption({ edges, counts: column.histogram.counts }, countLabel, label)} height={190} ariaLabel={`${column.name} histogram`} />;
  }
  if (kind === 'top' && (column.kind === 'categorical' || column.kind === 'boolean')) {
    return <EChart option={topValuesOption(column.top, countLabel, emptyLabel)} height={190} ariaLabel={`${column.name} top values`} />;
  }
  return null;
}
