import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { signIn, signUp, uploadDataset } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
const ADMIN = `ops.${Date.now()}@platform.example`;
let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a platform administrator sees workers, the queue and the last day on the operations page, in English and Japanese', async () => {
  const admin = await signUp(server, { email: ADMIN, first_name: 'Ops', last_name: 'Admin', organisation_name: 'Platform Ops' });
  // a dataset: its statistics job runs and succeeds, so the last day counts one
  await uploadDataset(server, admin.token, 'small', 'small.csv', 'x,y\n1,2\n2,4\n3,6\n');
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' })).newPage();
  await signIn(page, server, ADMIN);
  await page.goto(`${server.url}/admin/operations`);
  await page.getByRole('heading', { name: 'Operations' }).waitFor();
  await page.getByTestId('ops-workers').getByText(/busy of 1/).waitFor();
  await page.getByTestId('ops-finished').getByText(/1 succeeded/).waitFor({ timeout: 30_000 });
  await page.getByText('No job is waiting or running.').waitFor();
  assert.equal(await page.getByTestId('ops-mode').textContent(), 'Local pool');
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'operations-01-en.png') });

  const ja = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'ja-JP' })).newPage();
  await ja.goto(`${server.url}/login`);
  await ja.evaluate(() => {
    localStorage.setItem('mitate.lang', 'ja-jp');
    localStorage.setItem('mitate.lang.pending', '1');
  });
  await signIn(ja, server, ADMIN, 'ja');
  await ja.goto(`${server.url}/admin/operations`);
  await ja.getByRole('heading', { name: '運用状況' }).waitFor();
  await ja.getByTestId('ops-finished').getByText(/成功 1/).waitFor();
  await ja.getByText('失敗したジョブはありません。').waitFor();
  if (SHOTS) await ja.screenshot({ path: path.join(SHOTS, 'operations-02-ja.png') });

  // a tenant who is not a platform administrator is told so
  const tenant = await signUp(server, { prefix: 'tenant', first_name: 'Ten', last_name: 'Ant', organisation_name: 'Tenant Works' });
  const other = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' })).newPage();
  await signIn(other, server, tenant.email);
  await other.goto(`${server.url}/admin/operations`);
  await other.getByText('Only platform administrators can see operations.').waitFor();
});
