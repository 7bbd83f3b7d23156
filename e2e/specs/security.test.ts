import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, ROOT, SHARED_DATA, type RunningServer, startServer } from '../support/server.ts';
import { PASSWORD, signUp } from '../support/session.ts';

/**
 * Issue 18 item 2 in a real Chromium: the built web app (MUI, ECharts) and swagger-ui at /api/docs run under
 * the Content-Security-Policy the server sends, with no violation reported.
 */
const SHOTS = process.env.E2E_SCREENSHOTS;
const CSV = path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv');

let server: RunningServer;
let browser: Browser;
let email: string;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  email = `csp.${Date.now()}@example.com`;
  const { token } = await signUp(server, { email, first_name: 'Sora', last_name: 'Aoki', organisation_name: 'Policy Works' });
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'Valve CSP', data_type: 'training_data', type: 'unsupervised', training_type: 'regression', category: 'pump', comment: '', datetime_column: 'datetime' })) form.append(k, v);
  form.append('file', new Blob([fs.readFileSync(CSV)]), '0.csv');
  const up = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(up.status, 201, await up.clone().text());
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A page that records every CSP violation the browser reports (event and console both). */
async function watchedPage(locale: string): Promise<{ page: Page; violations: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale });
  const page = await ctx.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.exposeFunction('__cspViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return { page, violations };
}

test('the built index.html has no inline script', () => {
  const html = fs.readFileSync(path.join(ROOT, 'web', 'dist', 'index.html'), 'utf8');
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i);
});

test('the web app signs in and draws ECharts under the policy without a violation', async () => {
  const { page, violations } = await watchedPage('en-GB');
  const res = await page.goto(`${server.url}/login`);
  assert.match(res!.headers()['content-security-policy'], /script-src 'self'/);
  assert.equal(res!.headers()['x-frame-options'], 'DENY');
  await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dataset$/);
  await page.goto(`${server.url}/visualization`);
  await page.getByRole('cell', { name: 'Valve CSP' }).click();
  await page.waitForURL(/\/visualization\/details\//);
  await page.getByRole('tab', { name: 'Distributions' }).click();
  await page.getByTestId('histogram-chart').locator('canvas').first().waitFor({ timeout: 180_000 });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'csp-histogram.png') });
  // MUI's emotion styles applied: the app bar is not an unstyled block.
  const position = await page.locator('header').first().evaluate((el) => getComputedStyle(el).position);
  assert.notEqual(position, 'static');
  assert.deepEqual(violations, []);
});

test('swagger-ui at /api/docs renders its operations under the policy', async () => {
  const { page, violations } = await watchedPage('ja-JP');
  await page.goto(`${server.url}/api/docs`);
  // Rendered by swagger-ui's scripts: only possible if the policy lets them run.
  const deadline = Date.now() + 60_000;
  let blocks = 0;
  while ((blocks = await page.locator('.opblock').count()) < 5 && Date.now() < deadline) await page.waitForTimeout(250);
  assert.ok(blocks >= 5, `${blocks} operations shown; violations: ${violations.join(', ')}`);
  await page.locator('.opblock-summary-path', { hasText: '/api/dataset/register' }).first().waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'csp-docs.png') });
  assert.deepEqual(violations, []);
});

test('a page of ours cannot be framed', async () => {
  const { page, violations } = await watchedPage('en-GB');
  await page.goto(`${server.url}/api/docs/json`);
  await page.setContent(`<iframe id="f" src="${server.url}/login"></iframe>`);
  await page.waitForTimeout(1500);
  const framed = page.frames().find((f) => f.url().startsWith(`${server.url}/login`));
  const hasApp = framed ? await framed.locator('#root').count().catch(() => 0) : 0;
  assert.equal(hasApp, 0);
  void violations;
});
