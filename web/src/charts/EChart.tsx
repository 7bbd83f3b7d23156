import EChartsReactCore from 'echarts-for-react/esm/core';
import type { CSSProperties } from 'react';
import { echarts, type EChartsCoreOption } from './echarts';

/** A chart from the modular ECharts build (SVG renderer: crisp, light for many small charts). */
export default function EChart({ option, height = 200, style, ariaLabel }: { option: EChartsCoreOption; height?: number; style?: CSSProperties; ariaLabel?: string }) {
  return (
    <div role="img" aria-label={ariaLabel}>
      <EChartsReactCore
        echarts={echarts}
        option={option}
        notMerge
        lazyUpdate
        opts={{ renderer: 'svg' }}
        style={{ height, width: '100%', ...style }}
      />
    </div>
  );
}
