import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp, shooter } from '../support/app.ts';
import type { RunningServer } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'doe-e2e-'));

let server: RunningServer;
let browser: Browser;
let page: Page;

const shot = shooter('doe', () => page);

before(async () => {
  ({ server, browser, page } = await openApp({ acceptDownloads: true }));
});

after(async () => {
  await closeApp({ server, browser });
  fs.rmSync(TMP, { recursive: true, force: true });
});

test('optimal design: a constrained 3-component mixture with an exclude file → 10 D-optimal runs on a ternary plot → experiment sheet → results → next 4 by BO', async () => {
  const { email } = await signUp(server, { prefix: 'doe', first_name: 'Aiko', last_name: 'Mori', organisation_name: 'Osaka Coatings' });
  await signIn(page, server, email);

  await page.getByRole('navigation', { name: 'Main menu' }).getByText('Design of Experiments', { exact: true }).first().click();
  await page.waitForURL(/\/optimal-design$/);
  await page.getByRole('link', { name: 'New design' }).click();
  await page.waitForURL(/\/optimal-design\/register$/);

  // Algorithm
  await page.getByRole('radio', { name: /^D-optimal/ }).check();
  await shot('01-algorithm');
  await page.getByRole('button', { name: 'Next' }).click();

  // Parameters: bounds, a linear constraint, the result's name, the exclude file
  const bounds: Record<string, [string, string]> = { A: ['0.1', '0.6'], B: ['0.1', '0.7'], C: ['0.05', '0.5'] };
  for (const [name, [lo, hi]] of Object.entries(bounds)) {
    await page.getByRole('textbox', { name: `Lower ${name}` }).fill(lo);
    await page.getByRole('textbox', { name: `Upper ${name}` }).fill(hi);
  }
  await page.getByRole('textbox', { name: 'Lower A' }).fill('0.12345678');
  assert.equal(await page.getByRole('button', { name: 'Next' }).isDisabled(), true, 'more than 7 decimals is refused');
  await page.getByRole('textbox', { name: 'Lower A' }).fill('0.1');
  await page.getByRole('textbox', { name: 'Results to measure (comma separated)' }).fill('gloss');
  const exclude = path.join(TMP, 'exclude.csv');
  fs.writeFileSync(exclude, 'A,B,C\n0.6,0.3,0.1\n0.1,0.7,0.2\n');
  await page.getByTestId('exclude-file').setInputFiles(exclude);
  await page.getByText('exclude.csv').waitFor();
  await shot('02-parameters');
  await page.getByRole('button', { name: 'Next' }).click();

  // Project info, preview, create
  await page.getByRole('textbox', { name: 'Project name' }).fill('Coating blend');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('exclude.csv (±0.01)').waitFor();
  await shot('03-preview');
  await page.getByRole('button', { name: 'Create and start' }).click();
  await page.waitForURL(/\/optimal-design\/details\/[^/]+$/, { timeout: 240_000 });
  const projectUrl = page.url();

  const table = page.getByRole('table', { name: 'Design', exact: true });
  await table.waitFor({ timeout: 240_000 });
  assert.equal(await table.locator('tbody tr').count(), 10);
  const runs = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1, 4).map((c) => Number(c.textContent))));
  for (const [a, b, c] of runs) {
    assert.ok(Math.abs(a + b + c - 1) <= 1e-9, `sum ${a + b + c}`);
    assert.ok(a >= 0.1 - 1e-9 && a <= 0.6 + 1e-9 && b >= 0.1 - 1e-9 && b <= 0.7 + 1e-9 && c >= 0.05 - 1e-9 && c <= 0.5 + 1e-9);
    assert.ok(!(Math.abs(a - 0.6) <= 0.005 && Math.abs(b - 0.3) <= 0.006), 'an excluded blend was proposed');
  }
  await page.getByRole('img', { name: 'Ternary plot' }).waitFor();
  await page.getByRole('table', { name: 'Design quality' }).getByText('D-efficiency').waitFor();
  await shot('04-design');

  // The experiment sheet, filled in with measured results, closes the loop
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Experiment sheet' }).click()]);
  assert.match(download.suggestedFilename(), /\.csv$/);
  const sheet = fs.readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
  assert.equal(sheet[0], 'round,run,A,B,C,gloss');
  const filled = [sheet[0], ...sheet.slice(1).map((line) => {
    const [, , a, , c] = line.split(',').map(Number);
    return `${line}${(80 - 100 * (a - 0.4) ** 2 - 60 * (c - 0.3) ** 2).toFixed(3)}`;
  })].join('\n');
  const results = path.join(TMP, 'results.csv');
  fs.writeFileSync(results, filled);
  await page.getByTestId('results-file').setInputFiles(results);
  await page.getByRole('textbox', { name: 'Number of output conditions' }).fill('4');
  await page.getByRole('button', { name: 'Propose next runs' }).click();
  await page.waitForURL(/\/optimal-design\/details\/[^/]+\/2$/, { timeout: 240_000 });
  const next = page.getByRole('table', { name: 'Design', exact: true });
  await next.getByText('Predicted mean').waitFor({ timeout: 240_000 });
  assert.equal(await next.locator('tbody tr').count(), 4);
  await page.getByRole('img', { name: 'Ternary plot' }).waitFor();
  await shot('05-bo-en');

  // Japanese
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.goto(`${projectUrl}/2`);
  await page.getByRole('table', { name: '計画', exact: true }).getByText('予測平均').waitFor({ timeout: 180_000 });
  await page.getByRole('img', { name: '三角図' }).waitFor();
  await shot('06-bo-ja');
  await page.goto(projectUrl.replace(/\/details\/.*$/, ''));
  await page.getByRole('link', { name: 'Coating blend' }).waitFor();
  await shot('07-list-ja');
});
