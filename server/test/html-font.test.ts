import * as fontkit from 'fontkit';
import { describe, expect, it } from 'vitest';
import { embedReportFont } from '../src/pdf/index.js';

/** Issue 33: a downloaded HTML report draws its Japanese with the bundled face, not the reader's system fonts. */
describe('embedReportFont', () => {
  const html = '<!doctype html><html lang="ja"><head><title>報告</title></head><body><h1>モデルの比較</h1><p>異常検知のしきい値 0.544（学習時）</p></body></html>';

  it('embeds regular and bold faces holding every character of the file, ahead of the document', async () => {
    const out = await embedReportFont(html);
    const faces = [...out.matchAll(/@font-face\{font-family:"Noto Sans JP";src:url\(data:font\/woff;base64,([^)]+)\) format\("woff"\);font-weight:(\d+)/g)];
    expect(faces.map((f) => f[2])).toEqual(['400', '700']);
    expect(out.indexOf('<style>@font-face')).toBeLessThan(out.indexOf('<title>'));
    const text = [...new Set('報告モデルの比較異常検知のしきい値0.544（学習時）')];
    for (const [, data] of faces) {
      const font = fontkit.create(Buffer.from(data, 'base64'));
      expect(text.filter((c) => !font.hasGlyphForCodePoint(c.codePointAt(0)!))).toEqual([]);
      // a subset, not the 5 MB face: a character the file does not hold is left out
      expect(font.hasGlyphForCodePoint('鬱'.codePointAt(0)!)).toBe(false);
    }
    expect(out.length).toBeLessThan(html.length + 200_000);
    expect(out.replace(/<style>@font-face[^<]*<\/style>/, '')).toBe(html);
  });

  it('puts the faces first when the file has no head', async () => {
    expect(await embedReportFont('<p>こんにちは</p>')).toMatch(/^<style>@font-face.*<\/style><p>こんにちは<\/p>$/s);
  });
});
