import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { migrate, openDb, type DbHandle } from '../src/db/index.js';
import { localize } from '../src/i18n/messages.js';
import { withRequestScope } from '../src/http/request-scope.js';
import { cancelKey } from '../src/jobs/bullmq.js';
import { JobService } from '../src/jobs/service.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';
import { statisticsJob } from '../src/features/datasets/jobs.js';

/** Scale-out mode: BullMQ on a real Redis with the Python `bullmq` worker. Runs only when TEST_REDIS_URL is set. */
const redisUrl = process.env.TEST_REDIS_URL;
const ORG = 'org-a';
const TIMEOUT = 60_000;

describe.skipIf(!redisUrl)('jobs on BullMQ and Redis', () => {
  let dir: string;
  let handle: DbHandle;
  let config: Config;
  let service: JobService;
  let queue: Queue; // a second look at the same queue, as an operator would have
  let redis: Redis;
  const serverLog: string[] = [];
  const records: Record<string, unknown>[] = [];

  const newService = () =>
    new JobService({
      db: handle.db,
      config,
      log: (level, msg, fields) => {
        serverLog.push(`${level} ${msg}`);
        records.push({ level, msg, ...fields });
      },
      bullWorkers: 1,
    });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-bull-'));
    handle = openDb({ dataDir: dir });
    await migrate(handle.db);
    config = loadConfig(
      { MITATE_DATA_DIR: dir, MITATE_WORKERS: '1' },
      { redisUrl, queueName: `mitate-test-${crypto.randomBytes(4).toString('hex')}` },
    );
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
    queue = new Queue(config.queueName, { connection: redis });
    service = newService();
    await service.start();
  }, TIMEOUT);

  afterAll(async () => {
    await service?.close();
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    redis?.disconnect();
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  it('runs a statistics job end to end through Redis and the Python bull worker', async () => {
    const file = path.join(dir, 'data.parquet');
    const make = await (await import('@duckdb/node-api')).DuckDBInstance.create(':memory:');
    const conn = await make.connect();
    await conn.run(`COPY (SELECT i AS n, i % 5 = 0 AS five, 'c' || (i % 3) AS c FROM range(1, 501) t(i)) TO '${file}' (FORMAT parquet)`);
    conn.closeSync();
    make.closeSync();

    const created = await service.create({
      orgId: ORG, userId: 'u1', kind: statisticsJob, spec: { parquet: file, bins: 5 }, subjectType: 'dataset', subjectId: 'd1',
    });
    const job = await service.waitFor(created.id, TIMEOUT);
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ state: 'succeeded', progress: 1 });
    const result = job.result as { row_count: number; columns: (Record<string, unknown> & { histogram: { counts: number[] } })[] };
    expect(result.row_count).toBe(500);
    const n = result.columns.find((c) => c.name === 'n')!;
    expect(n).toMatchObject({ kind: 'numeric', count: 500, mean: 250.5, min: 1, max: 500, median: 250.5, unique: 500 });
    expect(n.std).toBeCloseTo(144.4818327679989, 9);
    expect(n.histogram.counts).toEqual([100, 100, 100, 100, 100]);
    expect(fs.existsSync(path.join(dir, 'jobs', created.id, 'statistics.json'))).toBe(true); // the default output folder
    expect((await queue.getJob(created.id))?.returnvalue).toMatchObject({ row_count: 500 });

    const status = await service.status();
    expect(status).toMatchObject({ mode: 'bullmq', running: true, active: 0 });
    expect(status.workers).toBeGreaterThanOrEqual(1);
  }, TIMEOUT);

  it("carries the creating request's id and trace context to the bull worker, whose JSON records reach the server log", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    const created = await withRequestScope({ requestId: 'bull-req-1', trace: { traceparent } }, () =>
      service.create({ orgId: ORG, userId: 'u1', kind: diagnosticsJob, spec: { mode: 'fail' } }),
    );
    expect((await queue.getJob(created.id))?.data).toMatchObject({ request_id: 'bull-req-1', trace: { traceparent } });
    await service.waitFor(created.id, TIMEOUT);
    const failed = await until('the engine record', async () => records.find((r) => r.job_id === created.id && r.msg === 'engine: job failed'));
    expect(failed).toMatchObject({ source: 'engine', level: 'warn', request_id: 'bull-req-1', kind: 'diagnostics', attempt: 1, worker: 'bull', error_code: 'diagnostic_failure' });
    expect(failed.duration_ms).toEqual(expect.any(Number));
    expect(records.find((r) => r.job_id === created.id && r.state === 'failed')).toMatchObject({ request_id: 'bull-req-1' });
  }, TIMEOUT);

  it('stores failures and streams progress', async () => {
    const failed = await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'fail' } });
    const f = await service.waitFor(failed.id);
    expect(f.state).toBe('failed');
    expect(JSON.parse(f.error ?? '')).toMatchObject({ code: 'diagnostic_failure', params: {}, message: 'diagnostic failure' });
    const raised = await service.waitFor((await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'raise' } })).id);
    expect(raised).toMatchObject({ state: 'failed', error: 'ValueError: a programming error' });
    expect(raised.log).toContain('Traceback');

    const slow = await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 1.5 } });
    const midway = await until('progress of a running job', async () => {
      const j = await service.get(ORG, slow.id);
      return j?.state === 'running' && j.progress > 0 && j.progress < 1 ? j : undefined;
    });
    expect(midway.message).toMatch(/^Step \d+ of 15$/);
    expect((await service.waitFor(slow.id)).state).toBe('succeeded');
  }, TIMEOUT);

  it('cancels a running job through the Redis flag, and a waiting one by removal', async () => {
    const long = await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 30 } });
    await until('the job running', async () => ((await service.get(ORG, long.id))?.progress ?? 0) > 0);
    const cancelled = await service.cancel(ORG, long.id);
    expect(cancelled).toMatchObject({ state: 'cancelled', error: localize('en', 'job_cancelled') });
    expect(await redis.exists(cancelKey(long.id))).toBe(1);
    // The worker notices within a second and gives its job up; it is free for the next one.
    await until('the bull job failed as cancelled', async () => {
      const j = await queue.getJob(long.id);
      return j && (await j.getState()) === 'failed' && j.failedReason === 'cancelled';
    }, 10_000);
    expect((await service.get(ORG, long.id))?.state).toBe('cancelled');

    const paused = await service.stopWorkers();
    expect(paused.running).toBe(false);
    const waiting = await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 0.1 } });
    expect((await service.status()).queued).toBe(1);
    expect((await service.cancel(ORG, waiting.id)).state).toBe('cancelled');
    expect(await queue.getJob(waiting.id)).toBeUndefined();
    const kept = await service.create({ orgId: ORG, userId: null, kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 0.1 } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await service.get(ORG, kept.id))?.state).toBe('queued'); // nothing runs while paused
    expect((await service.startWorkers()).running).toBe(true);
    expect((await service.waitFor(kept.id)).state).toBe('succeeded');
  }, TIMEOUT);

  it('reconciles rows with the queue at start', async () => {
    await service.close();
    const base = { organisation_id: ORG, kind: 'diagnostics', progress: 0, message: '', log: '', result_json: null, error: null, subject_type: null, subject_id: null, created_by: null, attempts: 0, finished_at: null, created_at: new Date().toISOString() };
    const lost = crypto.randomUUID();
    const neverAdded = crypto.randomUUID();
    const doneMeanwhile = crypto.randomUUID();
    await handle.db.insertInto('jobs').values([
      { ...base, id: lost, state: 'running', spec_json: '{"mode":"sleep","seconds":5}', started_at: base.created_at, attempts: 1 },
      { ...base, id: neverAdded, state: 'queued', spec_json: '{"mode":"sleep","seconds":0.1}', started_at: null },
      { ...base, id: doneMeanwhile, state: 'queued', spec_json: '{"mode":"sleep","seconds":0.1}', started_at: null },
    ]).execute();
    // This one ran while no server listened: its result must still reach the row.
    await queue.add('diagnostics', { kind: 'diagnostics', spec: { mode: 'sleep', seconds: 0.1 } }, { jobId: doneMeanwhile });
    // A bare Python worker, as on another host.
    const { spawnEngine } = await import('../src/jobs/engine.js');
    const py = spawnEngine(config, 'mitate_engine.bull_worker', ['--redis', redisUrl!, '--queue', config.queueName]);
    try {
      await until('the job done with no server', async () => (await (await queue.getJob(doneMeanwhile))?.getState()) === 'completed', 40_000);
    } finally {
      py.kill('SIGKILL');
    }

    service = newService();
    await service.start();
    expect(await service.waitFor(lost)).toMatchObject({ state: 'failed', error: localize('en', 'job_interrupted') });
    expect((await service.waitFor(doneMeanwhile)).result).toMatchObject({ slept: expect.any(Number) });
    expect((await service.waitFor(neverAdded)).state).toBe('succeeded');
  }, TIMEOUT);
});
