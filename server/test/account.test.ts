import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { DATABASES, makeTestApp, STRONG_PASSWORD, type TestApp } from './helpers.js';

const PUBLIC_URL = 'http://mitate.test';

/** A real SMTP server on loopback that keeps every message it receives. */
async function startSmtp() {
  const inbox: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (d) => (raw += d));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as net.AddressInfo).port;
      probe.close(() => server.listen(p, '127.0.0.1', () => resolve(p)));
    });
  });
  return { url: `smtp://127.0.0.1:${port}`, inbox, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The one-time link of the last mail to `to` (quoted-printable soft breaks undone). */
function linkIn(inbox: { to: string[]; raw: string }[], to: string, page: string): string {
  const mail = [...inbox].reverse().find((m) => m.to.includes(to));
  if (!mail) throw new Error(`no mail to ${to}`);
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const m = new RegExp(`${PUBLIC_URL}/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(text);
  if (!m) throw new Error(`no ${page} link in mail to ${to}`);
  return decodeURIComponent(m[1]);
}

describe.each(DATABASES)('account flows on %s', (kind) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const saved = { ...process.env };
  beforeAll(async () => {
    process.env.MITATE_LOGIN_MAX_FAILURES = '4';
    process.env.MITATE_LOGIN_MAX_FAILURES_IP = '12';
    process.env.MITATE_MAIL_MAX_REQUESTS_IP = '100'; // these flows test the per-account mail limit; auth-hardening tests the per-address one
    smtp = await startSmtp();
    t = await makeTestApp(kind, { startJobs: false, config: { smtpUrl: smtp.url, publicUrl: PUBLIC_URL, requireEmailVerification: true } });
  });
  afterAll(async () => {
    process.env = saved;
    await t.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.inbox.length = 0;
  });

  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/account/api${url}`, payload, headers });
  const register = (email: string, extra: object = {}) =>
    post('/auth/register', { email, password: STRONG_PASSWORD, first_name: 'Hanako', last_name: 'Yamada', organisation_name: 'Acme', ...extra });

  it('registers, refuses sign-in until the mailed link is followed; the link works once', async () => {
    const email = 'verify.me@example.com';
    expect((await register(email)).statusCode).toBe(201);
    const before = await post('/auth/login', { email, password: STRONG_PASSWORD });
    expect(before.statusCode).toBe(403);
    expect(before.json().detail.error).toBe('email_not_verified');
    const token = linkIn(smtp.inbox, email, 'verify-email');
    // the mail is also in the outbox folder
    const outbox = (await import('node:fs')).readdirSync(`${t.dataDir}/outbox`);
    expect(outbox.some((f) => f.endsWith('.eml'))).toBe(true);
    const ok = await post('/auth/verify-email', { token });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().detail.response.message).toMatch(/verified/);
    expect((await post('/auth/verify-email', { token })).statusCode).toBe(400);
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).statusCode).toBe(200);
    // a second registration with the same e-mail answers like a new one, tells the mailbox owner, changes nothing
    const fresh = await register('brand.new@example.com');
    const dup = await register(email.toUpperCase(), { organisation_name: 'Other', password: 'Other-Passw0rd!' });
    expect(dup.statusCode).toBe(201);
    expect(Object.keys(dup.json().detail.response)).toEqual(Object.keys(fresh.json().detail.response));
    expect(await t.app.ctx.db.selectFrom('organisations').select('id').where('name', '=', 'Other').execute()).toEqual([]);
    const notice = [...smtp.inbox].reverse().find((m) => m.to.includes(email))!;
    expect(notice.raw).toContain('already registered');
    expect((await post('/auth/login', { email, password: 'Other-Passw0rd!' })).statusCode).toBe(401);
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).statusCode).toBe(200);
  });

  it('resends verification with the same answer for known and unknown addresses; the older link stops working', async () => {
    const email = 'resend@example.com';
    await register(email);
    const first = linkIn(smtp.inbox, email, 'verify-email');
    const known = await post('/auth/resend-verification', { email }, { 'accept-language': 'ja' });
    const unknown = await post('/auth/resend-verification', { email: 'nobody@example.com' }, { 'accept-language': 'ja' });
    expect(known.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    expect(known.json().detail.response.message).toContain('受信トレイ');
    expect(smtp.inbox.filter((m) => m.to.includes('nobody@example.com'))).toEqual([]);
    const second = linkIn(smtp.inbox, email, 'verify-email');
    expect(second).not.toBe(first);
    expect((await post('/auth/verify-email', { token: first })).statusCode).toBe(400);
    expect((await post('/auth/verify-email', { token: second })).statusCode).toBe(200);
  });

  it('sends at most 5 mails an hour to one account from the public forms, answering the same', async () => {
    const email = 'flood@example.com';
    await register(email);
    const answers = new Set<string>();
    for (let i = 0; i < 7; i++) answers.add((await post('/auth/forgot-password', { email })).body);
    expect(answers.size).toBe(1);
    expect(smtp.inbox.filter((m) => m.to.includes(email))).toHaveLength(5);
  });

  it('refuses an expired link', async () => {
    const email = 'late@example.com';
    await register(email);
    const token = linkIn(smtp.inbox, email, 'verify-email');
    await t.app.ctx.db.updateTable('account_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('kind', '=', 'verify').execute();
    const res = await post('/auth/verify-email', { token });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail.response).toMatch(/expired/);
  });

  it('resets a forgotten password through a single-use link, with every password rule', async () => {
    const email = 'forgot@example.com';
    await register(email);
    await post('/auth/verify-email', { token: linkIn(smtp.inbox, email, 'verify-email') });
    const session = (await post('/auth/login', { email, password: STRONG_PASSWORD })).json().detail.response;
    const known = await post('/auth/forgot-password', { email });
    const unknown = await post('/auth/forgot-password', { email: 'ghost@example.com' });
    expect(unknown.json()).toEqual(known.json());
    const token = linkIn(smtp.inbox, email, 'reset-password');
    const cases: [string, string | undefined, RegExp][] = [
      ['Ab1!x', undefined, /at least 8/],
      ['abcdefghij', undefined, /at least 3/],
      ['Yamada#2024x', undefined, /e-mail address or name/],
      ['Forgot#2024x', undefined, /e-mail address or name/],
      [STRONG_PASSWORD, undefined, /differ from the current/],
      ['New-Passw0rd!', 'New-Passw0rd?', /do not match/],
    ];
    for (const [password, confirm, msg] of cases) {
      const res = await post('/auth/reset-password', { token, password, confirm_password: confirm });
      expect(res.statusCode, password).toBe(422);
      expect(res.json().detail[0].msg).toMatch(msg);
    }
    const done = await post('/auth/reset-password', { token, password: 'New-Passw0rd!', confirm_password: 'New-Passw0rd!' });
    expect(done.statusCode).toBe(200);
    expect((await post('/auth/reset-password', { token, password: 'Other-Passw0rd!' })).statusCode).toBe(400);
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).statusCode).toBe(401);
    expect((await post('/auth/login', { email, password: 'New-Passw0rd!' })).statusCode).toBe(200);
    // every earlier session ended
    expect((await post('/auth/refresh', { refresh_token: session.refresh_token })).statusCode).toBe(401);
  });

  it('changes the password of the signed-in person', async () => {
    const email = 'change@example.com';
    await register(email);
    await post('/auth/verify-email', { token: linkIn(smtp.inbox, email, 'verify-email') });
    const { access_token } = (await post('/auth/login', { email, password: STRONG_PASSWORD })).json().detail.response;
    const h = { authorization: `Bearer ${access_token}` };
    const change = (current_password: string, password: string, confirm_password = password) => post('/auth/change-password', { current_password, password, confirm_password }, h);
    expect((await change('wrong', 'New-Passw0rd!')).json().detail[0].loc).toEqual(['body', 'current_password']);
    expect((await change(STRONG_PASSWORD, STRONG_PASSWORD)).json().detail[0].msg).toMatch(/differ/);
    expect((await change(STRONG_PASSWORD, 'New-Passw0rd!', 'x')).json().detail[0].msg).toMatch(/match/);
    expect((await change(STRONG_PASSWORD, 'short')).json().detail[0].msg).toMatch(/8/);
    expect((await post('/auth/change-password', { current_password: 'a', password: 'b', confirm_password: 'b' })).statusCode).toBe(401);
    const ok = await change(STRONG_PASSWORD, 'New-Passw0rd!');
    expect(ok.statusCode).toBe(200);
    expect((await post('/auth/login', { email, password: 'New-Passw0rd!' })).statusCode).toBe(200);
  });

  it('throttles repeated failed sign-ins per e-mail from the failing address, even with the right password, and it survives a restart', async () => {
    const email = 'throttle@example.com';
    await register(email);
    await post('/auth/verify-email', { token: linkIn(smtp.inbox, email, 'verify-email') });
    for (let i = 0; i < 4; i++) expect((await post('/auth/login', { email, password: 'Wrong-pass-1' })).statusCode).toBe(401);
    const blocked = await post('/auth/login', { email, password: STRONG_PASSWORD });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().detail.response).toMatch(/Too many failed sign-in attempts\. Please try again in 15 minutes/);
    // an unknown e-mail gets the same treatment (nothing tells which addresses exist)
    for (let i = 0; i < 4; i++) expect((await post('/auth/login', { email: 'x-unknown@example.com', password: 'Wrong-pass-1' })).statusCode).toBe(401);
    expect((await post('/auth/login', { email: 'x-unknown@example.com', password: 'Wrong-pass-1' })).statusCode).toBe(429);
    if (kind === 'sqlite') {
      const again = await buildApp({ startJobs: false, config: { dataDir: t.dataDir, databaseUrl: undefined, webDist: '/nonexistent', requireEmailVerification: true } });
      try {
        expect((await again.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } })).statusCode).toBe(429);
        // The owner, from an address that has not failed, is not locked out by someone else's guesses.
        expect((await again.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD }, remoteAddress: '10.0.0.9' })).statusCode).toBe(200);
      } finally {
        await again.close();
      }
    }
    // the window passes
    await t.app.ctx.db.updateTable('login_failures').set({ created_at: new Date(Date.now() - 3_600_000).toISOString() }).execute();
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).statusCode).toBe(200);
  });

  it('throttles one IP address trying many e-mails', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 12; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: `spray${i}@example.com`, password: 'Wrong-pass-1' }, remoteAddress: ip });
      expect(r.statusCode).toBe(401);
    }
    const r = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: 'spray-next@example.com', password: 'Wrong-pass-1' }, remoteAddress: ip });
    expect(r.statusCode).toBe(429);
    const other = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: 'spray-next@example.com', password: 'Wrong-pass-1' }, remoteAddress: '198.51.100.1' });
    expect(other.statusCode).toBe(401);
  });
});
