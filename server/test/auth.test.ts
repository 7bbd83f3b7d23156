import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccess } from '../src/auth/tokens.js';
import { passwordProblem } from '../src/auth/passwords.js';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

describe('password rules (SPEC §5)', () => {
  it.each([
    ['short', 'Ab1!', 'password_too_short'],
    ['two classes', 'abcdefgh12', 'password_classes'],
    ['contains the e-mail', 'Hanako2024!x', 'password_personal'],
    ['contains the name', 'xYamada#2024', 'password_personal'],
    ['good', STRONG_PASSWORD, null],
  ])('%s', (_label, pw, expected) => {
    expect(passwordProblem(pw, { email: 'hanako@example.com', first_name: 'Taro', last_name: 'Yamada' })).toBe(expected);
  });
});

describe.each(DATABASES)('sign-in on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false });
  });
  afterAll(() => t.close());

  it('registers the owner of a new organisation and signs in', async () => {
    const { auth, email } = await registerAndLogin(t.app, 'owner');
    const me = await t.app.inject({ method: 'GET', url: '/api/users/me', headers: auth });
    expect(me.statusCode).toBe(200);
    const body = me.json().detail.response;
    expect(body.email).toBe(email);
    expect(body.role).toBe('owner');
    expect(body.organisation.name).toBe('Acme Works');
    expect(body.links.show_test_site).toBe(false);
  });

  it('rejects a weak password with a 422 naming the field, in the user language', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/account/api/auth/register',
      headers: { 'accept-language': 'ja' },
      payload: { email: 'weak@example.com', password: 'abcdefgh', first_name: 'A', last_name: 'B', organisation_name: 'O' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'password']);
    expect(res.json().detail[0].msg).toContain('3種類以上');
  });

  it('rejects malformed registration bodies with 422 entries', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: 'not-an-email' } });
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((d: { loc: string[] }) => d.loc.at(-1));
    expect(locs).toEqual(expect.arrayContaining(['email', 'password', 'first_name', 'last_name', 'organisation_name']));
  });

  it('refuses a second registration with the same e-mail and a wrong password', async () => {
    const { email } = await registerAndLogin(t.app, 'dup');
    const again = await t.app.inject({
      method: 'POST',
      url: '/account/api/auth/register',
      payload: { email: email.toUpperCase(), password: STRONG_PASSWORD, first_name: 'x', last_name: 'y', organisation_name: 'z' },
    });
    expect(again.statusCode).toBe(409);
    const bad = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: 'Wrong-pass-1' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().detail.response).toMatch(/incorrect/);
  });

  it('answers 401 to a missing, malformed, forged or expired token', async () => {
    const { tokens } = await registerAndLogin(t.app, 'tok');
    const forged = tokens.access_token.slice(0, -4) + 'AAAA';
    const expired = signAccess(t.app.ctx.secret, { sub: 'x', sid: 'x', org: 'y', role: 'owner', email: 'e' }, -10);
    const otherKey = signAccess(Buffer.from('not-the-key'), { sub: 'x', sid: 'x', org: 'y', role: 'owner', email: 'e' }, 600);
    for (const h of [{}, { authorization: 'Bearer nonsense' }, { authorization: `Bearer ${forged}` }, { authorization: `Bearer ${expired}` }, { authorization: `Bearer ${otherKey}` }]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/dataset', headers: h });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail.response).toBeTruthy();
    }
  });

  it('rotates refresh tokens, stores them hashed, and ends the family when an old one is replayed', async () => {
    const { tokens } = await registerAndLogin(t.app, 'rot');
    const stored = await t.app.ctx.db.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(tokens.refresh_token);
    const r1 = await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: tokens.refresh_token } });
    expect(r1.statusCode).toBe(200);
    const next = r1.json().detail.response;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.expires_in).toBe(900);
    const replay = await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: tokens.refresh_token } });
    expect(replay.statusCode).toBe(401);
    const afterReplay = await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: next.refresh_token } });
    expect(afterReplay.statusCode).toBe(401);
  });

  it('logout revokes the refresh token', async () => {
    const { tokens } = await registerAndLogin(t.app, 'out');
    const res = await t.app.inject({ method: 'POST', url: '/account/api/auth/logout', payload: { refresh_token: tokens.refresh_token } });
    expect(res.statusCode).toBe(200);
    const r = await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: tokens.refresh_token } });
    expect(r.statusCode).toBe(401);
  });

  it('lists the members of the caller organisation only', async () => {
    const a = await registerAndLogin(t.app, 'mema', 'Org A');
    const b = await registerAndLogin(t.app, 'memb', 'Org B');
    const list = await t.app.inject({ method: 'GET', url: '/account/api/members', headers: a.auth });
    const emails = list.json().detail.response.items.map((m: { email: string }) => m.email);
    expect(emails).toEqual([a.email]);
    const meB = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: b.auth })).json().detail.response;
    const other = await t.app.inject({ method: 'GET', url: `/account/api/members/${meB.id}`, headers: a.auth });
    expect(other.statusCode).toBe(404);
  });

  it('serves the OpenAPI document at /api/docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/dataset/register', '/api/datasets/list/', '/api/statistics/{dataset_id}']));
  });

  it('answers unknown API paths with a 404 message', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/no/such/thing', headers: (await registerAndLogin(t.app, 'nf')).auth });
    expect(res.statusCode).toBe(404);
    expect(res.json().detail.response).toBe('Requested URL not exist');
  });
});
