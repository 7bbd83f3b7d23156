import type { EChartsCoreOption } from 'echarts/core';
import { FONT_STACK } from '../lib/fonts';

/**
 * Every chart's text in the app's font stack (issue 33): ECharts' own default is the generic `sans-serif` alone,
 * which draws Japanese as boxes where the machine has no Japanese font. The global textStyle is what axis labels
 * and names, titles, legends and tooltips fall back to; a chart that names its own family keeps it.
 */
export function withAppFont(option: EChartsCoreOption): EChartsCoreOption {
  const textStyle = (option as { textStyle?: { fontFamily?: string } }).textStyle;
  return { ...option, textStyle: { ...textStyle, fontFamily: textStyle?.fontFamily ?? FONT_STACK } };
}
