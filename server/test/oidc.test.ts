import http from 'node:http';
import net from 'node:net';
// @ts-expect-error the package ships no type declarations
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, type TestApp } from './helpers.js';

const PUBLIC_URL = 'http://mitate.test';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A real OpenID provider on loopback; whoever is in `next.user` signs in when the provider asks. */
async function startProvider() {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const people: Record<string, Record<string, unknown>> = {
    hanako: { sub: 'hanako', email: 'hanako.sso@corp.example', email_verified: true, given_name: 'Hanako', family_name: 'Yamada', tid: 'tenant-a' },
    taro: { sub: 'taro', email: 'taro.sso@corp.example', email_verified: true, given_name: 'Taro', family_name: 'Sato', tid: 'tenant-a' },
    noemail: { sub: 'noemail', given_name: 'No', family_name: 'Mail' },
    jiro: { sub: 'jiro', email: 'jiro@other-corp.example', email_verified: true, given_name: 'Jiro', family_name: 'Kato', tid: 'tenant-b' },
  };
  const next = { user: 'hanako' };
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'mitate', client_secret: 'mitate-secret', redirect_uris: [`${PUBLIC_URL}/account/api/oidc/callback`], post_logout_redirect_uris: [`${PUBLIC_URL}/login`] }],
    pkce: { required: () => true },
    claims: { openid: ['sub', 'tid'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => people[sub] }),
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    conformIdTokenClaims: false,
    loadExistingGrant: async (ctx: { oidc: { client?: { clientId: string }; session?: { accountId?: string } } }) => {
      const grant = new provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  const server = http.createServer(async (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      await provider.interactionFinished(req, res, { login: { accountId: next.user } }, { mergeWithLastSubmission: false });
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { issuer, next, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Follows the provider's redirects with a cookie jar until it sends the browser back to us. */
async function throughProvider(start: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(';');
      const [k, ...v] = kv.split('=');
      jar.set(k.trim(), v.join('='));
    }
    const loc = res.headers.get('location');
    if (!loc) throw new Error(`provider stopped at ${url}: ${res.status} ${await res.text()}`);
    const next = new URL(loc, url);
    if (next.href.startsWith(PUBLIC_URL)) return next;
    url = next.href;
  }
  throw new Error('too many redirects');
}

async function signInWith(t: TestApp, idp: Awaited<ReturnType<typeof startProvider>>, user: string) {
  idp.next.user = user;
  const start = await t.app.inject({ method: 'GET', url: '/account/api/oidc/login?return_to=/dataset' });
  expect(start.statusCode).toBe(302);
  const auth = new URL(start.headers.location as string);
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('code_challenge')).toBeTruthy();
  const back = await throughProvider(auth.href);
  expect(back.pathname).toBe('/account/api/oidc/callback');
  const cb = await t.app.inject({ method: 'GET', url: back.pathname + back.search });
  expect(cb.statusCode).toBe(302);
  return new URL(cb.headers.location as string);
}

async function meAfter(t: TestApp, landed: URL) {
  const tokens = (await t.app.inject({ method: 'POST', url: '/account/api/oidc/exchange', payload: { code: landed.searchParams.get('sso_code') } })).json().detail.response;
  return (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${tokens.access_token}` } })).json().detail.response;
}

describe.each(DATABASES)('single sign-on on %s', (kind) => {
  let t: TestApp;
  let idp: Awaited<ReturnType<typeof startProvider>>;
  beforeAll(async () => {
    idp = await startProvider();
    t = await makeTestApp(kind, {
      startJobs: false,
      config: { publicUrl: PUBLIC_URL, oidc: { issuer: idp.issuer, clientId: 'mitate', clientSecret: 'mitate-secret', tenant: 'common', scopes: 'openid email profile' } },
    });
  });
  const signInAs = (u: string) => signInWith(t, idp, u);
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const signIn = signInAs;
  it('offers single sign-on next to the local login', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/account/api/auth/options' });
    expect(res.json().detail.response).toMatchObject({ sso: true, local_login: true, tenant: 'common' });
  });

  it('signs in through the directory with PKCE; the e-mail maps to a new organisation, then to the same one', async () => {
    const landed = await signIn('hanako');
    expect(landed.pathname).toBe('/login');
    expect(landed.searchParams.get('return_to')).toBe('/dataset');
    const code = landed.searchParams.get('sso_code')!;
    const ex = await t.app.inject({ method: 'POST', url: '/account/api/oidc/exchange', payload: { code } });
    expect(ex.statusCode).toBe(200);
    const tokens = ex.json().detail.response;
    expect(tokens.end_session_url).toMatch(new RegExp(`^${idp.issuer}/session/end\\?`));
    expect(new URL(tokens.end_session_url).searchParams.get('post_logout_redirect_uri')).toBe(`${PUBLIC_URL}/login`);
    const me = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${tokens.access_token}` } })).json().detail.response;
    expect(me).toMatchObject({ email: 'hanako.sso@corp.example', first_name: 'Hanako', last_name: 'Yamada', role: 'owner' });

    // The hand-over code works once.
    const again = await t.app.inject({ method: 'POST', url: '/account/api/oidc/exchange', payload: { code } });
    expect(again.statusCode).toBe(400);

    // A colleague of the same tenant joins the same organisation as a member.
    const taro = await signIn('taro');
    const t2 = (await t.app.inject({ method: 'POST', url: '/account/api/oidc/exchange', payload: { code: taro.searchParams.get('sso_code') } })).json().detail.response;
    const me2 = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${t2.access_token}` } })).json().detail.response;
    expect(me2.organisation.id).toBe(me.organisation.id);
    expect(me2.role).toBe('member');

    // Signing in again maps to the same user.
    const third = await signIn('hanako');
    const t3 = (await t.app.inject({ method: 'POST', url: '/account/api/oidc/exchange', payload: { code: third.searchParams.get('sso_code') } })).json().detail.response;
    const me3 = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${t3.access_token}` } })).json().detail.response;
    expect(me3.id).toBe(me.id);

    // Someone of another tenant gets an organisation of their own.
    const jiro = await meAfter(t, await signIn('jiro'));
    expect(jiro.organisation.id).not.toBe(me.organisation.id);
    expect(jiro.role).toBe('owner');
  });

  it('refuses a directory account without an e-mail, and a replayed or unknown state', async () => {
    const landed = await signIn('noemail');
    expect(landed.searchParams.get('sso_code')).toBeNull();
    expect(landed.searchParams.get('sso_error')).toMatch(/e-mail/);
    const bad = await t.app.inject({ method: 'GET', url: '/account/api/oidc/callback?code=x&state=unknown' });
    expect(new URL(bad.headers.location as string).searchParams.get('sso_error')).toMatch(/invalid/);
  });

  it('a disabled member cannot sign in through the directory either', async () => {
    await t.app.ctx.db.updateTable('users').set({ status: 'disabled' }).where('email', '=', 'taro.sso@corp.example').execute();
    const landed = await signIn('taro');
    expect(landed.searchParams.get('sso_error')).toMatch(/disabled/);
  });
});

