import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { boxes, type GlyphCheck, japaneseGlyphs } from '../support/glyphs.ts';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { apiJson, signIn, signUp, uploadDataset } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
let server: RunningServer;
let browser: Browser;
const fontDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-fonts-'));

before(async () => {
  server = await startServer();
  // A browser that sees only the machine's fonts without Japanese glyphs, with the system's own fontconfig rules
  // (Arial is Liberation Sans, sans-serif is DejaVu...): like a Linux desktop or kiosk with no Japanese font.
  // Without those rules no generic family resolves and the boxes a real machine shows never appear.
  const fcList = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    execFileSync('fc-list', [...args, '--format', '%{file}\\n'], { env, encoding: 'utf8' }).split('\n').filter(Boolean);
  const japaneseFonts = new Set(fcList([':lang=ja']));
  const latin = path.join(fontDir, 'fonts');
  fs.mkdirSync(latin);
  for (const file of new Set(fcList([]))) if (!japaneseFonts.has(file)) fs.symlinkSync(file, path.join(latin, `${fs.readdirSync(latin).length}-${path.basename(file)}`));
  const conf = path.join(fontDir, 'fonts.conf');
  fs.writeFileSync(
    conf,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>${latin}</dir><include ignore_missing="yes">/etc/fonts/conf.d</include><cachedir>${fontDir}/cache</cachedir></fontconfig>`,
  );
  const env = { ...process.env, FONTCONFIG_FILE: conf };
  assert.ok(fcList([], env).length > 0, 'the test browser must see some Latin font');
  assert.deepEqual(fcList([':lang=ja'], env), [], 'the test browser must see no Japanese system font');
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

/** The weights the theme draws text at (MUI's light/regular/medium/bold and the theme's 600 for headings,
 * buttons and grid headers): each is probed besides the weights the page's own elements use. */
const THEME_WEIGHTS = [300, 400, 500, 600, 700];

test('every visible Japanese string is drawn with real glyphs on a machine without Japanese fonts', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const failures: string[] = [];
  const weights = new Set<string>();
  const check = async (where: string, p: Page) => {
    await p.waitForLoadState('networkidle');
    const checks: GlyphCheck[] = await japaneseGlyphs(p, cdp, THEME_WEIGHTS);
    assert.ok(checks.length > THEME_WEIGHTS.length, `${where}: no Japanese text found`);
    for (const c of checks) weights.add(c.weight);
    failures.push(...boxes(checks).map((b) => `${where}: ${b}`));
    if (SHOTS) await p.screenshot({ path: path.join(SHOTS, `glyphs-${where}.png`) });
  };

  await page.goto(`${server.url}/login`);
  await page.getByRole('button', { name: 'サインイン' }).waitFor();
  await check('login', page);

  const account = await signUp(server, { first_name: '花子', last_name: '鈴木', organisation_name: '神戸製鋼所' });
  // Japanese column names and categories: the grid's headers and the chart's axis labels are Japanese.
  const rows = ['地域,売上金額,数量', ...Array.from({ length: 30 }, (_, i) => `${['東京', '大阪', '名古屋', '福岡'][i % 4]},${(i * 7.3).toFixed(1)},${i % 5}`)];
  const id = await uploadDataset(server, account.token, '売上データ', 'sales.csv', rows.join('\n'));
  // Japanese in the profile too, so that signing in does not switch the page to the profile's language and reload.
  await apiJson(server, 'PUT', '/account/api/settings', account.token, { language: 'ja-jp' });
  await signIn(page, server, account.email, 'ja');
  await page.getByRole('link', { name: 'データセット' }).first().waitFor();
  await check('drawer', page);

  await page.goto(`${server.url}/dataset/details/${id}/training_data`);
  await page.getByRole('columnheader', { name: '売上金額' }).waitFor();
  await check('grid', page);

  await page.getByRole('tab', { name: '統計量' }).click();
  // The category chart's axis labels are SVG text (the charts draw with the SVG renderer).
  await page.locator('svg text', { hasText: '名古屋' }).first().waitFor();
  await check('chart', page);

  assert.deepEqual(failures, [], `drawn as boxes:\n${failures.join('\n')}`);
  for (const w of THEME_WEIGHTS) assert.ok(weights.has(String(w)), `weight ${w} not checked: ${[...weights]}`);
  await context.close();
});
