import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, outboxLink, PUBLIC_URL, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

/** Issue 15: an invitation not yet accepted can be cancelled by an owner or admin; its link stops working. */
describe.each(DATABASES)('cancelling an invitation on %s', (kind) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false, config: { publicUrl: PUBLIC_URL } });
    owner = await registerAndLogin(t.app, 'owner', 'Cancel Works');
  });
  afterAll(() => t.close());

  const invite = (email: string) =>
    t.app.inject({ method: 'POST', url: '/account/api/members', headers: owner.auth, payload: { email, role: 'member', first_name: 'Sora', last_name: 'Abe' } });
  const cancel = (auth: Record<string, string>, id: string, lang = 'en') =>
    t.app.inject({ method: 'DELETE', url: `/account/api/members/${id}`, headers: { ...auth, 'accept-language': lang } });

  it('removes the invited person, and the link they were sent no longer joins', async () => {
    const email = `sora.${Date.now()}@example.com`;
    const { id } = (await invite(email)).json().detail.response;
    const token = outboxLink(t.dataDir, email, 'accept-invitation');
    const res = await cancel(owner.auth, id, 'ja');
    expect(res.statusCode).toBe(200);
    expect(res.json().detail.response.message).toBe(`${email} への招待を取り消しました。`);
    const list = (await t.app.inject({ url: '/account/api/members', headers: owner.auth })).json().detail.response.items;
    expect(list.some((m: { email: string }) => m.email === email)).toBe(false);
    const accept = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD } });
    expect(accept.statusCode).toBe(400);
    // The same address can be invited again afterwards.
    expect((await invite(email)).statusCode).toBe(201);
  });

  it('refuses members who joined, other organisations, and people who do not manage members', async () => {
    const me = (await t.app.inject({ url: '/api/users/me', headers: owner.auth })).json().detail.response;
    const joined = await cancel(owner.auth, me.id);
    expect(joined.statusCode).toBe(409);
    const stranger = await registerAndLogin(t.app, 'stranger', 'Elsewhere');
    const { id } = (await invite(`kai.${Date.now()}@example.com`)).json().detail.response;
    expect((await cancel(stranger.auth, id)).statusCode).toBe(404);
    const members = (await t.app.inject({ url: '/account/api/members', headers: owner.auth })).json().detail.response.items;
    expect(members.some((m: { id: string }) => m.id === id)).toBe(true);
  });
});
