import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, type RunningServer, SHARED_DATA, startServer } from '../support/server.ts';
import { confirmDialog, signIn, signUp, trainRegression, uploadDataset, verifyIdentity } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS; // a folder: save a screenshot of each step to look at
const ADMIN = `platform.admin.${Date.now()}@example.com`;
const CCPP = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'), 'utf8').trim().split('\n').slice(0, 1001).join('\n') + '\n';

let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '1', ...(process.env.MITATE_WEB_DIST ? { MITATE_WEB_DIST: process.env.MITATE_WEB_DIST } : {}) });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const account = async (email: string, org: string) => (await signUp(server, { email, first_name: 'Aiko', last_name: 'Sato', organisation_name: org })).token;

test('hosted APIs: publish a regression model, approve as administrator, create a key, call the API, see the statistics', async () => {
  const email = `publisher.${Date.now()}@example.com`;
  const token = await account(email, 'Kobe Power');
  const adminToken = await account(ADMIN, 'Mitate Platform');

  // A trained regression model through the API (the training spec covers those screens).
  const datasetId = await uploadDataset(server, token, 'Power plant', 'ccpp.csv', CCPP);
  await trainRegression(server, token, datasetId, { name: 'Power output', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models: [{ algorithm: 'lightgbm' }] });
  // The organisation's identity, verified by the administrator (SPEC §4: otherwise not approved).
  await verifyIdentity(server, token, adminToken);

  // The publisher: the hosted APIs list, publishing form with prices, a draft submitted for review.
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB', acceptDownloads: true });
  const page = await ctx.newPage();
  const shot = async (p: Page, name: string) => SHOTS && (await p.screenshot({ path: path.join(SHOTS, `pl-${name}.png`), fullPage: true }));
  await signIn(page, server, email);
  await page.getByRole('navigation', { name: 'Main menu' }).getByText('Hosted APIs', { exact: true }).click();
  await page.waitForURL(/\/platform$/);
  await page.getByText('No hosted APIs yet').waitFor();
  await page.getByRole('link', { name: 'Publish a model' }).click();
  await page.waitForURL(/\/platform\/new$/);
  await page.getByRole('textbox', { name: 'Name' }).fill('Power output API');
  await page.getByRole('textbox', { name: 'Key (in the URL)' }).fill('power-output');
  await page.getByRole('textbox', { name: 'CPU cores' }).fill('2');
  await page.getByTestId('price-total').filter({ hasText: '¥' }).waitFor();
  const total1 = await page.getByTestId('price-total').textContent();
  await page.getByRole('textbox', { name: 'Memory (GB)' }).fill('4');
  await page.waitForFunction((before) => document.querySelector('[data-testid="price-total"]')?.textContent !== before, total1);
  await page.getByRole('textbox', { name: 'Expected requests per month' }).fill('3000000000');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.getByText('Expected request count must be below 2,147,483,647.').waitFor();
  await page.getByRole('textbox', { name: 'Expected requests per month' }).fill('500000');
  await shot(page, '01-publish');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL(/\/platform\/details\//);
  await page.getByText('Credentials can be created once the project is approved.').waitFor();

  // The draft edited with the same form, filled with its values: the new name and CPU cores on the details page.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL(/\/platform\/edit\//);
  const nameBox = page.getByRole('textbox', { name: 'Name' });
  assert.equal(await nameBox.inputValue(), 'Power output API');
  assert.equal(await page.getByRole('textbox', { name: 'CPU cores' }).inputValue(), '2');
  assert.equal(await page.getByRole('textbox', { name: 'Expected requests per month' }).inputValue(), '500000');
  await page.getByTestId('price-total').filter({ hasText: '¥' }).waitFor();
  await nameBox.fill('Power output API v2');
  await page.getByRole('textbox', { name: 'CPU cores' }).fill('3');
  await shot(page, '01b-edit');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(/\/platform\/details\//);
  await page.getByRole('heading', { name: 'Power output API v2' }).waitFor();
  await page.locator('dt:text-is("CPU cores") + dd').filter({ hasText: /^3$/ }).waitFor();
  await page.locator('dt:text-is("Memory (GB)") + dd').filter({ hasText: /^4$/ }).waitFor(); // unchanged
  await shot(page, '01c-details-edit');
  // the same two pages in Japanese
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('link', { name: '編集' }).waitFor();
  await shot(page, '01d-details-edit-ja');
  await page.getByRole('link', { name: '編集' }).click();
  await page.getByTestId('price-total').waitFor();
  await shot(page, '01e-edit-ja');
  await page.getByRole('button', { name: 'キャンセル' }).click();
  await page.waitForURL(/\/platform\/details\//);
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();
  await page.getByText('Credentials can be created once the project is approved.').waitFor();
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await confirmDialog(page, 'Submit for review');
  await page.locator('[data-status="under_review"]').first().waitFor();

  // The administrator approves it.
  const adminCtx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' });
  const adminPage = await adminCtx.newPage();
  await signIn(adminPage, server, ADMIN);
  await adminPage.goto(`${server.url}/admin/platform`);
  const row = adminPage.locator('tr[data-project="power-output"]');
  await row.getByText('Verified').waitFor();
  await shot(adminPage, '02-review');
  await row.getByRole('button', { name: 'Approve' }).click();
  await confirmDialog(adminPage, 'Approve');
  await row.waitFor({ state: 'detached' }); // it leaves the queue of projects under review
  await adminCtx.close();

  // The publisher starts it and creates a key: shown once, with the download.
  await page.reload();
  await page.getByRole('button', { name: 'Start' }).click();
  await confirmDialog(page, 'Start');
  await page.locator('[data-status="running"]').first().waitFor();
  await page.getByRole('button', { name: 'New credential' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  await page.getByText('This field is required.').waitFor(); // SPEC §5: credential name required
  await page.getByRole('textbox', { name: 'Credential name' }).fill('Factory line 1');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  await page.getByText('Download credentials before closing because they cannot be downloaded again.').waitFor();
  const secret = await page.getByTestId('api-secret').inputValue();
  assert.match(secret, /^mk_live_/);
  await shot(page, '03-secret');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download credentials' }).click()]);
  const saved = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  assert.equal(saved.api_key, secret);
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('cell', { name: `${secret.slice(0, 16)}…` }).waitFor(); // afterwards only the prefix
  assert.equal(await page.getByText(secret).count(), 0);

  // The API called from here, as another system would.
  const endpoint = (await page.getByTestId('endpoint').textContent())!.replace(/^https?:\/\/[^/]+/, server.url);
  for (const ua of ['python-requests/2.32.3', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1', 'curl/8.5.0']) {
    const res = await fetch(endpoint, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'user-agent': ua }, body: JSON.stringify({ rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] }) });
    assert.equal(res.status, 200, await res.clone().text());
    const out = (await res.json()).detail.response;
    assert.ok(Math.abs(out.predictions[0].predicted_EP - 480.48) < 15, JSON.stringify(out));
  }
  const bad = await fetch(endpoint, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify({ rows: [{ AT: 8.34, V: 40.77, AP: 1010.84 }] }) });
  assert.equal(bad.status, 422);
  assert.deepEqual((await bad.json()).detail[0].loc, ['body', 'RH']);

  // The statistics show those calls: 3 answered (billed), the 422 refused apart by reason (not billed).
  await page.reload();
  await page.getByTestId('stats-total').filter({ hasText: '3' }).waitFor();
  await page.getByTestId('stats-refused').filter({ hasText: '1' }).waitFor();
  await page.getByTestId('refusals-input').filter({ hasText: '1' }).waitFor();
  assert.equal(await page.getByTestId('refusals-key').textContent(), 'No or wrong API key (401)0');
  await page.getByRole('cell', { name: '/serve/power-output/predict' }).waitFor();
  await page.getByRole('img', { name: 'Browsers' }).or(page.getByLabel('Browsers')).first().waitFor();
  await page.getByRole('cell', { name: 'Never' }).waitFor({ state: 'detached' }); // last used is set
  await shot(page, '04-details');

  // In Japanese.
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('heading', { name: 'リクエスト統計' }).waitFor();
  await page.getByText('稼働中').first().waitFor();
  await shot(page, '05-details-ja');
  await page.goto(`${server.url}/platform`);
  await page.getByRole('cell', { name: 'Power output API' }).waitFor();
  await shot(page, '06-list-ja');
  await page.goto(`${server.url}/platform/new`);
  await page.getByTestId('price-total').waitFor();
  await shot(page, '07-publish-ja');
  await ctx.close();
});
