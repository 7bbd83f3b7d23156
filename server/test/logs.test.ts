import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

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
    const job = await t.app.ctx.jobs.create({ orgId: 'org-l', userId: null, kind: 'diagnostics', spec: { mode: 'fail' } });
    await t.app.ctx.jobs.waitFor(job.id, 60_000);
    const rec = lines.find((l) => l.job_id === job.id && l.state === 'failed');
    expect(rec).toMatchObject({ kind: 'diagnostics', organisation_id: 'org-l', level: 40 });
    expect(String(rec!.msg)).toContain(job.id);
  }, 90_000);
});
