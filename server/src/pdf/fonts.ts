import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Noto Sans JP (SIL OFL) from the @expo-google-fonts/noto-sans-jp npm package: whole static TTFs (Latin, kana and
 * kanji in one file), so nothing is fetched at run time. PDFs and HTML reports embed only the glyphs they use.
 * Read once: the files are part of the installation and never change while it runs.
 */
let fontCache: { regular: Buffer; bold: Buffer } | null = null;
export function fonts(): { regular: Buffer; bold: Buffer } {
  if (!fontCache) {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve('@expo-google-fonts/noto-sans-jp/package.json'));
    fontCache = {
      regular: fs.readFileSync(path.join(dir, '400Regular', 'NotoSansJP_400Regular.ttf')),
      bold: fs.readFileSync(path.join(dir, '700Bold', 'NotoSansJP_700Bold.ttf')),
    };
  }
  return fontCache;
}