describe('single sign-on, single tenant', () => {
  it('maps every directory user to the one organisation of the directory', async () => {
    const idp = await startProvider();
    const t = await makeTestApp('sqlite', { startJobs: false, config: { publicUrl: PUBLIC_URL, oidc: { issuer: idp.issuer, clientId: 'mitate', clientSecret: 'mitate-secret', tenant: 'single', scopes: 'openid email profile' } } });
    try {
      const first = await meAfter(t, await signInWith(t, idp, 'hanako'));
      const other = await meAfter(t, await signInWith(t, idp, 'jiro'));
      expect(other.organisation.id).toBe(first.organisation.id);
      expect([first.role, other.role]).toEqual(['owner', 'member']);
    } finally {
      await t.close();
      await idp.close();
    }
  });
});

describe('single sign-on settings', () => {
  it('is off without OIDC_ISSUER, and the local login can be switched off', async () => {
    const t = await makeTestApp('sqlite', { startJobs: false, config: { localLogin: false } });
    try {
      const opts = (await t.app.inject({ method: 'GET', url: '/account/api/auth/options' })).json().detail.response;
      expect(opts).toMatchObject({ sso: false, local_login: false });
      expect((await t.app.inject({ method: 'GET', url: '/account/api/oidc/login' })).statusCode).toBe(404);
      const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: 'a@b.co', password: 'x' } });
      expect(login.statusCode).toBe(403);
      const reg = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: 'a@b.co', password: 'Kx7!mQ2#vL9p', first_name: 'A', last_name: 'B', organisation_name: 'O' } });
      expect(reg.statusCode).toBe(403);
    } finally {
      await t.close();
    }
  });
});
