import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

/**
 * The tenancy matrix, generated from the OpenAPI document: every operation whose path takes a parameter is
 * called by another organisation's owner with each id organisation A owns, and must answer 404 (never 2xx, never
 * 5xx); every write operation answers a viewer 403 unless it is listed below as self-service. A new route is in
 * the matrix by being in the document; one that answers otherwise fails here until it is fixed or listed with a reason.
 */

/** Path parameters that are not ids of an organisation's rows (searches, names, indexes): filled with a harmless value. */
const NOT_IDS = new Set(['q', 'query', 'name', 'index', 'lang', 'type', 'prefix', 'token', 'key', 'format', 'kind', 'value', 'deleted', 'path']);

/** Writes a viewer may make: their own session, profile and settings. */
const SELF_SERVICE = [
  /^\/account\/api\/auth\//,
  /^\/api\/users\/me/,
  /^\/api\/profile/,
  /^\/api\/account/,
  /\/logout$/,
];

/** Operations that answer a caller who is not a platform administrator 403 (not 404) by design. */
const PLATFORM_ADMIN = [/^\/api\/admin\//, /^\/admin\//, /^\/account\/api\/admin\//, /^\/api\/services\/pool\//, /^\/api\/platform\/admin/, /^\/api\/billing\/admin\//];

/**
 * POST operations that only read (queries with a body, downloads, quotes, progress): a viewer may call them.
 * A new POST that writes must be guarded by role; one that reads is added here.
 */
const READ_POSTS = new Set([
  '/api/statistics/result/{dataset_id}',
  '/api/statistical/analysis/download',
  '/api/download/file',
  '/api/visualization/histogram/{dataset_id}',
  '/api/visualization/boxplot/{dataset_id}',
  '/api/visualization/scatter/{dataset_id}',
  '/api/visualization/matrix/{dataset_id}',
  '/api/visualization/correlation/{dataset_id}',
  '/api/statistics/timeseries/{dataset_id}',
  '/api/load/dataset/{id}',
  '/api/regress/report/{id}',
  '/api/softsensor/report/{id}',
  '/api/discriminant/analysis/report/{id}',
  '/api/clustering/report/{id}',
  '/api/dimensional/compression/report/{id}',
  '/api/optimal/experiment/download',
  '/api/optimization/preprocess/{project_id}',
  '/api/optimization/prediction/result/{task_id}',
  '/api/opt/feature/download/{dataset_id}',
  '/api/optimization/csv/upload',
  '/api/train/progress/{task_id}',
  '/api/timeseries/report/{id}',
  // the engine's suggestion of slowly drifting signals: a quick job that stores nothing
  '/api/timeseries/drift/suggest/{id}',
  '/api/platform/quote',
]);

describe('tenancy matrix from the OpenAPI document', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let viewer: { auth: Record<string, string> };
  let doc: { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
  const ownIds: string[] = [];

  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    alice = await registerAndLogin(t.app, 'tenant', 'Org A');
    bob = await registerAndLogin(t.app, 'intruder', 'Org B');
    // a viewer of organisation A
    const v = await registerAndLogin(t.app, 'viewer', 'Org V');
    const a = await t.app.ctx.db.selectFrom('users').select(['organisation_id']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db.updateTable('users').set({ role: 'viewer', organisation_id: a.organisation_id }).where('email', '=', v.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: v.email, password: STRONG_PASSWORD } });
    viewer = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };

    // organisation A's rows: a dataset, a training project on it, a preprocessing condition, the user and organisation ids
    const csv = 'x,y\n' + Array.from({ length: 30 }, (_, i) => `${i},${i * 2 + (i % 3)}`).join('\n');
    const ds = (await upload(t.app, alice.auth, { name: 'mine.csv', content: csv })).json().detail.response;
    ownIds.push(ds.id);
    const reg = await t.app.inject({
      method: 'POST', url: `/api/regress/register/${ds.id}`, headers: alice.auth,
      payload: { name: 'mine', target_variables: ['y'], feature_variables: ['x'], models: [{ algorithm: 'ridge' }] },
    });
    if (reg.statusCode === 200) ownIds.push(reg.json().detail.response.project_id);
    const user = await t.app.ctx.db.selectFrom('users').select(['id', 'organisation_id']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    ownIds.push(user.id);
    for (const table of ['jobs', 'preprocess_conditions', 'training_projects'] as const) {
      const rows = await t.app.ctx.db.selectFrom(table).select('id').where('organisation_id', '=', user.organisation_id).execute().catch(() => []);
      for (const r of rows) if (!ownIds.includes(r.id)) ownIds.push(r.id);
    }
    doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
  }, 900_000);
  afterAll(() => t?.close());

  const operations = () => {
    const ops: { method: string; path: string; params: string[] }[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const params = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        void op;
        ops.push({ method: method.toUpperCase(), path: p, params });
      }
    }
    return ops;
  };

  it("answers another organisation's ids with 404 on every operation that takes one", async () => {
    const ops = operations().filter((o) => o.params.some((p) => !NOT_IDS.has(p)));
    expect(ops.length).toBeGreaterThan(60);
    expect(ownIds.length).toBeGreaterThanOrEqual(3);
    const wrong: string[] = [];
    let cases = 0;
    for (const op of ops) {
      if (PLATFORM_ADMIN.some((re) => re.test(op.path))) continue;
      for (const id of ownIds) {
        const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (NOT_IDS.has(name) ? (name === 'index' ? '0' : 'x') : id));
        const res = await t.app.inject({
          method: op.method as 'GET',
          url,
          headers: { ...bob.auth, 'accept-language': 'en' },
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: {} }),
        });
        cases++;
        // 404: not found for them. 400/415/422: the body is refused before any lookup (nothing read, nothing leaked).
        if (![404, 400, 415, 422].includes(res.statusCode)) wrong.push(`${op.method} ${op.path} (${id}): ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(cases).toBeGreaterThan(150);
  }, 900_000);

  it('answers a viewer 403 on every write operation except their own account', async () => {
    const writes = operations().filter(
      (o) =>
        o.method !== 'GET' &&
        o.path.startsWith('/api') &&
        !SELF_SERVICE.some((re) => re.test(o.path)) &&
        !PLATFORM_ADMIN.some((re) => re.test(o.path)) &&
        !(o.method === 'POST' && READ_POSTS.has(o.path)),
    );
    expect(writes.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const op of writes) {
      const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'index' ? '0' : (ownIds[0] ?? 'x')));
      const res = await t.app.inject({
        method: op.method as 'POST',
        url,
        headers: { ...viewer.auth, 'accept-language': 'en' },
        ...(op.method === 'DELETE' ? {} : { payload: {} }),
      });
      if (res.statusCode !== 403) wrong.push(`${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 100)}`);
    }
    expect(wrong).toEqual([]);
    // the dataset is still there
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', ownIds[0]).executeTakeFirst();
    expect(row).toBeTruthy();
  }, 900_000);
});
