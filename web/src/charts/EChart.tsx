import EChartsReactCore from 'echarts-for-react/esm/core';
import { type CSSProperties, useMemo } from 'react';
import { echarts, type EChartsCoreOption } from './echarts';
import { nonLatinText, useFontsFor, withAppFont } from './font';
import { localiseNumbers } from './numbers';

/** A chart from the modular ECharts build (SVG renderer: crisp, light for many small charts). */
export default function EChart({ option, height = 200, style, ariaLabel }: { option: EChartsCoreOption; height?: number; style?: CSSProperties; ariaLabel?: string }) {
  const localised = useMemo(() => withAppFont(localiseNumbers(option)), [option]);
  // drawn once the shipped face has the option's Japanese characters, so their widths are measured right
  const ready = useFontsFor(useMemo(() => nonLatinText(option), [option]));
  return (
    <div role="img" aria-label={ariaLabel}>
      {!ready ? (
        <div style={{ height, width: '100%', ...style }} />
      ) : (
        <EChartsReactCore echarts={echarts} option={localised} notMerge lazyUpdate opts={{ renderer: 'svg' }} style={{ height, width: '100%', ...style }} />
      )}
    </div>
  );
}
