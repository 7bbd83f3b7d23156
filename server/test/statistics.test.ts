import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

/** SPEC §4/§7: statistics generation is an engine job that succeeds or fails and can be run again. */
describe.each(DATABASES)('statistics generation on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let id: string;

  beforeAll(async () => {
    t = await makeTestApp(kind);
    alice = await registerAndLogin(t.app, 'stat');
    const res = await upload(t.app, alice.auth, { name: 'ccpp.csv', content: fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv')) });
    id = res.json().detail.response.id;
  });
  afterAll(() => t.close());

  const result = async () => (await t.app.inject({ method: 'POST', url: `/api/statistics/result/${id}`, headers: alice.auth })).json().detail.response;

  it('starts on registration, runs in the engine, and stores figures that agree with pandas', async () => {
    // Issue 21: nobody has to ask for the statistics of a new dataset.
    const first = await result();
    expect(['queued', 'running', 'succeeded']).toContain(first.state);
    await t.app.ctx.jobs.waitFor(first.job_id, 600_000);
    const start = await t.app.inject({ method: 'POST', url: `/api/statistics/${id}`, headers: alice.auth });
    expect(start.statusCode).toBe(200);
    const { job_id } = start.json().detail.response;
    await t.app.ctx.jobs.waitFor(job_id, 600_000);
    const r = await result();
    expect(r.state).toBe('succeeded');
    expect(r.progress).toBe(1);
    const at = r.result.columns.find((c: { name: string }) => c.name === 'AT');
    // pandas 3.1 on the same file: quantile(.25)=13.51, median=20.345, quantile(.75)=25.72, skew()=-0.13639..., kurt()=-1.0375491923...
    expect(at.kind).toBe('numeric');
    expect(at.q1).toBeCloseTo(13.51, 9);
    expect(at.median).toBeCloseTo(20.345, 9);
    expect(at.q3).toBeCloseTo(25.72, 9);
    expect(at.skewness).toBeCloseTo(-0.1363930495, 9);
    expect(at.kurtosis).toBeCloseTo(-1.0375491923, 9);
    expect(at.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(9568);
    const d = (await t.app.inject({ method: 'GET', url: `/api/dataset/${id}/true`, headers: alice.auth })).json().detail.response;
    expect(d.statistics).toEqual({ state: 'succeeded', job_id });
  });

  it('fails with a readable reason when the data cannot be read, and can be run again', async () => {
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const file = path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', id, 'data.parquet');
    const saved = fs.readFileSync(file);
    fs.writeFileSync(file, 'this is not parquet');
    const start = await t.app.inject({ method: 'POST', url: `/api/statistics/${id}`, headers: alice.auth });
    await t.app.ctx.jobs.waitFor(start.json().detail.response.job_id, 600_000);
    const failed = await result();
    expect(failed.state).toBe('failed');
    expect(failed.error).toBeTruthy();
    expect(failed.result).toBeNull();
    fs.writeFileSync(file, saved);
    const again = await t.app.inject({ method: 'POST', url: `/api/statistics/${id}`, headers: alice.auth });
    await t.app.ctx.jobs.waitFor(again.json().detail.response.job_id, 600_000);
    expect((await result()).state).toBe('succeeded');
  });

  it('reports and controls the worker pool (services calls)', async () => {
    const get = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: alice.auth })).json().detail.response;
    const status = await get('/api/services/status');
    expect(status).toMatchObject({ mode: 'local', running: true, max_upload_mb: 1024 });
    expect(status.workers).toBeGreaterThanOrEqual(1);
    const post = async (url: string) => (await t.app.inject({ method: 'POST', url, headers: alice.auth })).json().detail.response;
    expect((await post('/api/services/stop')).running).toBe(false);
    expect((await get('/api/service/count')).count).toBe(0);
    expect((await post('/api/services/start')).running).toBe(true);
  });
});
