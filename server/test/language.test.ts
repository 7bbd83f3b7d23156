import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, STRONG_PASSWORD, type TestApp } from './helpers.js';

/** Issue 15: the saved language starts as the one a person registered in and follows them to any browser. */
describe('saved language', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
  });
  afterAll(() => t.close());

  async function register(lang: string) {
    const email = `lang.${lang.slice(0, 2)}.${Date.now()}@example.com`;
    const r = await t.app.inject({
      method: 'POST',
      url: '/account/api/auth/register',
      headers: { 'accept-language': lang },
      payload: { email, password: STRONG_PASSWORD, first_name: 'Aki', last_name: 'Mori', organisation_name: 'Lang Works' },
    });
    expect(r.statusCode).toBe(201);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } });
    return { authorization: `Bearer ${login.json().detail.response.access_token}` };
  }
  const me = async (auth: Record<string, string>) => (await t.app.inject({ url: '/api/users/me', headers: auth })).json().detail.response;

  it('is the registration language, and a saved change is what every browser reads', async () => {
    const ja = await register('ja');
    expect((await me(ja)).language).toBe('ja-jp');
    const en = await register('en-GB,en;q=0.9');
    expect((await me(en)).language).toBe('en-gb');
    const put = await t.app.inject({ method: 'PUT', url: '/account/api/settings', headers: en, payload: { language: 'ja-jp' } });
    expect(put.statusCode).toBe(200);
    expect((await me(en)).language).toBe('ja-jp');
  });
});
