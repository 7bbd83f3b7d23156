import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderPdf, type PdfDocument } from '../src/pdf/index.js';
import { pdfInfo, pdfPages } from './pdf-text.js';

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200">
  <rect x="20" y="40" width="60" height="140" fill="#4f7cac"/>
  <rect x="100" y="90" width="60" height="90" fill="#e07a5f"/>
  <text x="20" y="25" font-size="16" font-family="sans-serif">特徴量の重要度 importance</text>
</svg>`;

async function pngChart(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 150, channels: 3, background: { r: 80, g: 130, b: 200 } } })
    .png()
    .toBuffer();
}

function model(language: 'en' | 'ja', png: Buffer, rows = 120): PdfDocument {
  return {
    title: language === 'ja' ? '学習レポート：アヤメの分類' : 'Training report: iris classification',
    subtitle: language === 'ja' ? 'プロジェクト「品質予測」' : 'Project "quality"',
    language,
    header: 'Mitate',
    footer: language === 'ja' ? '作成 2026-11-23' : 'Created 2026-11-23',
    blocks: [
      { kind: 'heading', text: language === 'ja' ? '設定' : 'Settings' },
      {
        kind: 'keyValue',
        rows: [
          { label: language === 'ja' ? '目的変数' : 'Target', value: '品種 (species)' },
          { label: language === 'ja' ? '評価方法' : 'Evaluation', value: '5-fold CV' },
        ],
      },
      { kind: 'paragraph', text: '交差検証のスコアで最良モデルを選びました。テストデータの値は選択に使っていません。' },
      { kind: 'bullets', items: ['ロジスティック回帰', 'Random forest'] },
      { kind: 'image', format: 'png', data: png, width: 300, caption: 'PNG chart 図1' },
      { kind: 'image', format: 'svg', data: SVG, width: 360, caption: 'SVG chart 図2' },
      { kind: 'heading', text: language === 'ja' ? '予測値' : 'Predictions', level: 2 },
      {
        kind: 'table',
        columns: [{ label: '行' }, { label: '実測値', align: 'right' }, { label: '予測値', align: 'right' }],
        rows: Array.from({ length: rows }, (_, i) => [`row-${i + 1}`, (i * 1.5).toFixed(2), (i * 1.4).toFixed(2)]),
        emphasisRows: [0],
      },
      { kind: 'paragraph', text: 'END-OF-DOCUMENT 終わり', tone: 'muted' },
    ],
  };
}

describe('shared PDF renderer', () => {
  it('renders Japanese and Latin text, tables across pages with the header repeated, images and page numbers', async () => {
    const pdf = await renderPdf(model('ja', await pngChart()));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const info = pdfInfo(pdf);
    expect(info.Title).toBe('学習レポート：アヤメの分類');
    const pages = pdfPages(pdf);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(Number(info.Pages)).toBe(pages.length);
    const all = pages.join('\n');
    for (const s of ['学習レポート：アヤメの分類', '目的変数', '品種 (species)', '交差検証のスコアで最良モデルを選びました', 'ロジスティック回帰', '図1', '図2', 'END-OF-DOCUMENT 終わり']) {
      expect(all).toContain(s);
    }
    // Every table row once, in order; the header row again on each page the table continues on.
    for (let i = 1; i <= 120; i++) expect(all.match(new RegExp(`\\brow-${i}\\b`, 'g'))?.length).toBe(1);
    expect(all.indexOf('row-119')).toBeGreaterThan(all.indexOf('row-2 '));
    const tablePages = pages.filter((p) => /row-\d+/.test(p));
    expect(tablePages.length).toBeGreaterThanOrEqual(2);
    for (const p of tablePages) expect(p).toMatch(/行\s+実測値\s+予測値/);
    // The SVG's text is drawn with the embedded font, so it reads back.
    expect(all).toContain('特徴量の重要度');
    pages.forEach((p, i) => {
      expect(p).toContain(`${i + 1} / ${pages.length} ページ`);
      expect(p).toContain('作成 2026-11-23');
    });
  });

  it('labels pages in English for an English document', async () => {
    const pdf = await renderPdf(model('en', await pngChart(), 10));
    const pages = pdfPages(pdf);
    pages.forEach((p, i) => expect(p).toContain(`Page ${i + 1} of ${pages.length}`));
    expect(pages.join('\n')).toContain('Training report: iris classification');
  });

  it('draws kanji and kana as glyphs, not blanks (page rendered to an image has ink in the title line)', async () => {
    const pdf = await renderPdf({ title: '漢字とかな', language: 'ja', blocks: [{ kind: 'paragraph', text: '日本語の段落です。' }] });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-pdf-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.pdf'), pdf);
      execFileSync('pdftoppm', ['-r', '60', '-png', '-f', '1', '-l', '1', path.join(dir, 'a.pdf'), path.join(dir, 'p')]);
      const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
      const { data, info } = await sharp(path.join(dir, png)).greyscale().raw().toBuffer({ resolveWithObject: true });
      // The title sits in the first ~110 points (≈ 90 px at 60 dpi) below the top margin.
      let dark = 0;
      for (let y = 40; y < 100; y++) for (let x = 0; x < info.width; x++) if (data[y * info.width + x]! < 128) dark++;
      expect(dark).toBeGreaterThan(150);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
