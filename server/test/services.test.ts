import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { platformAdmins } from '../src/auth/platform-admins.js';
import { migrate, openDb } from '../src/db/index.js';
import { JobService } from '../src/jobs/service.js';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp } from './helpers.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';

/**
 * Issue 18 item 1: a tenant's compute service is its own share of the pool. One organisation's stop never
 * changes another's status or holds its jobs; the shared pool is for platform administrators only.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const backends = [
  ...DATABASES.map((db) => ({ name: `local pool, ${db}`, db, redis: false })),
  ...(redisUrl ? [{ name: 'BullMQ on Redis, sqlite', db: 'sqlite' as const, redis: true }] : []),
];

describe.each(backends)('compute service per organisation ($name)', ({ db, redis }) => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof registerAndLogin>>;
  let b: Awaited<ReturnType<typeof registerAndLogin>>;
  let orgA: string;
  let orgB: string;
  const queueName = `mitate-svc-${crypto.randomBytes(4).toString('hex')}`;

  const call = async (method: 'GET' | 'POST', url: string, auth: Record<string, string>, lang = 'en') =>
    t.app.inject({ method, url, headers: { ...auth, 'accept-language': lang } });
  const status = async (auth: Record<string, string>) => (await call('GET', '/api/services/status', auth)).json().detail.response;
  const sleepJob = (orgId: string, seconds: number) =>
    t.app.ctx.jobs.create({ orgId, userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds } });
  const orgOf = async (email: string) =>
    (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', email).executeTakeFirstOrThrow()).organisation_id;

  beforeAll(async () => {
    t = await makeTestApp(db, { config: redis ? { redisUrl, queueName, workers: 1 } : { workers: 1 } });
    a = await registerAndLogin(t.app, 'ann', 'Org A');
    b = await registerAndLogin(t.app, 'bob', 'Org B');
    [orgA, orgB] = [await orgOf(a.email), await orgOf(b.email)];
  }, 900_000);

  afterAll(async () => {
    delete process.env.MITATE_PLATFORM_ADMINS;
    await t?.close();
    if (redis) {
      const conn = new Redis(redisUrl!, { maxRetriesPerRequest: null });
      const q = new Queue(queueName, { connection: conn });
      await q.obliterate({ force: true }).catch(() => {});
      await q.close();
      conn.disconnect();
    }
  }, 900_000);

  it("B's stop never changes A's status, and A's job still runs while B's waits", async () => {
    const stop = await call('POST', '/api/services/stop', b.auth);
    expect(stop.statusCode).toBe(200);
    expect(stop.json().detail.response).toMatchObject({ running: false, paused: true, pool_running: true });
    expect(await status(b.auth)).toMatchObject({ running: false, paused: true });
    expect(await status(a.auth)).toMatchObject({ running: true, paused: false, pool_running: true });

    const held = await sleepJob(orgB, 0.1);
    const runs = await sleepJob(orgA, 0.3);
    expect((await t.app.ctx.jobs.waitFor(runs.id, 600_000)).state).toBe('succeeded');
    // With one worker, B's job would have run by now were it not held.
    await new Promise((r) => setTimeout(r, 500));
    expect((await t.app.ctx.jobs.get(orgB, held.id))?.state).toBe('queued');
    expect(await status(b.auth)).toMatchObject({ queued: 1, active: 0 });
    expect(await status(a.auth)).toMatchObject({ running: true, queued: 0 });

    // A's own stop and start leave B paused.
    expect((await call('POST', '/api/services/stop', a.auth)).json().detail.response.running).toBe(false);
    expect((await call('POST', '/api/services/start', a.auth)).json().detail.response.running).toBe(true);
    expect(await status(b.auth)).toMatchObject({ running: false, paused: true });

    const start = await call('POST', '/api/services/start', b.auth);
    expect(start.json().detail.response).toMatchObject({ running: true, paused: false });
    expect((await t.app.ctx.jobs.waitFor(held.id, 600_000)).state).toBe('succeeded');
  }, 900_000);

  it("a pause holds the organisation's waiting jobs; its running job finishes", async () => {
    const first = await sleepJob(orgB, 1.5);
    const second = await sleepJob(orgB, 0.1);
    await until('B running', async () => (await t.app.ctx.jobs.get(orgB, first.id))?.state === 'running');
    await call('POST', '/api/services/stop', b.auth);
    expect((await t.app.ctx.jobs.waitFor(first.id, 600_000)).state).toBe('succeeded');
    await new Promise((r) => setTimeout(r, 500));
    expect((await t.app.ctx.jobs.get(orgB, second.id))?.state).toBe('queued');
    await call('POST', '/api/services/start', b.auth);
    expect((await t.app.ctx.jobs.waitFor(second.id, 600_000)).state).toBe('succeeded');
  }, 900_000);

  it('keeps the SPEC GET paths answering 405 in our envelope, changing nothing', async () => {
    for (const url of ['/api/services/stop', '/api/services/start']) {
      const res = await call('GET', url, b.auth, 'ja');
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json()).toEqual({ detail: { response: 'この呼び出しにはPOSTメソッドが必要です。', error: 'method_not_allowed' } });
    }
    expect(await status(b.auth)).toMatchObject({ running: true, paused: false });
  });

  it('lets only platform administrators stop and start the shared pool; viewers change nothing', async () => {
    const denied = await call('POST', '/api/services/pool/stop', b.auth);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail.error).toBe('platform_admin_only');
    expect(await status(a.auth)).toMatchObject({ running: true, pool_running: true });

    const viewer = await registerAndLogin(t.app, 'vic', 'Org V');
    await t.app.ctx.db.updateTable('users').set({ role: 'viewer' }).where('email', '=', viewer.email).execute();
    expect((await call('POST', '/api/services/stop', viewer.auth)).statusCode).toBe(403);
    expect(await status(viewer.auth)).toMatchObject({ running: true, paused: false });

    t.app.ctx.config.platformAdmins = platformAdmins({ MITATE_PLATFORM_ADMINS: a.email.toUpperCase() }); // read per call, any case
    expect((await status(a.auth)).pool).toMatchObject({ running: true });
    expect(await status(b.auth)).not.toHaveProperty('pool'); // tenants do not see the platform's load
    const stopped = await call('POST', '/api/services/pool/stop', a.auth);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json().detail.response.running).toBe(false);
    expect(await status(b.auth)).toMatchObject({ running: false, paused: false, pool_running: false });
    expect((await call('POST', '/api/services/pool/start', a.auth)).json().detail.response.running).toBe(true);
    expect(await status(b.auth)).toMatchObject({ running: true, pool_running: true });
  }, 900_000);
});

describe('a paused organisation across a restart (local pool)', () => {
  it('keeps its held jobs queued when the server starts again, and runs them on resume', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-held-'));
    const handle = openDb({ dataDir: dir });
    await migrate(handle.db);
    const config = loadConfig({ MITATE_DATA_DIR: dir, MITATE_WORKERS: '1' }, { redisUrl: undefined });
    const make = () => new JobService({ db: handle.db, config, log: () => {} });
    let s = make();
    try {
      await s.start();
      await s.pauseOrg('org-b', null);
      const held = await s.create({ orgId: 'org-b', userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 0.1 } });
      await s.close();
      s = make();
      await s.start();
      const other = await s.create({ orgId: 'org-a', userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 0.1 } });
      expect((await s.waitFor(other.id, 600_000)).state).toBe('succeeded');
      await new Promise((r) => setTimeout(r, 300));
      expect((await s.get('org-b', held.id))?.state).toBe('queued');
      await s.resumeOrg('org-b', null);
      expect((await s.waitFor(held.id, 600_000)).state).toBe('succeeded');
    } finally {
      await s.close();
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);
});
