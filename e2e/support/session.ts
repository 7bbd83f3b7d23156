import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { RunningServer } from './server.ts';

/** The password every spec's account uses (meets the SPEC's rules). */
export const PASSWORD = 'Kx7!mQ2#vL9p';

export interface Account {
  email: string;
  token: string;
}

/** A new organisation and its owner through the API (the foundation and account specs cover those screens). */
export async function signUp(server: RunningServer, who: { prefix: string; first_name: string; last_name: string; organisation_name: string }): Promise<Account> {
  const email = `${who.prefix}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;
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

/** Signs in on the English sign-in page and waits for the dataset list. */
export async function signIn(page: Page, server: RunningServer, email: string) {
  await page.goto(`${server.url}/login`);
  await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dataset$/);
}
