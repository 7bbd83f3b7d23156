import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../src/http/redact.js';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

/** Issue 18 items 5, 6 and 7: bearer header only and no tokens in the log; per-address throttles; ended sessions. */
describe.each(DATABASES)('sign-in hardening on %s', (kind) => {
  let t: TestApp;
  const log: string[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    delete process.env.MITATE_LOGIN_MAX_FAILURES;
    delete process.env.MITATE_LOGIN_MAX_FAILURES_IP;
    delete process.env.MITATE_MAIL_MAX_REQUESTS_IP;
    t = await makeTestApp(kind, { startJobs: false, logger: true, logStream: { write: (line: string) => void log.push(line) } });
  });
  afterAll(async () => {
    process.env = saved;
    await t?.close();
  });

  const login = (email: string, password: string, ip = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password }, remoteAddress: ip });
  const me = (auth: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/users/me', headers: auth });

  it('accepts the bearer header only, and never writes a token from a URL to the log', async () => {
    const { tokens, auth } = await registerAndLogin(t.app, 'bearer');
    expect((await me(auth)).statusCode).toBe(200);
    const viaQuery = await t.app.inject({ method: 'GET', url: `/api/users/me?access_token=${tokens.access_token}` });
    expect(viaQuery.statusCode).toBe(401);
    await t.app.inject({ method: 'GET', url: `/account/api/auth/invitation?token=secret-invite-token&x=1` });
    const all = log.join('');
    expect(all).toContain('/api/users/me?access_token=[redacted]');
    expect(all).toContain('token=[redacted]&x=1');
    expect(all).not.toContain(tokens.access_token);
    expect(all).not.toContain('secret-invite-token');
    expect(redactUrl('/verify-email?token=abc&lang=ja')).toBe('/verify-email?token=[redacted]&lang=ja');
    expect(redactUrl('/a/b')).toBe('/a/b');
  });

  it("does not let anyone lock an account: the owner's right password from a clean address still signs in", async () => {
    const { email } = await registerAndLogin(t.app, 'victim');
    for (let i = 0; i < 5; i++) expect((await login(email, 'Wrong-pass-1', '203.0.113.50')).statusCode).toBe(401);
    const attacker = await login(email, STRONG_PASSWORD, '203.0.113.50');
    expect(attacker.statusCode).toBe(429);
    expect((await login(email, STRONG_PASSWORD, '198.51.100.20')).statusCode).toBe(200);
  });

  it('limits failed sign-ins across many e-mails from one address', async () => {
    const ip = '203.0.113.77';
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await login(`spray${i}@example.com`, 'Wrong-pass-1', ip)).statusCode);
    expect(codes.slice(0, 10).every((c) => c === 401)).toBe(true);
    expect(codes.slice(10)).toEqual([429, 429]);
    expect((await login('spray0@example.com', 'Wrong-pass-1', '198.51.100.77')).statusCode).toBe(401);
  });

  it.each(['forgot-password', 'resend-verification'])('limits %s calls per address, in the caller\'s language', async (path) => {
    const ip = path === 'forgot-password' ? '203.0.113.90' : '203.0.113.91';
    const codes: number[] = [];
    let last;
    for (let i = 0; i < 8; i++) {
      last = await t.app.inject({ method: 'POST', url: `/account/api/auth/${path}`, payload: { email: `who${i}@example.com` }, remoteAddress: ip, headers: { 'accept-language': 'ja' } });
      codes.push(last.statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(last!.json().detail.response).toMatch(/^お使いのネットワークからのリクエストが多すぎます。\d+分後/);
    const other = await t.app.inject({ method: 'POST', url: `/account/api/auth/${path}`, payload: { email: 'who@example.com' }, remoteAddress: '198.51.100.90' });
    expect(other.statusCode).toBe(200);
  });

  it('refuses an access token as soon as its session ends: logout, password reset, replayed refresh token', async () => {
    // logout
    const a = await registerAndLogin(t.app, 'logout');
    const other = await login(a.email, STRONG_PASSWORD, '198.51.100.5');
    const otherAuth = { authorization: `Bearer ${other.json().detail.response.access_token}` };
    expect((await me(a.auth)).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: '/account/api/auth/logout', payload: { refresh_token: a.tokens.refresh_token } });
    expect((await me(a.auth)).statusCode).toBe(401);
    expect((await me(otherAuth)).statusCode).toBe(200); // another session of the same person goes on

    // a refreshed token belongs to the same session
    const refreshed = await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: other.json().detail.response.refresh_token } });
    const newAuth = { authorization: `Bearer ${refreshed.json().detail.response.access_token}` };
    expect((await me(newAuth)).statusCode).toBe(200);
    // replaying the rotated refresh token ends the family: both access tokens of that session are refused
    await t.app.inject({ method: 'POST', url: '/account/api/auth/refresh', payload: { refresh_token: other.json().detail.response.refresh_token } });
    expect((await me(newAuth)).statusCode).toBe(401);
    expect((await me(otherAuth)).statusCode).toBe(401);

    // password reset ends every session of the account
    const b = await registerAndLogin(t.app, 'reset');
    const user = await t.app.ctx.db.selectFrom('users').selectAll().where('email', '=', b.email).executeTakeFirstOrThrow();
    const { makeLinks } = await import('../src/features/account/links.js');
    const token = await makeLinks(t.app.ctx.db).issue('reset', user, 600_000);
    const reset = await t.app.inject({ method: 'POST', url: '/account/api/auth/reset-password', payload: { token, password: 'An0ther!Passw0rd' } });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await me(b.auth)).statusCode).toBe(401);
  });
});
