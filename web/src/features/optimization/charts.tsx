import { LineChart, ParallelChart, ScatterChart } from 'echarts/charts';
import { LegendComponent, ParallelComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import EChart from '../../charts/EChart';
import { formatNumber } from '../../lib/format';
import type { Candidate, Profile } from './api';

// The chart kinds this area draws, registered on the app's modular ECharts.
echarts.use([LineChart, ScatterChart, ParallelChart, ParallelComponent, LegendComponent, VisualMapComponent]);

const BLUE = '#1565c0';
const ORANGE = '#ef6c00';
const GREY = '#b0bec5';
const fmt = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : String(v ?? ''));

export function ConvergenceChart({ points, labels, ariaLabel }: { points: { evaluation: number; best: number | null; value: number | null }[]; labels: { best: string; value: string; x: string }; ariaLabel: string }) {
  return (
    <EChart
      ariaLabel={ariaLabel}
      height={280}
      option={{
        animation: false,
        grid: { left: 64, right: 16, top: 32, bottom: 40 },
        legend: { top: 0 },
        tooltip: { trigger: 'axis', valueFormatter: fmt },
        xAxis: { type: 'value', name: labels.x, nameLocation: 'middle', nameGap: 26, min: 1 },
        yAxis: { type: 'value', scale: true, axisLabel: { formatter: fmt } },
        series: [
          { name: labels.value, type: 'scatter', symbolSize: 4, itemStyle: { color: GREY }, data: points.map((p) => [p.evaluation, p.value]) },
          { name: labels.best, type: 'line', step: 'end', showSymbol: false, lineStyle: { color: BLUE, width: 2 }, itemStyle: { color: BLUE }, data: points.map((p) => [p.evaluation, p.best]) },
        ],
      }}
    />
  );
}

/** Non-dominated points for two axes, each maximised (+1) or minimised (-1). */
export function paretoFront(points: [number, number][], dir: [number, number]): [number, number][] {
  const s = points.map(([x, y]) => [x * dir[0], y * dir[1]]);
  const keep = s.filter((p, i) => !s.some((q, j) => j !== i && q[0] >= p[0] && q[1] >= p[1] && (q[0] > p[0] || q[1] > p[1])));
  return keep.map(([x, y]) => [x * dir[0], y * dir[1]] as [number, number]).sort((a, b) => a[0] - b[0]);
}

export function ParetoChart({ points, x, y, dir, labels, ariaLabel }: { points: Candidate[]; x: (c: Candidate) => number; y: (c: Candidate) => number; dir: [number, number]; labels: { x: string; y: string; all: string; front: string }; ariaLabel: string }) {
  const xy = points.map((c) => [x(c), y(c)] as [number, number]).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
  const front = paretoFront(xy, dir);
  return (
    <EChart
      ariaLabel={ariaLabel}
      height={360}
      option={{
        animation: false,
        grid: { left: 64, right: 24, top: 32, bottom: 48 },
        legend: { top: 0 },
        tooltip: { trigger: 'item', valueFormatter: fmt },
        xAxis: { type: 'value', name: labels.x, nameLocation: 'middle', nameGap: 28, scale: true, axisLabel: { formatter: fmt } },
        yAxis: { type: 'value', name: labels.y, scale: true, axisLabel: { formatter: fmt } },
        series: [
          { name: labels.all, type: 'scatter', symbolSize: 5, itemStyle: { color: GREY }, data: xy },
          { name: labels.front, type: 'line', symbolSize: 8, lineStyle: { color: ORANGE }, itemStyle: { color: ORANGE }, data: front },
        ],
      }}
    />
  );
}

export function ParallelCoordinates({ points, dims, colorBy, ariaLabel }: { points: Candidate[]; dims: { name: string; get: (c: Candidate) => number | string | null }[]; colorBy: number; ariaLabel: string }) {
  const values = points.map((c) => dims.map((d) => d.get(c)));
  const col = values.map((v) => v[colorBy]).filter((v): v is number => typeof v === 'number');
  return (
    <EChart
      ariaLabel={ariaLabel}
      height={380}
      option={{
        animation: false,
        parallel: { left: 48, right: 80, top: 48, bottom: 32 },
        parallelAxis: dims.map((d, i) => ({ dim: i, name: d.name, scale: true, nameRotate: 20, type: values.some((v) => typeof v[i] === 'string') ? 'category' : 'value', axisLabel: { formatter: fmt } })),
        visualMap: col.length ? { type: 'continuous', dimension: colorBy, min: Math.min(...col), max: Math.max(...col), right: 0, top: 'middle', calculable: true, inRange: { color: ['#cfd8dc', BLUE, ORANGE] }, formatter: fmt } : undefined,
        series: [{ type: 'parallel', lineStyle: { width: 1, opacity: 0.45 }, data: values }],
      }}
    />
  );
}

export function ProfileChart({ feature, profile, target, best, ariaLabel }: { feature: string; profile: Profile; target: string; best: number | string; ariaLabel: string }) {
  const numeric = profile.x.every((v) => typeof v === 'number');
  const ys = profile.targets[target] ?? [];
  const data = profile.x.map((x, i) => ({ value: [x, ys[i]], itemStyle: { color: profile.feasible[i] ? BLUE : GREY } }));
  return (
    <EChart
      ariaLabel={ariaLabel}
      height={170}
      option={{
        animation: false,
        grid: { left: 52, right: 12, top: 14, bottom: 36 },
        tooltip: { trigger: 'axis', valueFormatter: fmt },
        xAxis: { type: numeric ? 'value' : 'category', name: feature, nameLocation: 'middle', nameGap: 22, scale: true, axisLabel: { formatter: numeric ? fmt : undefined } },
        yAxis: { type: 'value', scale: true, axisLabel: { formatter: fmt } },
        series: [
          {
            type: 'line',
            data,
            showSymbol: true,
            symbolSize: 5,
            lineStyle: { color: BLUE },
            markLine: { symbol: 'none', silent: true, lineStyle: { color: ORANGE, type: 'dashed' }, label: { show: false }, data: [{ xAxis: best }] },
          },
        ],
      }}
    />
  );
}
