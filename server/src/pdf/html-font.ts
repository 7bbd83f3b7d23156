import subsetFont from 'subset-font';
import { fonts } from './fonts.js';

/** The family every HTML report names first: the embedded face takes precedence over a local font of that name. */
export const REPORT_FONT = 'Noto Sans JP';

/**
 * A downloaded HTML report is opened on machines without Japanese system fonts (Linux desktops, thin clients), where
 * kana and kanji would be empty boxes: embed the bundled Noto Sans JP, regular and bold, cut to the characters the
 * file holds (a superset: markup letters count too), as WOFF data in @font-face rules at the top of <head>.
 * A few tens of kB for a typical report.
 */
export async function embedReportFont(html: string): Promise<string> {
  const chars = [...new Set(html)].filter((c) => c >= ' ').join('');
  const f = fonts();
  const [regular, bold] = await Promise.all([f.regular, f.bold].map((face) => subsetFont(face, chars, { targetFormat: 'woff' })));
  const face = (data: Buffer, weight: number) =>
    `@font-face{font-family:"${REPORT_FONT}";src:url(data:font/woff;base64,${data.toString('base64')}) format("woff");font-weight:${weight};font-style:normal}`;
  const style = `<style>${face(regular, 400)}${face(bold, 700)}</style>`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (m) => `${m}${style}`) : `${style}${html}`;
}
