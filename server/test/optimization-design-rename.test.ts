import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

/** A multipart body with the JSON `settings` field (POST /optimal/register). */
function form(settings: unknown) {
  const boundary = `----doe${crypto.randomBytes(8).toString('hex')}`;
  const text = `--${boundary}\r\nContent-Disposition: form-data; name="settings"\r\n\r\n${JSON.stringify(settings)}\r\n--${boundary}--\r\n`;
  return { payload: Buffer.from(text), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Issue 33: optimisation and design-of-experiments project pages offer Rename as every project page does. */
describe.each(DATABASES)('renaming optimisation and design projects on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  const ids: Record<string, string> = {};
  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const urls = () => ({ opt: `/api/optimization/project/${ids.opt}`, doe: `/api/optimal/project/${ids.doe}` });

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'renamer');
    bob = await registerAndLogin(t.app, 'stranger', 'Other Org');
    const rows = Array.from({ length: 60 }, (_, i) => `${i % 10},${(i * 7) % 13},${2 * (i % 10) + ((i * 7) % 13)}`);
    const ds = body(await upload(t.app, alice.auth, { name: 'xy.csv', content: ['x1,x2,y', ...rows].join('\n') }));
    const reg = body(await call('POST', `/api/regress/register/${ds.id}`, { name: 'Linear y', target_variables: ['y'], feature_variables: ['x1', 'x2'], models: [{ algorithm: 'linear' }] }));
    const started = body(await call('POST', `/api/train/model/${reg.project_id}`, {}));
    await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    const model = body(await call('GET', `/api/regress/project/${reg.project_id}`)).models.find((m: { state: string }) => m.state === 'done');
    const opt = await call('POST', `/api/optimization/register/${ds.id}`, {
      name: 'Highest y',
      models: [{ project_id: reg.project_id, model_key: model.model_key }],
      targets: [{ name: 'y', goal: 'maximize' }],
      features: [
        { name: 'x1', kind: 'range', lower: 0, upper: 9 },
        { name: 'x2', kind: 'range', lower: 0, upper: 12 },
      ],
      run: false,
    });
    expect(opt.statusCode, opt.body).toBe(201);
    ids.opt = body(opt).id;
    const doe = form({ name: 'Two factors', variables: [{ name: 'a', type: 'continuous', low: 0, high: 1 }, { name: 'b', type: 'continuous', low: 0, high: 1 }], model: { kind: 'linear' }, responses: ['y'], algorithm: 'full_factorial', n_runs: 4, exclude_tolerance: 0.01 });
    const res = await t.app.inject({ method: 'POST', url: '/api/optimal/register', payload: doe.payload, headers: { ...doe.headers, ...alice.auth } });
    expect(res.statusCode, res.body).toBe(201);
    ids.doe = body(res).id;
  }, 600_000);
  afterAll(() => t?.close());

  it('renames an optimisation project: trimmed, answered with the project, listed under the new name', async () => {
    const res = await call('PUT', urls().opt, { name: '  Highest y, line 2  ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res)).toMatchObject({ id: ids.opt, name: 'Highest y, line 2', state: 'ready' });
    expect(body(await call('GET', urls().opt)).name).toBe('Highest y, line 2');
    expect(body(await call('GET', '/api/optimization/projects/list?query=line%202&page=1&page_size=10')).items.map((p: { id: string }) => p.id)).toEqual([ids.opt]);
  });

  it('renames a design project, in any state', async () => {
    const res = await call('PUT', urls().doe, { name: 'Two factors, batch B' });
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res)).toMatchObject({ id: ids.doe, name: 'Two factors, batch B' });
    expect(body(await call('GET', urls().doe)).name).toBe('Two factors, batch B');
    expect(body(await call('GET', '/api/optimal/projects?query=batch&page=1&page_size=10')).items.map((p: { name: string }) => p.name)).toEqual(['Two factors, batch B']);
  });

  it('refuses an empty or too long name, in the caller language, and changes nothing', async () => {
    for (const url of Object.values(urls())) {
      const res = await call('PUT', url, { name: '   ' }, alice, 'ja');
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0].loc).toContain('name');
      expect((await call('PUT', url, { name: 'x'.repeat(201) })).statusCode, url).toBe(422);
    }
    expect(body(await call('GET', urls().opt)).name).toBe('Highest y, line 2');
    expect(body(await call('GET', urls().doe)).name).toBe('Two factors, batch B');
  });

  it('another organisation sees nothing; viewers cannot rename', async () => {
    for (const url of Object.values(urls())) expect((await call('PUT', url, { name: 'theirs' }, bob)).statusCode, url).toBe(404);
    expect((await call('PUT', `/api/optimization/project/${ids.doe}`, { name: 'x' })).statusCode).toBe(404);
    expect((await call('PUT', `/api/optimal/project/${ids.opt}`, { name: 'x' })).statusCode).toBe(404);
    const carol = await registerAndLogin(t.app, 'carol', 'Tmp Org');
    const org = await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db.updateTable('users').set({ organisation_id: org.organisation_id, role: 'viewer' }).where('email', '=', carol.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: carol.email, password: STRONG_PASSWORD } });
    const viewer = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    for (const url of Object.values(urls())) expect((await call('PUT', url, { name: 'viewer' }, viewer)).statusCode, url).toBe(403);
    expect(body(await call('GET', urls().opt)).name).toBe('Highest y, line 2');
    expect(body(await call('GET', urls().doe)).name).toBe('Two factors, batch B');
  });
});
