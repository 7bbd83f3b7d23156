import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, type RunningServer, SHARED_DATA, startServer } from '../support/server.ts';
import { apiJson, confirmDialog, signIn, signUp, trainRegression, uploadDataset, verifyIdentity } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS; // a folder: save a screenshot of each step to look at
const ADMIN = `billing.admin.${Date.now()}@example.com`;
const CCPP = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'), 'utf8').trim().split('\n').slice(0, 301).join('\n') + '\n';

let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer({
    MITATE_PLATFORM_ADMINS: ADMIN,
    MITATE_SERVE_WORKERS: '1',
    MITATE_TEST_CLOCK: '1',
    MITATE_BANK_NAME: 'Mitate Bank',
    MITATE_BANK_CODE: '0999',
    MITATE_BANK_BRANCH_NAME: 'Head Office',
    MITATE_BANK_BRANCH_CODE: '001',
    MITATE_BANK_ACCOUNT_TYPE: 'organisation',
    MITATE_BANK_ACCOUNT_NUMBER: '1234567',
    MITATE_BANK_ACCOUNT_HOLDER: 'Mitate K.K.',
    ...(process.env.MITATE_WEB_DIST ? { MITATE_WEB_DIST: process.env.MITATE_WEB_DIST } : {}),
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const json = (method: string, url: string, token?: string, body?: unknown) => apiJson(server, method, url, token, body);
const account = async (email: string, org: string) => (await signUp(server, { email, first_name: 'Aiko', last_name: 'Sato', organisation_name: org })).token;

test('invoices: receive an invoice, overdue locks the API, pay by transfer, administrator confirms, cleared and unlocked; a wallet payment', async () => {
  const email = `payer.${Date.now()}@example.com`;
  const token = await account(email, 'Kobe Power');
  const adminToken = await account(ADMIN, 'Mitate Platform');

  // Set-up through the API (the platform and account specs cover those screens): a trained model, identity verified,
  // two hosted APIs approved and running.
  const datasetId = await uploadDataset(server, token, 'Power plant', 'ccpp.csv', CCPP);
  const { pid, modelKey } = await trainRegression(server, token, datasetId, { name: 'Power output', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models: [{ algorithm: 'linear' }] });
  await verifyIdentity(server, token, adminToken);
  const apis: { id: string; key: string }[] = [];
  for (const [name, key] of [
    ['Power output API', `power-${Date.now()}`],
    ['Forecast API', `forecast-${Date.now()}`],
  ]) {
    const p = await json('POST', '/api/platform/projects', token, { name, key, project_id: pid, model_key: modelKey, content_language: 'ja', subscription_type: 'standard', billing_cycle: 'monthly', cpu_cores: 1, memory_gb: 2 });
    await json('POST', `/api/platform/projects/${p.id}/submit`, token);
    await json('POST', `/api/platform/admin/projects/${p.id}/review`, adminToken, { decision: 'approve' });
    await json('POST', `/api/platform/projects/${p.id}/start`, token);
    apis.push({ id: p.id, key });
  }
  const secret = (await json('POST', `/api/platform/projects/${apis[0].id}/credentials`, token, { name: 'line 1', kind: 'production' })).secret as string;
  const serve = () =>
    fetch(`${server.url}/serve/${apis[0].key}/predict`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify({ rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] }) });
  // the first call starts the serving process, which may take a while on a loaded machine
  for (let i = 0; ; i++) {
    const res = await serve();
    if (res.status === 200) break;
    assert.ok(i < 60 && res.status === 503, `not served: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 2000));
  }

  // The billing sweep (hourly; run now by the administrator) issues the invoices of this billing period.
  const swept = await json('POST', '/api/billing/admin/sweep', adminToken);
  assert.equal(swept.generated, 2);
  // the list the page asks for: a failure here says what the server answered, not only which cell is missing
  const listed = await json('GET', '/api/billing/invoices?state=all&page_size=200', token);
  assert.deepEqual(listed.items.map((i: { project_name: string }) => i.project_name).sort(), ['Forecast API', 'Power output API']);

  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB', acceptDownloads: true });
  const page = await ctx.newPage();
  const shot = async (p: Page, name: string) => SHOTS && (await p.screenshot({ path: path.join(SHOTS, `inv-${name}.png`), fullPage: true }));
  await signIn(page, server, email);
  await page.getByRole('navigation', { name: 'Main menu' }).getByText('Invoices', { exact: true }).click();
  await page.waitForURL(/\/invoices$/);
  await page
    .getByRole('cell', { name: 'Power output API' })
    .waitFor()
    .catch(async (e: Error) => {
      throw new Error(`${e.message}\nat ${page.url()}, the page said:\n${(await page.locator('body').innerText()).slice(0, 2000)}`);
    });
  await page.getByRole('cell', { name: 'Forecast API' }).waitFor();
  assert.equal(await page.locator('[data-state="billed"]').count(), 2);
  await shot(page, '01-list');

  // Past the due date: the invoices become overdue and the APIs are locked (402, and the project page says so).
  await json('POST', '/api/billing/admin/test-clock', adminToken, { advance_hours: 15 * 24 });
  assert.equal((await json('POST', '/api/billing/admin/sweep', adminToken)).overdue, 2);
  for (let i = 0; ; i++) {
    const res = await serve();
    if (res.status === 402) {
      assert.equal((await res.json()).detail.response, 'Project locked for unpaid invoice.');
      break;
    }
    assert.ok(i < 30, `still served: ${res.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.goto(`${server.url}/platform/details/${apis[0].id}`);
  await page.getByTestId('project-locked').getByText('Project locked for unpaid invoice.').waitFor();
  await shot(page, '02-project-locked');

  // Pay the first by bank transfer: total amount → payment method → 'Transfer completed'.
  await page.getByTestId('project-locked').getByRole('link', { name: 'Open the invoice' }).click();
  await page.waitForURL(/\/invoices\/[^/]+$/);
  await page.locator('[data-state="overdue"]').waitFor();
  await page.getByText('is locked until the payment is confirmed').waitFor();
  const invoiceUrl = page.url();
  await shot(page, '03-detail-overdue');
  const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
  assert.equal(fs.readFileSync((await pdf.path())!).subarray(0, 5).toString(), '%PDF-');
  await page.getByRole('link', { name: 'Pay' }).click();
  await page.waitForURL(/\/payment$/);
  const total = await page.getByTestId('pay-total').textContent();
  assert.match(total ?? '', /¥[\d,]+/);
  await shot(page, '04-pay-total');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByTestId('bank-details').getByText('Mitate Bank').waitFor();
  assert.match((await page.getByTestId('transfer-reference').textContent()) ?? '', /^MITATE [0-9A-F]{8}$/);
  await shot(page, '05-pay-transfer');
  await page.getByRole('button', { name: 'Transfer completed' }).click();
  await confirmDialog(page, 'Transfer completed');
  await page.waitForURL(invoiceUrl);
  await page.locator('[data-state="pending_confirmation"]').waitFor();
  assert.equal((await serve()).status, 402); // locked until the payment is confirmed

  // A platform administrator confirms the transfer.
  const adminCtx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' });
  const adminPage = await adminCtx.newPage();
  await signIn(adminPage, server, ADMIN);
  await adminPage.goto(`${server.url}/admin/billing`);
  const row = adminPage.locator('tr[data-invoice]').filter({ hasText: 'Power output API' });
  await row.waitFor();
  await shot(adminPage, '06-admin');
  await row.getByRole('button', { name: 'Confirm' }).click();
  await confirmDialog(adminPage, 'Confirm');
  await row.waitFor({ state: 'detached' });

  // Cleared, and the API answers again at once.
  await page.reload();
  await page.locator('[data-state="cleared"]').waitFor();
  await page.getByText('Paid on').waitFor();
  await shot(page, '07-detail-cleared');
  for (let i = 0; ; i++) {
    const res = await serve();
    if (res.status === 200) break;
    assert.ok(i < 60 && res.status !== 402, `still locked: ${res.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.goto(`${server.url}/platform/details/${apis[0].id}`);
  await page.getByRole('heading', { name: 'Request statistics' }).waitFor();
  assert.equal(await page.getByTestId('project-locked').count(), 0);

  // The wallet: a top-up by transfer, confirmed by the administrator, then the second invoice paid from it at once.
  const second = (await json('GET', '/api/billing/invoices?state=overdue', token)).items[0];
  await page.goto(`${server.url}/wallet`);
  await page.getByTestId('wallet-balance').filter({ hasText: '¥0' }).waitFor();
  await page.getByRole('textbox', { name: /Amount/ }).fill(String(second.amount_due));
  await shot(page, '08-wallet-topup');
  await page.getByRole('button', { name: 'Transfer completed' }).click();
  await confirmDialog(page, 'Transfer completed');
  await page.locator('tr[data-topup="pending_confirmation"]').waitFor();
  await adminPage.reload();
  const top = adminPage.locator('tr[data-topup]').filter({ hasText: 'Kobe Power' });
  await top.getByRole('button', { name: 'Confirm' }).click();
  await confirmDialog(adminPage, 'Confirm');
  await top.waitFor({ state: 'detached' });
  await adminCtx.close();
  await page.reload();
  await page.locator('tr[data-topup="cleared"]').waitFor();
  await page.getByTestId('wallet-balance').filter({ hasNotText: '¥0' }).waitFor();

  await page.goto(`${server.url}/invoices/${second.id}/payment`);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('radio', { name: /Wallet/ }).check();
  await page.getByText('The wallet holds enough').waitFor();
  await shot(page, '09-pay-wallet');
  await page.getByRole('button', { name: 'Pay from the wallet' }).click();
  await confirmDialog(page, 'Pay from the wallet');
  await page.waitForURL(/\/invoices\/[^/]+$/);
  await page.locator('[data-state="cleared"]').waitFor();
  await page.locator('[data-history="wallet_debit"]').waitFor();
  await page.goto(`${server.url}/wallet`);
  await page.getByTestId('wallet-balance').filter({ hasText: '¥0' }).waitFor();
  await page.goto(`${server.url}/invoices`);
  await page.getByTestId('state-filter').click();
  await page.getByRole('option', { name: 'Cleared' }).click();
  await page.getByRole('cell', { name: 'Forecast API' }).waitFor();
  assert.equal(await page.locator('[data-state="cleared"]').count(), 2);

  // In Japanese.
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.goto(`${server.url}/invoices`);
  await page.locator('[data-state="cleared"]').first().waitFor();
  await page.getByText('支払済み').first().waitFor();
  await shot(page, '10-list-ja');
  await page.goto(invoiceUrl);
  await page.getByRole('heading', { name: '明細' }).waitFor();
  await shot(page, '11-detail-ja');
  await page.goto(`${server.url}/wallet`);
  await page.getByRole('heading', { name: '銀行振込でチャージ' }).waitFor();
  await shot(page, '12-wallet-ja');
  await ctx.close();
});
