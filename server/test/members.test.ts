import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, outboxLink, PUBLIC_URL, registerAndLogin, STRONG_PASSWORD, upload, type TestApp } from './helpers.js';

describe.each(DATABASES)('members and roles on %s', (kind) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof registerAndLogin>>;
  const people: Record<string, { id: string; auth: Record<string, string>; email: string }> = {};
  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false, config: { publicUrl: PUBLIC_URL } });
    owner = await registerAndLogin(t.app, 'owner', 'Acme Works');
  });
  afterAll(() => t.close());

  const invite = (auth: Record<string, string>, body: object) => t.app.inject({ method: 'POST', url: '/account/api/members', headers: auth, payload: body });

  async function join(role: string, first: string) {
    const email = `${first.toLowerCase()}@acme.example`;
    const res = await invite(owner.auth, { email, role, first_name: first, last_name: 'Tanaka' });
    expect(res.statusCode).toBe(201);
    const token = outboxLink(t.dataDir, email, 'accept-invitation');
    const accepted = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD } });
    expect(accepted.statusCode).toBe(200);
    const auth = { authorization: `Bearer ${accepted.json().detail.response.access_token}` };
    people[role] = { id: res.json().detail.response.id, auth, email };
    return { token, auth };
  }

  it('invites by e-mail; the link shows the invitation, sets a password once and joins the organisation', async () => {
    const email = 'kenji@acme.example';
    const res = await invite(owner.auth, { email, role: 'member', first_name: 'Kenji', last_name: 'Mori' });
    expect(res.statusCode).toBe(201);
    expect(res.json().detail.response.message).toBe(`Invitation sent to ${email}.`);
    const list = (await t.app.inject({ method: 'GET', url: '/account/api/members', headers: owner.auth })).json().detail.response.items;
    expect(list.find((m: { email: string }) => m.email === email)).toMatchObject({ status: 'invited', role: 'member' });
    // not yet able to sign in
    const early = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } });
    expect(early.statusCode).toBe(401);
    const token = outboxLink(t.dataDir, email, 'accept-invitation');
    const info = await t.app.inject({ method: 'GET', url: `/account/api/auth/invitation?token=${encodeURIComponent(token)}` });
    expect(info.json().detail.response).toEqual({ email, first_name: 'Kenji', last_name: 'Mori', organisation_name: 'Acme Works' });
    const weak = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: 'kenji-2024', confirm_password: 'kenji-2024' } });
    expect(weak.statusCode).toBe(422);
    const mismatch = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD, confirm_password: 'x' } });
    expect(mismatch.statusCode).toBe(422);
    const ok = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD } });
    expect(ok.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD } });
    expect(again.statusCode).toBe(400);
    const me = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${ok.json().detail.response.access_token}` } })).json().detail.response;
    expect(me).toMatchObject({ email, role: 'member', status: 'active', organisation: { name: 'Acme Works' } });
    expect((await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } })).statusCode).toBe(200);
  });

  it('refuses to invite an existing member (of any organisation) and bad invitations, changing nothing', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/account/api/members', headers: owner.auth })).json().detail.response.total;
    const dup = await invite(owner.auth, { email: owner.email, role: 'member', first_name: 'A', last_name: 'B' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail.response).toMatch(/already a member/);
    const other = await registerAndLogin(t.app, 'stranger', 'Other Org');
    expect((await invite(owner.auth, { email: other.email, role: 'member', first_name: 'A', last_name: 'B' })).statusCode).toBe(409);
    const bad = await invite(owner.auth, { email: 'not-an-email', role: 'boss', first_name: '', last_name: '123' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual(['email', 'first_name', 'last_name', 'role']);
    const after = (await t.app.inject({ method: 'GET', url: '/account/api/members', headers: owner.auth })).json().detail.response.total;
    expect(after).toBe(before);
  });

  it('inviting someone invited but not yet joined sends a fresh link and voids the old one', async () => {
    const email = 'again@acme.example';
    await invite(owner.auth, { email, role: 'viewer', first_name: 'Aki', last_name: 'Ito' });
    const first = outboxLink(t.dataDir, email, 'accept-invitation');
    await new Promise((r) => setTimeout(r, 5));
    const res = await invite(owner.auth, { email, role: 'member', first_name: 'Aki', last_name: 'Ito' });
    expect(res.statusCode).toBe(200);
    const second = outboxLink(t.dataDir, email, 'accept-invitation');
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: `/account/api/auth/invitation?token=${encodeURIComponent(first)}` })).statusCode).toBe(400);
  });

  it('enforces the role on every call: owners and admins manage members, viewers write nothing', async () => {
    await join('admin', 'Ayumi');
    await join('member', 'Masa');
    await join('viewer', 'Yui');
    const target = people.member.id;
    const expectations: [string, Record<string, string>, number, number, boolean][] = [
      // role, auth, invite, change role, may write datasets
      ['owner', owner.auth, 201, 200, true],
      ['admin', people.admin.auth, 201, 200, true],
      ['member', people.member.auth, 403, 403, true],
      ['viewer', people.viewer.auth, 403, 403, false],
    ];
    for (const [role, auth, inviteStatus, changeStatus, writes] of expectations) {
      const inv = await invite(auth, { email: `by-${role}@acme.example`, role: 'viewer', first_name: 'New', last_name: 'Person' });
      expect(inv.statusCode, `${role} invites`).toBe(inviteStatus);
      const victim = role === 'member' ? people.viewer.id : target;
      const put = await t.app.inject({ method: 'PUT', url: `/account/api/members/${victim}`, headers: auth, payload: { role: 'member' } });
      expect(put.statusCode, `${role} changes a role`).toBe(changeStatus);
      const up = await upload(t.app, auth, { name: 'x.csv', content: 'a,b\n1,2\n' });
      if (writes) expect(up.statusCode, `${role} registers a dataset`).not.toBe(403);
      else expect(up.statusCode, `${role} registers a dataset`).toBe(403);
      // everyone reads
      expect((await t.app.inject({ method: 'GET', url: '/account/api/members', headers: auth })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/api/datasets/list/', headers: auth })).statusCode).toBe(200);
    }
    // only an owner grants the owner role
    expect((await t.app.inject({ method: 'PUT', url: `/account/api/members/${target}`, headers: people.admin.auth, payload: { role: 'owner' } })).statusCode).toBe(403);
    expect((await invite(people.admin.auth, { email: 'o2@acme.example', role: 'owner', first_name: 'O', last_name: 'Two' })).statusCode).toBe(403);
  });

  it('a role change or disabling applies at once, with the same token', async () => {
    const viewer = people.viewer;
    expect((await upload(t.app, viewer.auth, { name: 'v.csv', content: 'a\n1\n' })).statusCode).toBe(403);
    const res = await t.app.inject({ method: 'PUT', url: `/account/api/members/${viewer.id}`, headers: owner.auth, payload: { role: 'member' } });
    expect(res.json().detail.response).toMatchObject({ role: 'member', message: 'Member updated successfully.' });
    expect((await upload(t.app, viewer.auth, { name: 'v.csv', content: 'a\n1\n' })).statusCode).not.toBe(403);
    await t.app.inject({ method: 'PUT', url: `/account/api/members/${viewer.id}`, headers: owner.auth, payload: { status: 'disabled' } });
    expect((await t.app.inject({ method: 'GET', url: '/api/users/me', headers: viewer.auth })).statusCode).toBe(401);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: viewer.email, password: STRONG_PASSWORD } });
    expect(login.statusCode).toBe(403);
    expect(login.json().detail.response).toMatch(/disabled/);
    await t.app.inject({ method: 'PUT', url: `/account/api/members/${viewer.id}`, headers: owner.auth, payload: { status: 'active' } });
    expect((await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: viewer.email, password: STRONG_PASSWORD } })).statusCode).toBe(200);
  });

  it('changes one field at a time, never oneself, never another organisation', async () => {
    const id = people.member.id;
    const put = (auth: Record<string, string>, target: string, payload: object) => t.app.inject({ method: 'PUT', url: `/account/api/members/${target}`, headers: auth, payload });
    expect((await put(owner.auth, id, { role: 'admin', status: 'disabled' })).statusCode).toBe(422);
    expect((await put(owner.auth, id, {})).statusCode).toBe(422);
    expect((await put(owner.auth, id, { role: 'king' })).statusCode).toBe(422);
    const me = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: owner.auth })).json().detail.response;
    expect((await put(owner.auth, me.id, { role: 'viewer' })).statusCode).toBe(403);
    const other = await registerAndLogin(t.app, 'outsider', 'Elsewhere');
    expect((await put(other.auth, id, { role: 'viewer' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/account/api/members/${id}`, headers: other.auth })).statusCode).toBe(404);
    const member = (await t.app.inject({ method: 'GET', url: `/account/api/members/${id}`, headers: owner.auth })).json().detail.response;
    expect(member.role).toBe('member');
  });
});
