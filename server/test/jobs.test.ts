import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { migrate, openDb, type DbHandle } from '../src/db/index.js';
import { AppError } from '../src/http/errors.js';
import { engineErrorText } from '../src/i18n/engine-errors.js';
import { localize } from '../src/i18n/messages.js';
import { JobService } from '../src/jobs/service.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';
import { statisticsJob } from '../src/features/datasets/jobs.js';

/** The local Python worker pool against a real database: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
const databases = [
  { name: 'sqlite', url: undefined as string | undefined },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres', url: process.env.TEST_DATABASE_URL }] : []),
];

const ORG = 'org-a';
const OTHER_ORG = 'org-b';
const TIMEOUT = 60_000;

/** A 1,000-row Parquet file written by DuckDB, and the figures DuckDB computes for it. */
async function writeParquet(file: string) {
  const duck = await DuckDBInstance.create(':memory:');
  const conn = await duck.connect();
  try {
    await conn.run(`
      COPY (
        SELECT i AS id,
               CASE WHEN i % 10 = 0 THEN NULL ELSE ((i * 37) % 101)::DOUBLE / 7 END AS x,
               ['alpha', 'beta', 'beta', 'gamma'][i % 4 + 1] AS cat,
               i % 3 = 0 AS flag,
               TIMESTAMP '2024-01-01' + INTERVAL (i) HOUR AS ts
        FROM range(1000) t(i)
      ) TO '${file}' (FORMAT parquet)`);
    const reader = await conn.runAndReadAll(`
      SELECT count(x) AS n, avg(x) AS mean, stddev_samp(x) AS std, min(x) AS min, max(x) AS max,
             quantile_cont(x, 0.25) AS q1, median(x) AS median, quantile_cont(x, 0.75) AS q3,
             count(DISTINCT x) AS uniq, list(x) FILTER (WHERE x IS NOT NULL) AS xs
      FROM '${file}'`);
    const row = reader.getRowObjectsJson()[0] as Record<string, unknown>;
    return { ...row, xs: (row.xs as number[]).map(Number) } as Record<string, number> & { xs: number[] };
  } finally {
    conn.closeSync();
    duck.closeSync();
  }
}

