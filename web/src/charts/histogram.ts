import { formatAxisNumber, formatInteger, formatNumber } from '../lib/format';

interface RenderApi {
  value(dim: number): number;
  coord(point: [number, number]): [number, number];
  style(): Record<string, unknown>;
}

/**
 * A histogram drawn as it is: one rectangle per bin from its lower to its upper edge on a value axis, so the
 * axis gets round ticks in the user's locale instead of raw bin edges as category labels (issue 21).
 * Register CustomChart (charts/echarts.ts does) before drawing it.
 */
export function histogramParts(edges: number[], counts: number[], opts: { color: string; name?: string; xName?: string; xFormatter?: (v: number) => string }) {
  const fx = opts.xFormatter ?? formatNumber;
  return {
    xAxis: {
      type: 'value' as const,
      // Round ends around the bins (explicit min/max would print the raw first and last edge).
      scale: true,
      name: opts.xName,
      nameLocation: 'middle' as const,
      nameGap: 26,
      axisLabel: { formatter: opts.xFormatter ?? formatAxisNumber, hideOverlap: true },
    },
    tooltip: {
      trigger: 'item' as const,
      formatter: (p: { value: [number, number, number] }) => `${fx(p.value[0])} – ${fx(p.value[1])}<br/><b>${formatInteger(p.value[2])}</b>`,
    },
    series: [
      {
        type: 'custom' as const,
        name: opts.name,
        data: counts.map((c, i) => [edges[i], edges[i + 1], c]),
        encode: { x: [0, 1], y: 2 },
        itemStyle: { color: opts.color },
        renderItem: (_params: unknown, api: RenderApi) => {
          const [x0, y0] = api.coord([api.value(0), 0]);
          const [x1, y1] = api.coord([api.value(1), api.value(2)]);
          const gap = Math.min(1, (x1 - x0) / 4);
          return { type: 'rect', shape: { x: x0 + gap / 2, y: y1, width: Math.max(0.5, x1 - x0 - gap), height: y0 - y1 }, style: api.style() };
        },
      },
    ],
  };
}
