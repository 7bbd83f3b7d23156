import EChartsReactCore from 'echarts-for-react/esm/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { nonLatinText, useFontsFor, withAppFont } from '../../charts/font';
import { localiseNumbers } from '../../charts/numbers';
import { echarts, type EChartsCoreOption } from './echarts';

export interface VisChartProps {
  option: EChartsCoreOption;
  height?: number;
  /** file name (without .png) of the saved image */
  fileName: string;
  ariaLabel: string;
  /** names the chart for tests (data-testid) */
  testId?: string;
  /** what the chart received, as JSON in data-chart, so tests can read the figures (not only see a canvas) */
  data?: unknown;
  renderer?: 'canvas' | 'svg';
  onEvents?: Record<string, (e: unknown, chart: unknown) => void>;
  onChartReady?: (chart: unknown) => void;
  notMerge?: boolean;
}

/** An ECharts chart with a "save as PNG" button (ECharts toolbox saveAsImage). */
export default function VisChart({ option, height = 360, fileName, ariaLabel, testId, data, renderer = 'canvas', onEvents, onChartReady, notMerge = true }: VisChartProps) {
  const { t } = useTranslation('visualization');
  const full = useMemo(
    () => ({
      ...withAppFont(localiseNumbers(option)),
      toolbox: {
        right: 8,
        top: 0,
        feature: { saveAsImage: { name: fileName.replace(/[\\/:*?"<>|]/g, '_'), title: t('savePng'), pixelRatio: 2, backgroundColor: '#fff' } },
      },
    }),
    [option, fileName, t],
  );
  const json = useMemo(() => (data === undefined ? undefined : JSON.stringify(data)), [data]);
  const fontsReady = useFontsFor(useMemo(() => nonLatinText(full), [full]));
  return (
    <div role="img" aria-label={ariaLabel} data-testid={testId} data-chart={json}>
      {/* drawn once the shipped face has the option's Japanese characters (charts/font.ts useFontsFor) */}
      {!fontsReady ? (
        <div style={{ height, width: '100%' }} />
      ) : (
        <EChartsReactCore echarts={echarts} option={full} notMerge={notMerge} lazyUpdate opts={{ renderer }} style={{ height, width: '100%' }} onEvents={onEvents} onChartReady={onChartReady} />
      )}
    </div>
  );
}
