import type { EChartsCoreOption } from 'echarts/core';
import { useEffect, useState } from 'react';
import { FONT_STACK, SHIPPED_JAPANESE_FONT } from '../lib/fonts';

/**
 * Every chart's text in the app's font stack (issue 33): ECharts' own default is the generic `sans-serif` alone,
 * which draws Japanese as boxes where the machine has no Japanese font. The global textStyle is what axis labels
 * and names, titles, legends and tooltips fall back to; a chart that names its own family keeps it.
 */
export function withAppFont(option: EChartsCoreOption): EChartsCoreOption {
  const textStyle = (option as { textStyle?: { fontFamily?: string } }).textStyle;
  return { ...option, textStyle: { ...textStyle, fontFamily: textStyle?.fontFamily ?? FONT_STACK } };
}

/**
 * The characters of an option that the Latin faces lack (Japanese labels, legends, axis names). The shipped face is
 * fetched per unicode-range subset when a character is first laid out; ECharts measures text before drawing it and
 * keeps each width it measured, so a label measured before its subset arrived keeps the fallback's width and the
 * next legend item or axis name is drawn over it (seen on the request-statistics legend, 拒否).
 */
export function nonLatinText(option: unknown): string {
  return [...new Set(JSON.stringify(option ?? null))].filter((c) => c.codePointAt(0)! > 0x24f).join('');
}

/** Whether the shipped face has what `text` needs: true at once when nothing is missing or the browser has no
 * font loading API (tests); otherwise once `document.fonts.load` fetched the subsets (or failed: draw anyway). */
export function useFontsFor(text: string): boolean {
  const fonts = typeof document === 'undefined' ? undefined : (document as Document & { fonts?: FontFaceSet }).fonts;
  const needed = !!text && !!fonts && typeof fonts.load === 'function' && !fonts.check(`12px ${SHIPPED_JAPANESE_FONT}`, text);
  const [loaded, setLoaded] = useState<string | null>(null);
  useEffect(() => {
    if (!needed || !fonts) return;
    let live = true;
    const done = () => live && setLoaded(text);
    fonts.load(`12px ${SHIPPED_JAPANESE_FONT}`, text).then(done, done);
    return () => {
      live = false;
    };
  }, [needed, fonts, text]);
  return !needed || loaded === text;
}
