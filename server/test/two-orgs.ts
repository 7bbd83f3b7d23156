import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { type DbKind, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

type Login = Awaited<ReturnType<typeof registerAndLogin>>;

/**
 * For one describe block: an app with two organisations, a writer in each (`alice`, the default caller, and `bob`,
 * who must see nothing of hers), calls as either in a language, and a viewer of Alice's organisation on demand.
 * The app is made before the block's own beforeAll hooks run, and closed after it.
 */
export function twoOrgs(kind: DbKind, names: { alice: string; bob: string }, workers: number) {
  const s = {} as { t: TestApp; alice: Login; bob: Login };
  beforeAll(async () => {
    s.t = await makeTestApp(kind, { config: { workers } });
    s.alice = await registerAndLogin(s.t.app, names.alice);
    s.bob = await registerAndLogin(s.t.app, names.bob, 'Other Org');
  }, 120_000);
  afterAll(() => s.t?.close());

  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = s.alice, lang = 'en') =>
    s.t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  /** A viewer of Alice's organisation (registered elsewhere, then moved in with the viewer role). */
  async function viewer(): Promise<{ auth: Record<string, string> }> {
    const { app } = s.t;
    const carol = await registerAndLogin(app, 'carol', 'Tmp Org');
    const org = await app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', s.alice.email).executeTakeFirstOrThrow();
    await app.ctx.db.updateTable('users').set({ organisation_id: org.organisation_id, role: 'viewer' }).where('email', '=', carol.email).execute();
    const login = await app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: carol.email, password: STRONG_PASSWORD } });
    return { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
  }

  return { s, call, body, viewer };
}
