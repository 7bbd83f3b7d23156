import type { EChartsCoreOption } from 'echarts/core';
import { formatAxisNumber, formatNumber } from '../lib/format';

type Axis = Record<string, unknown> & { type?: string; axisLabel?: Record<string, unknown> };

const isValueAxis = (a: Axis, fallback: string) => (a.type ?? fallback) === 'value';

function withTicks(axes: unknown, fallback: string): unknown {
  if (!axes) return axes;
  const fix = (a: Axis) => (isValueAxis(a, fallback) && !a.axisLabel?.formatter ? { ...a, axisLabel: { ...a.axisLabel, formatter: formatAxisNumber } } : a);
  return Array.isArray(axes) ? axes.map(fix) : fix(axes as Axis);
}

/**
 * Every chart's numbers in the user's locale (issue 21): value-axis ticks and tooltip values, unless the chart
 * formats them itself. ECharts' default for an axis with no type is 'category' for x and 'value' for y.
 */
export function localiseNumbers(option: EChartsCoreOption): EChartsCoreOption {
  const o = option as Record<string, unknown>;
  const tooltip = o.tooltip as Record<string, unknown> | undefined;
  return {
    ...option,
    ...(o.xAxis ? { xAxis: withTicks(o.xAxis, 'category') } : {}),
    ...(o.yAxis ? { yAxis: withTicks(o.yAxis, 'value') } : {}),
    ...(tooltip && !tooltip.valueFormatter && !tooltip.formatter
      ? { tooltip: { ...tooltip, valueFormatter: (v: unknown) => (typeof v === 'number' ? formatNumber(v) : String(v ?? '–')) } }
      : {}),
  };
}
