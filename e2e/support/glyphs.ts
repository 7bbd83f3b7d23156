import type { CDPSession, Page } from 'playwright-core';

/** Characters a Latin-only machine has no glyph for: kana, CJK ideographs and punctuation, full-width forms. */
const JAPANESE = /[\u3001-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uffef]/gu;

export interface GlyphCheck {
  text: string;
  weight: string;
  japanese: number; // how many Japanese characters the element's own text has
  shipped: number; // how many glyphs the shipped Noto Sans JP drew in it
  fonts: string; // every font the element's text was drawn with, and how many glyphs each
}

/**
 * What font actually drew every visible Japanese string on the page: each element whose own text has Japanese
 * characters is asked through CDP (CSS.getPlatformFontsForNode: the fonts the renderer used for its text nodes,
 * with glyph counts). A glyph no font has is drawn as a box by whatever font came last, so an element whose
 * Japanese characters were not all drawn by the shipped face shows boxes on a machine without Japanese fonts.
 * `probeWeights` adds a line of Japanese at each of those weights in the body's font, for weights no element
 * happens to use.
 */
export async function japaneseGlyphs(page: Page, cdp: CDPSession, probeWeights: number[] = []): Promise<GlyphCheck[]> {
  await page.evaluate(async (weights) => {
    document.querySelectorAll('[data-glyph-probe]').forEach((e) => e.remove());
    for (const w of weights) {
      const div = document.createElement('div');
      div.dataset.glyphProbe = String(w);
      div.style.cssText = `font-weight:${w};position:fixed;left:0;bottom:0;opacity:0.01`;
      div.textContent = `見立てデータセット統計分析監査ログ（）・ー${w}`;
      document.body.append(div);
    }
    await document.fonts.ready;
  }, probeWeights);
  // Layout settles (and font subsets arrive) before the renderer is asked.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(() => document.fonts.ready);
  const found = await page.evaluate((source) => {
    const re = new RegExp(source, 'u');
    document.querySelectorAll('[data-glyph-check]').forEach((e) => e.removeAttribute('data-glyph-check'));
    const out: { text: string; weight: string }[] = [];
    const seen = new Set<Element>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || seen.has(el) || !re.test(n.textContent ?? '')) continue;
      if (el.closest('script,style,title,noscript')) continue;
      const r = n.parentElement!.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || !el.checkVisibility({ visibilityProperty: true })) continue;
      seen.add(el);
      el.setAttribute('data-glyph-check', String(out.length));
      const own = [...el.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent).join('');
      out.push({ text: own, weight: getComputedStyle(el).fontWeight });
    }
    return out;
  }, JAPANESE.source);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: '[data-glyph-check]' });
  const checks: GlyphCheck[] = [];
  for (const nodeId of nodeIds) {
    const { attributes } = await cdp.send('DOM.getAttributes', { nodeId });
    const index = Number(attributes[attributes.indexOf('data-glyph-check') + 1]);
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    const { text, weight } = found[index]!;
    checks.push({
      text,
      weight,
      japanese: text.match(JAPANESE)?.length ?? 0,
      shipped: fonts.filter((f) => f.isCustomFont && /Noto Sans JP/i.test(f.familyName)).reduce((s, f) => s + f.glyphCount, 0),
      fonts: fonts.map((f) => `${f.familyName}${f.isCustomFont ? ' (web)' : ''}×${f.glyphCount}`).join(', '),
    });
  }
  await cdp.send('CSS.disable');
  await page.evaluate(() => document.querySelectorAll('[data-glyph-probe]').forEach((e) => e.remove()));
  return checks;
}

/** The checks whose Japanese characters were not all drawn by the shipped font (boxes), as readable lines. */
export function boxes(checks: GlyphCheck[]): string[] {
  return checks.filter((c) => c.shipped < c.japanese).map((c) => `"${c.text}" (weight ${c.weight}): ${c.fonts}`);
}
