import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { classify } from '../src/features/audit/classify.js';
import { makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

/** Issue 16: the audit log (sign-ins, member and role changes, keys, deletions) that owners and administrators read. */
describe('audit log', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  const get = (who: { auth: Record<string, string> }, query = '') => t.app.inject({ method: 'GET', url: `/api/audit${query}`, headers: who.auth });

  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    alice = await registerAndLogin(t.app, 'auditor', 'Audit Org');
    bob = await registerAndLogin(t.app, 'outsider', 'Other Org');
  });
  afterAll(() => t?.close());

  it('records sign-ins, a failed sign-in, an invitation, a role change, an upload and a deletion, newest first', async () => {
    const failed = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: alice.email, password: 'wrong-Password-1!' } });
    expect(failed.statusCode).toBe(401);
    const invited = await t.app.inject({
      method: 'POST', url: '/account/api/members', headers: alice.auth, payload: { email: 'new.member@example.com', role: 'member', first_name: 'New', last_name: 'Member' },
    });
    expect([200, 201]).toContain(invited.statusCode);
    const member = await t.app.ctx.db.selectFrom('users').select('id').where('email', '=', 'new.member@example.com').executeTakeFirstOrThrow();
    const changed = await t.app.inject({ method: 'PUT', url: `/account/api/members/${member.id}`, headers: alice.auth, payload: { role: 'viewer' } });
    expect(changed.statusCode, changed.body).toBe(200);
    const ds = (await upload(t.app, alice.auth, { name: 'a.csv', content: 'x,y\n1,2\n3,4\n5,7\n' })).json().detail.response;
    const del = await t.app.inject({ method: 'DELETE', url: `/api/dataset/delete/${ds.id}`, headers: alice.auth });
    expect(del.statusCode, del.body).toBe(200);
    // a read is not a change
    await t.app.inject({ method: 'GET', url: '/account/api/members', headers: alice.auth });

    // each row is written by an onResponse hook after its answer: the last one is waited for
    const log = await vi.waitFor(
      async () => {
        const res = await get(alice);
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json().detail.response;
        expect(page.total).toBe(7);
        return page;
      },
      { timeout: 60_000, interval: 100 },
    );
    const actions = log.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['delete', 'create', 'member_change', 'member_invite', 'sign_in_failed', 'sign_in', 'sign_up']);
    expect(log.total).toBe(7);
    expect(log.items[0]).toMatchObject({ actor_email: alice.email, method: 'DELETE', route: '/api/dataset/delete/:id', subject_id: ds.id, status: 200 });
    expect(log.items[2]).toMatchObject({ action: 'member_change', subject_id: member.id });
    expect(log.items[4]).toMatchObject({ action: 'sign_in_failed', status: 401, actor_email: alice.email });
    // filter and paging
    expect((await get(alice, '?action=sign_in')).json().detail.response.items).toHaveLength(1);
    const page2 = (await get(alice, '?page=2&page_size=4')).json().detail.response;
    expect(page2.items.map((e: { action: string }) => e.action)).toEqual(['sign_in_failed', 'sign_in', 'sign_up']);
    expect((await get(alice, '?action=nonsense')).statusCode).toBe(422);
  });

  it('shows each organisation its own events only, and refuses members and viewers', async () => {
    const other = (await get(bob)).json().detail.response;
    expect(other.items.map((e: { action: string; actor_email: string }) => [e.action, e.actor_email])).toEqual([['sign_in', bob.email], ['sign_up', bob.email]]);
    // a member of Alice's organisation
    const m = await registerAndLogin(t.app, 'plain', 'Tmp Org');
    const a = await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow();
    for (const role of ['member', 'viewer'] as const) {
      await t.app.ctx.db.updateTable('users').set({ role, organisation_id: a.organisation_id }).where('email', '=', m.email).execute();
      const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: m.email, password: STRONG_PASSWORD } });
      const res = await get({ auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } });
      expect(res.statusCode).toBe(403);
    }
    // an owner promoted to admin reads it
    await t.app.ctx.db.updateTable('users').set({ role: 'admin' }).where('email', '=', m.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: m.email, password: STRONG_PASSWORD } });
    expect((await get({ auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } })).statusCode).toBe(200);
  });

  it('classifies calls', () => {
    expect(classify('POST', '/account/api/auth/login', 200)).toBe('sign_in');
    expect(classify('POST', '/account/api/auth/login', 429)).toBeNull();
    expect(classify('POST', '/account/api/auth/register', 201)).toBe('sign_up');
    expect(classify('POST', '/api/platform/projects/:id/credentials', 201)).toBe('key_create');
    expect(classify('DELETE', '/api/platform/projects/:id/credentials/:credential_id', 200)).toBe('key_revoke');
    expect(classify('DELETE', '/api/members/:id', 200)).toBe('member_remove');
    expect(classify('POST', '/api/regress/report/:id', 200)).toBeNull();
    expect(classify('POST', '/api/dataset/register', 422)).toBeNull();
    expect(classify('GET', '/api/datasets', 200)).toBeNull();
    expect(classify('DELETE', '/api/inference/delete/:id', 200)).toBe('delete');
  });
});
