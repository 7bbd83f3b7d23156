import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
let server: RunningServer;
let browser: Browser;
const fontDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-fonts-'));

before(async () => {
  server = await startServer();
  // A browser that sees only Latin fonts (DejaVu, Liberation): like a shop-floor kiosk with no Japanese font.
  const conf = path.join(fontDir, 'fonts.conf');
  fs.writeFileSync(
    conf,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>/usr/share/fonts/truetype</dir><cachedir>${fontDir}/cache</cachedir></fontconfig>`,
  );
  browser = await launchBrowser({ FONTCONFIG_FILE: conf });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  fs.rmSync(fontDir, { recursive: true, force: true });
});

test('Japanese renders with the shipped font where the machine has none; assets arrive compressed and cached', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await context.addInitScript(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  const page = await context.newPage();
  const fonts: { url: string; status: number; cache: string }[] = [];
  const scripts: { encoding: string; cache: string }[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.woff2')) fonts.push({ url: r.url(), status: r.status(), cache: r.headers()['cache-control'] ?? '' });
    if (r.request().resourceType() === 'script') scripts.push({ encoding: r.headers()['content-encoding'] ?? '', cache: r.headers()['cache-control'] ?? '' });
  });
  const doc = await page.goto(`${server.url}/login`);
  assert.equal(doc!.headers()['cache-control'], 'no-cache');
  await page.getByRole('button', { name: 'サインイン' }).waitFor();
  await page.evaluate(() => document.fonts.ready);
  // The Japanese glyphs came from our font: some of its subsets were fetched and loaded, not all 124 of them.
  const loaded = await page.evaluate(() => [...document.fonts].filter((f) => f.family.includes('Noto Sans JP') && f.status === 'loaded').length);
  assert.ok(loaded > 0, 'no subset of the shipped Japanese font was loaded');
  assert.ok(fonts.length > 0 && fonts.length < 60, `fetched ${fonts.length} font subsets`);
  for (const f of fonts) {
    assert.equal(f.status, 200, f.url);
    assert.match(f.cache, /immutable/);
  }
  assert.ok(scripts.length > 0);
  for (const s of scripts) {
    assert.equal(s.encoding, 'br');
    assert.match(s.cache, /immutable/);
  }
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'font-ja-no-system-cjk.png') });
  await context.close();
});