/** pandas' bias-corrected skewness and excess kurtosis, straight from the definitions. */
function moments(xs: number[]) {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  let m2 = 0, m3 = 0, m4 = 0;
  for (const x of xs) {
    const d = x - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  const skew = ((n * Math.sqrt(n - 1)) / (n - 2)) * (m3 / m2 ** 1.5);
  const kurt = (n * (n + 1) * (n - 1) * m4) / ((n - 2) * (n - 3) * m2 * m2) - (3 * (n - 1) ** 2) / ((n - 2) * (n - 3));
  return { skew, kurt };
}

describe.each(databases)('jobs on the local worker pool ($name)', ({ url }) => {
  let dir: string;
  let handle: DbHandle;
  let pgSchema: string | undefined;
  const services: JobService[] = [];
  const serverLog: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-jobs-'));
    if (url) {
      pgSchema = `jobs_test_${crypto.randomBytes(4).toString('hex')}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`CREATE SCHEMA ${pgSchema}`);
      await client.end();
    }
    handle = openDb({ databaseUrl: url, dataDir: dir, pgSchema });
    await migrate(handle.db, pgSchema);
  }, TIMEOUT);

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  }, TIMEOUT);

  afterAll(async () => {
    await handle?.close();
    if (url && pgSchema) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA ${pgSchema} CASCADE`);
      await client.end();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  function config(overrides: Partial<Config> = {}): Config {
    return loadConfig({ MITATE_DATA_DIR: dir, MITATE_WORKERS: '1' }, { redisUrl: undefined, ...overrides });
  }

  async function service(overrides: Partial<Config> = {}, start = true): Promise<JobService> {
    const s = new JobService({ db: handle.db, config: config(overrides), log: (level, msg) => serverLog.push(`${level} ${msg}`) });
    services.push(s);
    if (start) await s.start();
    return s;
  }

  const sleep = (s: JobService, seconds: number, subjectId = 'subject') =>
    s.create({ orgId: ORG, userId: 'u1', kind: diagnosticsJob, spec: { mode: 'sleep', seconds }, subjectType: 'test', subjectId });

  const running = (s: JobService, id: string) =>
    until(`job ${id} running`, async () => {
      const j = await s.get(ORG, id);
      return j?.state === 'running' && j.progress > 0 ? j : undefined;
    });

  it('runs a statistics job with correct figures', async () => {
    const file = path.join(dir, 'data.parquet');
    const expected = await writeParquet(file);
    const s = await service();
    const seen: string[] = [];
    s.onFinished(statisticsJob, async (job, orgId) => {
      seen.push(`${job.state}:${orgId}`);
    });
    const out = path.join(dir, 'stats-out');
    const created = await s.create({
      orgId: ORG,
      userId: 'u1',
      kind: statisticsJob,
      spec: { parquet: file, output_dir: out, datetime_column: 'ts', max_categories: 20, bins: 10 },
      subjectType: 'dataset',
      subjectId: 'ds1',
    });
    expect(created.state).toBe('queued');
    const job = await s.waitFor(created.id, TIMEOUT);
    expect(job.error).toBeNull();
    expect(job.state).toBe('succeeded');
    expect(job.progress).toBe(1);
    expect(job.started_at && job.finished_at).toBeTruthy();
    expect(seen).toEqual([`succeeded:${ORG}`]);

    const result = job.result as { row_count: number; column_count: number; columns: Record<string, unknown>[] };
    expect(result.row_count).toBe(1000);
    expect(result.column_count).toBe(5);
    const col = Object.fromEntries(result.columns.map((c) => [c.name, c]));
    const x = col.x;
    expect(x.kind).toBe('numeric');
    expect(x.count).toBe(900);
    expect(x.missing).toBe(100);
    expect(x.unique).toBe(Number(expected.uniq));
    for (const key of ['mean', 'std', 'min', 'max', 'q1', 'median', 'q3'] as const) {
      expect(x[key], key).toBeCloseTo(Number(expected[key]), 9);
    }
    const { skew, kurt } = moments(expected.xs);
    expect(x.skewness).toBeCloseTo(skew, 9);
    expect(x.kurtosis).toBeCloseTo(kurt, 9);
    expect(x.histogram.counts).toHaveLength(10);
    expect(x.histogram.edges).toHaveLength(11);
    expect(x.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(900);
    expect(col.id.kind).toBe('numeric');
    expect(col.id.unique).toBe(1000);
    expect(col.cat).toMatchObject({ kind: 'categorical', unique: 3, top: [{ value: 'beta', count: 500 }, { value: 'alpha', count: 250 }, { value: 'gamma', count: 250 }] });
    expect(col.flag).toMatchObject({ kind: 'boolean', top: [{ value: false, count: 666 }, { value: true, count: 334 }] });
    expect(col.ts).toMatchObject({ kind: 'datetime', count: 1000, min: '2024-01-01T00:00:00', max: '2024-02-11T15:00:00' });
    expect(JSON.parse(fs.readFileSync(path.join(out, 'statistics.json'), 'utf8'))).toEqual(result);

    expect((await s.latestFor(ORG, 'dataset', 'ds1', 'statistics'))?.id).toBe(created.id);
    expect(await s.get(OTHER_ORG, created.id)).toBeUndefined();
    expect(await s.latestFor(OTHER_ORG, 'dataset', 'ds1')).toBeUndefined();
  }, TIMEOUT);

  it('stores a failure with its readable message and the traceback in the log', async () => {
    const s = await service();
    const failed = await s.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'fail' } });
    const raised = await s.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'raise' } });
    const bad = await s.create({ orgId: ORG, userId: null, kind: statisticsJob, spec: { parquet: path.join(dir, 'nope.parquet') } });
    // a user error is stored with its code (the engine's one failure record), said in the reader's language when shown
    const f = await s.waitFor(failed.id);
    expect(f.state).toBe('failed');
    expect(JSON.parse(f.error ?? '')).toMatchObject({ code: 'diagnostic_failure', params: {}, message: 'diagnostic failure' });
    expect(engineErrorText(f.error, 'ja')).toBe('診断用の失敗');
    const r = await s.waitFor(raised.id);
    expect(r).toMatchObject({ state: 'failed', error: 'ValueError: a programming error' });
    expect(r.log).toContain('Traceback');
    // stored with its code, said in the reader's language when shown
    expect(engineErrorText((await s.waitFor(bad.id)).error, 'en')).toMatch(/^The data file does not exist/);
  }, TIMEOUT);

  it('keeps logs, typed events and stderr; coalesces progress writes', async () => {
    const s = await service();
    const events: string[] = [];
    s.onEvent(diagnosticsJob, (job, event) => {
      events.push(`${job.orgId}:${event.type}`);
    });
    const printed = await s.waitFor((await s.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'print' } })).id);
    expect(printed.state).toBe('succeeded');
    expect(printed.result).toEqual({ printed: true, nan: null, inf: null });
    expect(printed.log).toContain('after the noise');
    expect(printed.log).toContain('[metrics] {"values":{"loss":0.5,"nan":null}}');
    expect(events).toEqual([`${ORG}:metrics`]);
    await until('stderr in the server log', async () => serverLog.some((l) => l.includes('noise on stdout from a task')));

    // 2 s of sleep sends ~20 progress events; the row is written only a few times a second.
    const chatty = await sleep(s, 2);
    await s.waitFor(chatty.id);
    const row = await handle.db.selectFrom('jobs').select(['seq', 'attempts']).where('id', '=', chatty.id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(1);
    expect(row.seq).toBeGreaterThan(2);
    expect(row.seq).toBeLessThan(16);
  }, TIMEOUT);

  it('cancels queued and running jobs; the pool carries on', async () => {
    const s = await service();
    const first = await sleep(s, 30);
    const second = await sleep(s, 30);
    await running(s, first.id);
    expect((await s.get(ORG, second.id))?.state).toBe('queued');

    const c2 = await s.cancel(ORG, second.id);
    expect(c2).toMatchObject({ state: 'cancelled', error: localize('en', 'job_cancelled') });
    const c1 = await s.cancel(ORG, first.id);
    expect(c1.state).toBe('cancelled');
    expect(c1.progress).toBeGreaterThan(0);

    await expect(s.cancel(ORG, first.id)).rejects.toMatchObject({ status: 409, key: 'job_not_cancellable' });
    await expect(s.cancel(OTHER_ORG, first.id)).rejects.toBeInstanceOf(AppError);
    await expect(s.cancel(ORG, 'no-such-job')).rejects.toMatchObject({ status: 404, key: 'job_not_found' });

    const next = await sleep(s, 0.2);
    expect((await s.waitFor(next.id)).state).toBe('succeeded');
    expect((await s.get(ORG, first.id))?.state).toBe('cancelled'); // no late result overwrote it
    expect(await s.status()).toMatchObject({ mode: 'local', running: true, workers: 1, queued: 0 });
  }, TIMEOUT);

  it('fails a job whose worker crashed, and runs the next one on a fresh worker', async () => {
    const s = await service();
    const crash = await s.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'crash' } });
    const next = await sleep(s, 0.2);
    const crashed = await s.waitFor(crash.id);
    expect(crashed).toMatchObject({ state: 'failed', error: localize('en', 'job_interrupted') });
    expect(crashed.log).toContain('crashing on purpose');
    expect((await s.waitFor(next.id)).state).toBe('succeeded');
  }, TIMEOUT);

  it('recovers at start: running rows fail as interrupted, queued rows run', async () => {
    const base = { organisation_id: ORG, kind: 'diagnostics', progress: 0.5, message: '', log: '', result_json: null, error: null, subject_type: null, subject_id: null, created_by: null, attempts: 1, finished_at: null };
    const runningId = `rec-running-${crypto.randomUUID()}`;
    const queuedId = `rec-queued-${crypto.randomUUID()}`;
    await handle.db.insertInto('jobs').values([
      { ...base, id: runningId, state: 'running', spec_json: JSON.stringify({ mode: 'sleep', seconds: 5 }), created_at: new Date().toISOString(), started_at: new Date().toISOString() },
      { ...base, id: queuedId, state: 'queued', progress: 0, attempts: 0, spec_json: JSON.stringify({ mode: 'sleep', seconds: 0.1 }), created_at: new Date().toISOString(), started_at: null },
    ]).execute();
    const s = await service({}, false);
    const finished: string[] = [];
    s.onFinished(diagnosticsJob, async (job) => {
      finished.push(job.id);
    });
    await s.start();
    expect(await s.waitFor(runningId)).toMatchObject({ state: 'failed', error: localize('en', 'job_interrupted'), progress: 0.5 });
    expect((await s.waitFor(queuedId)).state).toBe('succeeded');
    expect(finished.sort()).toEqual([runningId, queuedId].sort());
  }, TIMEOUT);

  it('stops and starts the workers without losing queued or running jobs', async () => {
    const s = await service();
    const a = await sleep(s, 1.5);
    const b = await sleep(s, 0.2);
    await running(s, a.id);
    const stopped = await s.stopWorkers();
    expect(stopped).toMatchObject({ mode: 'local', running: false, workers: 0, busy: 0, queued: 2 });
    expect(await s.get(ORG, a.id)).toMatchObject({ state: 'queued', started_at: null });
    expect((await s.get(ORG, b.id))?.state).toBe('queued');
    await new Promise((r) => setTimeout(r, 300));
    expect((await s.get(ORG, b.id))?.state).toBe('queued'); // nothing runs while stopped

    const started = await s.startWorkers();
    expect(started).toMatchObject({ running: true, workers: 1 });
    const doneA = await s.waitFor(a.id);
    const doneB = await s.waitFor(b.id);
    expect(doneA.state).toBe('succeeded');
    expect(doneB.state).toBe('succeeded');
    expect(doneA.finished_at! <= doneB.started_at!).toBe(true); // the interrupted job went back to the head
    const row = await handle.db.selectFrom('jobs').select('attempts').where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
  }, TIMEOUT);

  it('hands running jobs back to the queue on close, and runs them after the next start', async () => {
    const s1 = await service();
    const a = await sleep(s1, 1);
    await running(s1, a.id);
    await s1.close();
    expect((await s1.get(ORG, a.id))?.state).toBe('queued');
    const s2 = await service();
    expect((await s2.waitFor(a.id)).state).toBe('succeeded');
  }, TIMEOUT);
});
