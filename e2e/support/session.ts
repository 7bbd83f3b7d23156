import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from './server.ts';

/** The password every spec's account uses (meets the SPEC's rules). */
export const PASSWORD = 'Kx7!mQ2#vL9p';

export interface Account {
  email: string;
  token: string;
}

/** A new organisation and its owner through the API (the foundation and account specs cover those screens). */
export async function signUp(server: RunningServer, who: { prefix?: string; email?: string; first_name: string; last_name: string; organisation_name: string }): Promise<Account> {
  const email = who.email ?? `${who.prefix ?? 'user'}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;
  const reg = await fetch(`${server.url}/account/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, first_name: who.first_name, last_name: who.last_name, organisation_name: who.organisation_name }),
  });
  assert.ok(reg.ok, await reg.clone().text());
  const login = await fetch(`${server.url}/account/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  assert.ok(login.ok, await login.clone().text());
  return { email, token: (await login.json()).detail.response.access_token as string };
}

/** A dataset registered through the API; `fields` override the form's defaults (a regression training table). */
export async function uploadDataset(server: RunningServer, token: string, name: string, fileName: string, body: BlobPart, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name, data_type: 'training_data', type: 'supervised', training_type: 'regression', ...fields })) form.append(k, v);
  form.append('file', new Blob([body], { type: 'text/csv' }), fileName);
  const res = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).detail.response.id as string;
}

/** The envelope's response of a JSON API call made as `token`. */
export async function callApi(server: RunningServer, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()).detail.response;
}

/** The envelope's response of a JSON call, optionally as `token`; any answer but 2xx fails the test with its text. */
export async function apiJson(server: RunningServer, method: string, url: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text).detail.response;
}

const SIGN_IN_LABELS = {
  en: { email: 'E-mail address', password: 'Password', button: 'Sign in' },
  ja: { email: 'メールアドレス', password: 'パスワード', button: 'サインイン' },
};

/** Signs in on the sign-in page (in the page's language) and waits for the dataset list. */
export async function signIn(page: Page, server: RunningServer, email: string, lang: 'en' | 'ja' = 'en') {
  const l = SIGN_IN_LABELS[lang];
  await page.goto(`${server.url}/login`);
  await page.getByRole('textbox', { name: l.email, exact: true }).fill(email);
  await page.getByRole('textbox', { name: l.password, exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: l.button }).click();
  await page.waitForURL(/\/dataset$/);
  // The app syncs the browser's and the profile's language once signed in and may reload the page to apply the
  // profile's: wait until it has, so the caller's next navigation is not aborted by that reload.
  await page.waitForFunction(() => localStorage.getItem('mitate.lang.synced') !== null && localStorage.getItem('mitate.lang.pending') === null);
  await page.waitForLoadState('load');
}

/** Presses `label` in the open dialog and waits for the dialog to go. */
export async function confirmDialog(page: Page, label: string) {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: label }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** A regression project on `datasetId` trained through the API; waits (up to 20 minutes) for its first finished model. */
export async function trainRegression(server: RunningServer, token: string, datasetId: string, body: Record<string, unknown>): Promise<{ pid: string; modelKey: string }> {
  const project = await apiJson(server, 'POST', `/api/regress/register/${datasetId}`, token, body);
  const pid = (project.project_id ?? project.id) as string;
  await apiJson(server, 'POST', `/api/train/model/${pid}`, token, {});
  for (let i = 0; ; i++) {
    const v = await apiJson(server, 'GET', `/api/regress/project/${pid}`, token);
    const done = v.models.find((m: { state: string }) => m.state === 'done');
    if (done) return { pid, modelKey: done.model_key as string };
    assert.ok(!v.models.some((m: { state: string }) => m.state === 'failed'), `training failed: ${JSON.stringify(v.models)}`);
    assert.ok(i < 1200, 'training did not finish in 20 minutes');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A valid 1×1 PNG for identity uploads (the account spec covers those screens). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The organisation's identity documents uploaded and approved by a platform administrator (SPEC §4). */
export async function verifyIdentity(server: RunningServer, token: string, adminToken: string) {
  const id = new FormData();
  id.append('front', new Blob([PNG], { type: 'image/png' }), 'front.png');
  id.append('back', new Blob([PNG], { type: 'image/png' }), 'back.png');
  assert.equal((await fetch(`${server.url}/account/api/identity`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: id })).status, 201);
  const pending = await apiJson(server, 'GET', '/account/api/admin/identity', adminToken);
  await apiJson(server, 'POST', `/account/api/admin/identity/${pending.items[0].id}/review`, adminToken, { decision: 'approve' });
}

/** The environment of an installation with nothing configured (no platform administrators, no bank account, review
 * as the default): what a newcomer gets from `npm start` (issue 33). */
export const BLANK_INSTALLATION = { MITATE_PLATFORM_ADMINS: '', MITATE_BANK_NAME: '', MITATE_BANK_ACCOUNT_NUMBER: '', MITATE_PLATFORM_REVIEW: '', MITATE_FIRST_ACCOUNT_ADMIN: '' };

/** A page of a new context in `lang`; in Japanese the app's language is chosen before sign-in, as the switcher does. */
export async function pageIn(browser: Browser, server: RunningServer, lang: 'en' | 'ja'): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: lang === 'ja' ? 'ja-JP' : 'en-GB' })).newPage();
  if (lang === 'ja') {
    await page.goto(`${server.url}/login`);
    await page.evaluate(() => {
      localStorage.setItem('mitate.lang', 'ja-jp');
      localStorage.setItem('mitate.lang.pending', '1');
    });
  }
  return page;
}
