import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, upload, type TestApp } from './helpers.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';

/** Issue 16: structured JSON logs carry the request id (kept from X-Request-Id) and, for jobs, the job id. */
describe('structured logs', () => {
  let t: TestApp;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { logger: true, logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  }, 120_000);
  afterAll(() => t?.close());

  it('keeps a given request id, answers it, and logs the request under it; a fresh id otherwise', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json', headers: { 'x-request-id': 'edge-42.a' } });
    expect(res.headers['x-request-id']).toBe('edge-42.a');
    expect(lines.some((l) => l.reqId === 'edge-42.a' && (l.res as { statusCode?: number } | undefined)?.statusCode === 200)).toBe(true);
    const other = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(other.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs a finished job as one record with its id, kind and state', async () => {
    const job = await t.app.ctx.jobs.create({ orgId: 'org-l', userId: null, kind: diagnosticsJob, spec: { mode: 'fail' } });
    await t.app.ctx.jobs.waitFor(job.id, 60_000);
    const rec = lines.find((l) => l.job_id === job.id && l.state === 'failed');
    expect(rec).toMatchObject({ kind: 'diagnostics', organisation_id: 'org-l', level: 40 });
    expect(String(rec!.msg)).toContain(job.id);
  }, 90_000);

  it('a job created by a request keeps its request id; the engine logs the job as JSON records with both ids', async () => {
    const { auth } = await registerAndLogin(t.app, 'logan');
    // A real route (multipart upload) whose work starts the dataset's statistics job.
    const res = await upload(t.app, auth, { name: 'logs.csv', content: 'x,y\n1,2\n3,4\n5,7\n' }, {}, { 'x-request-id': 'upload-req.7' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-request-id']).toBe('upload-req.7');
    const row = await until('the statistics job', () =>
      t.app.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', 'statistics').where('request_id', '=', 'upload-req.7').executeTakeFirst(),
    );
    const job = await t.app.ctx.jobs.waitFor(row.id, 120_000);
    expect(job.state).toBe('succeeded');
    // The server's own records of the job carry the request id ...
    expect(lines.find((l) => l.job_id === row.id && String(l.msg).endsWith('queued'))).toMatchObject({ request_id: 'upload-req.7', kind: 'statistics' });
    expect(lines.find((l) => l.job_id === row.id && l.state === 'succeeded')).toMatchObject({ request_id: 'upload-req.7' });
    // ... and so do the engine's, passed through from its stderr as records of their own.
    const started = await until('the engine record', async () => lines.find((l) => l.job_id === row.id && l.msg === 'engine: job started'));
    expect(started).toMatchObject({ source: 'engine', request_id: 'upload-req.7', kind: 'statistics', attempt: 1, level: 30 });
    expect(String(started.engine_time)).toMatch(/^\d{4}-\d\d-\d\dT/);
    const done = await until('the engine end record', async () => lines.find((l) => l.job_id === row.id && l.msg === 'engine: job succeeded'));
    expect(done).toMatchObject({ request_id: 'upload-req.7', kind: 'statistics', attempt: 1 });
    expect(done.duration_ms).toEqual(expect.any(Number));
    // They are for operators: the user's job log does not repeat them.
    expect(job.log).not.toContain('mitate_engine');
  }, 180_000);

  it('a failed job: the engine record has its error code, at warning level', async () => {
    const job = await t.app.ctx.jobs.create({ orgId: 'org-l', userId: null, kind: diagnosticsJob, spec: { mode: 'fail' } });
    await t.app.ctx.jobs.waitFor(job.id, 60_000);
    const rec = await until('the engine record', async () => lines.find((l) => l.job_id === job.id && l.msg === 'engine: job failed'));
    expect(rec).toMatchObject({ source: 'engine', kind: 'diagnostics', error_code: 'diagnostic_failure', level: 40 });
    expect(rec.request_id).toBeUndefined(); // not created by a request
    expect(rec.duration_ms).toEqual(expect.any(Number));
  }, 90_000);
});

