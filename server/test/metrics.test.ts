import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, type TestApp } from './helpers.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';

/** Issue 16: Prometheus metrics at a protected path. */
describe('metrics', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: Awaited<ReturnType<typeof registerAndLogin>>;
  const saved = { token: process.env.MITATE_METRICS_TOKEN, admins: process.env.MITATE_PLATFORM_ADMINS };

  beforeAll(async () => {
    process.env.MITATE_METRICS_TOKEN = 'scrape-secret-123';
    t = await makeTestApp('sqlite');
    alice = await registerAndLogin(t.app, 'tenant', 'Metrics Org');
    admin = await registerAndLogin(t.app, 'opsadmin', 'Ops');
    t.app.ctx.config.platformAdmins = [admin.email.toLowerCase()]; // read per call from the app's config
  }, 900_000);
  afterAll(async () => {
    await t?.close();
    for (const [k, v] of [['MITATE_METRICS_TOKEN', saved.token], ['MITATE_PLATFORM_ADMINS', saved.admins]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const scrape = (auth?: string) => t.app.inject({ method: 'GET', url: '/metrics', headers: auth ? { authorization: `Bearer ${auth}` } : {} });

  it('refuses anyone but the scraper token and platform administrators', async () => {
    expect((await scrape()).statusCode).toBe(401);
    expect((await scrape('wrong')).statusCode).toBe(401);
    expect((await scrape(alice.tokens.access_token)).statusCode).toBe(401);
    expect((await scrape(admin.tokens.access_token)).statusCode).toBe(200);
  });

  it('counts requests with latencies, and reports the queue and finished jobs', async () => {
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/api/dataset', headers: alice.auth });
    const job = await t.app.ctx.jobs.create({ orgId: 'o', userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 0.2 } });
    await t.app.ctx.jobs.waitFor(job.id, 600_000);
    const res = await scrape('scrape-secret-123');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    const text = res.body;
    const route = (await t.app.inject({ method: 'GET', url: '/api/dataset', headers: alice.auth })).statusCode;
    expect(text).toMatch(new RegExp(`mitate_http_requests_total\\{method="GET",route="/api/dataset",status="${route}"\\} 3`));
    expect(text).toMatch(/mitate_http_request_duration_seconds_bucket\{method="GET",route="\/api\/dataset",le="\+Inf"\} 3/);
    expect(text).toMatch(/mitate_queue_jobs\{state="waiting"\} \d+/);
    expect(text).toMatch(/mitate_workers \d+/);
    expect(text).toContain('mitate_jobs_finished_24h{kind="diagnostics",state="succeeded"} 1');
    expect(text).toContain('mitate_job_duration_seconds_24h_count{kind="diagnostics"} 1');
    // every sample line is name{labels} value
    for (const line of text.trim().split('\n')) if (!line.startsWith('#')) expect(line).toMatch(/^[a-z_0-9]+(\{[^}]*\})? [0-9.e+-]+$/);
  }, 90_000);
});
