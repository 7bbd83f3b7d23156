import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestScope } from '../src/http/request-scope.js';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp } from './helpers.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';
import { statisticsJob } from '../src/features/datasets/jobs.js';

/** Issue 16: the operations view for platform administrators (workers, queue by kind, recent failures). */
describe.each(DATABASES)('operations on %s', (kind) => {
  let t: TestApp;
  const saved = process.env.MITATE_PLATFORM_ADMINS;
  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = 'ops@platform.example';
    t = await makeTestApp(kind);
  }, 120_000);
  afterAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = saved;
    await t?.close();
  });

  it('shows the pool, the queue by kind and the latest failures to platform administrators only', async () => {
    const tenant = await registerAndLogin(t.app, 'tenant', 'Tenant Works');
    expect((await t.app.inject({ method: 'GET', url: '/api/services/operations', headers: tenant.auth })).statusCode).toBe(403);
    const ja = await t.app.inject({ method: 'GET', url: '/api/services/operations', headers: { ...tenant.auth, 'accept-language': 'ja' } });
    expect(ja.body).toContain('プラットフォーム管理者');
    const orgId = (await t.app.ctx.db.selectFrom('organisations').select('id').where('name', '=', 'Tenant Works').executeTakeFirstOrThrow()).id;
    // one job that fails in the engine, one that waits behind a paused organisation
    // (created on behalf of a request, whose id the failure list shows, to find the job's log records)
    const failing = await withRequestScope({ requestId: 'ops-req-1' }, () => t.app.ctx.jobs.create({ orgId, userId: null, kind: diagnosticsJob, spec: { mode: 'fail' } }));
    expect((await t.app.ctx.jobs.waitFor(failing.id, 60_000)).state).toBe('failed');
    await t.app.ctx.jobs.pauseOrg(orgId, null);
    await t.app.ctx.jobs.create({ orgId, userId: null, kind: statisticsJob, spec: { parquet: '/nonexistent.parquet' } });

    const admin = await registerAndLogin(t.app, 'ops', 'Platform Ops');
    // registerAndLogin adds a random suffix to the address: make this one the administrator (read per call from the
    // app's config, as MITATE_PLATFORM_ADMINS gives it at start-up)
    t.app.ctx.config.platformAdmins = [admin.email.toLowerCase()];
    const res = await t.app.inject({ method: 'GET', url: '/api/services/operations', headers: admin.auth });
    expect(res.statusCode, res.body).toBe(200);
    const ops = res.json().detail.response;
    expect(ops.pool).toMatchObject({ mode: 'local', workers: expect.any(Number), busy: expect.any(Number) });
    expect(ops.queue).toEqual([{ kind: 'statistics', queued: 1, running: 0 }]);
    expect(ops.oldest_queued_at).toEqual(expect.any(String));
    expect(ops.finished_24h.failed).toBe(1);
    expect(ops.recent_failures[0]).toMatchObject({ id: failing.id, kind: 'diagnostics', organisation_name: 'Tenant Works', attempts: 1, request_id: 'ops-req-1' });
    expect(ops.recent_failures[0].error).toBeTruthy();
  }, 120_000);
});
