import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { PASSWORD, signIn } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('an owner reads the audit log: sign-ins, a failed sign-in and an invitation, filtered by action, in English and Japanese', async () => {
  // The address holds a timestamp, which may contain "401": the status is matched as a whole cell.
  const email = `audit.${Date.now()}@example.com`;
  const post = (url: string, body: unknown, token?: string) =>
    fetch(`${server.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  assert.equal((await post('/account/api/auth/register', { email, password: PASSWORD, first_name: 'Aki', last_name: 'Mori', organisation_name: 'Audit Works' })).status, 201);
  assert.equal((await post('/account/api/auth/login', { email, password: 'Wrong-password-9!' })).status, 401);
  const token = (await (await post('/account/api/auth/login', { email, password: PASSWORD })).json()).detail.response.access_token;
  assert.ok([200, 201].includes((await post('/account/api/members', { email: `new.${Date.now()}@example.com`, role: 'member', first_name: 'Ren', last_name: 'Sato' }, token)).status));

  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' })).newPage();
  await signIn(page, server, email);
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.waitForURL(/\/audit$/);
  await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  await page.getByRole('table', { name: 'Audit log' }).getByText('Member invited').waitFor();
  await page.getByRole('table', { name: 'Audit log' }).getByText('Sign-in failed').waitFor();
  assert.equal(await page.getByRole('table', { name: 'Audit log' }).getByText('Signed in', { exact: true }).count(), 2);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'audit-01-en.png') });

  await page.getByLabel('Action').click();
  await page.getByRole('option', { name: 'Sign-in failed' }).click();
  await page.getByRole('listbox').waitFor({ state: 'detached' });
  await page.getByRole('table', { name: 'Audit log' }).getByText('Member invited').waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('row').filter({ hasText: 'Sign-in failed' }).count(), 1);
  assert.equal(await page.getByRole('row').filter({ hasText: 'POST /account/api/auth/login' }).getByText('401', { exact: true }).count(), 1);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'audit-02-en-filtered.png') });

  const ja = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'ja-JP' })).newPage();
  // Japanese picked on the sign-in page while signed out: the sign-in keeps it (and saves it to the profile).
  await ja.goto(`${server.url}/login`);
  await ja.evaluate(() => {
    localStorage.setItem('mitate.lang', 'ja-jp');
    localStorage.setItem('mitate.lang.pending', '1');
  });
  await signIn(ja, server, email, 'ja');
  await ja.goto(`${server.url}/audit`);
  await ja.getByRole('heading', { name: '監査ログ' }).waitFor();
  await ja.getByRole('table', { name: '監査ログ' }).getByText('メンバー招待').waitFor();
  await ja.getByRole('table', { name: '監査ログ' }).getByText('サインイン失敗').waitFor();
  if (SHOTS) await ja.screenshot({ path: path.join(SHOTS, 'audit-03-ja.png') });
});
