import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { migrate, openDb, type DbHandle } from '../src/db/index.js';
import { engineDir } from '../src/jobs/engine.js';
import { JobService } from '../src/jobs/service.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';

const redisUrl = process.env.TEST_REDIS_URL;
const ORG = 'org-a';

function fresh(prefix: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const handle = openDb({ dataDir: dir });
  return { dir, handle };
}

/** Remote workers: a worker killed mid-job loses its lock; the job runs once more on another worker, and its
 * result is applied once. Runs only when TEST_REDIS_URL is set. */
describe.skipIf(!redisUrl)('a worker dies mid-job (BullMQ)', () => {
  let dir: string;
  let handle: DbHandle;
  let config: Config;
  let service: JobService;
  let queue: Queue;
  let redis: Redis;
  const procs: ChildProcess[] = [];
  const logs = new Map<ChildProcess, string[]>();

  /** A Python bull worker as another host would run it, with a short lock so the test does not wait 60 s. */
  const startWorker = () => {
    const proc = spawn(
      path.join(engineDir, '..', '.venv', 'bin', 'python'),
      ['-u', '-m', 'mitate_engine.bull_worker', '--redis', redisUrl!, '--queue', config.queueName, '--lock-ms', '4000'],
      { cwd: engineDir, env: { ...process.env, PYTHONPATH: engineDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: string[] = [];
    logs.set(proc, lines);
    proc.stdout!.on('data', (d) => lines.push(String(d)));
    proc.stderr!.on('data', (d) => lines.push(String(d)));
    procs.push(proc);
    return proc;
  };
  const ready = (proc: ChildProcess) => until('worker ready', async () => logs.get(proc)!.join('').includes('"type":"ready"'));
  /** Every worker started so far stopped, so the next test's job can only go to the workers it starts itself. */
  const stopAll = async () => {
    await Promise.all(
      procs.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => (p.once('exit', r), p.kill('SIGKILL'))))),
    );
  };

  beforeAll(async () => {
    ({ dir, handle } = fresh('mitate-retry-'));
    await migrate(handle.db);
    config = loadConfig({ MITATE_DATA_DIR: dir }, { redisUrl, queueName: `mitate-retry-${crypto.randomBytes(4).toString('hex')}` });
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
    queue = new Queue(config.queueName, { connection: redis });
    service = new JobService({ db: handle.db, config, log: () => {}, bullWorkers: 0 });
    await service.start();
  }, 900_000);

  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await service?.close();
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    redis?.disconnect();
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 900_000);

  it('runs the job again on the surviving worker and applies its result once', async () => {
    let finished = 0;
    service.onFinished(diagnosticsJob, async () => {
      finished++;
    });
    const workers = [startWorker(), startWorker()];
    await Promise.all(workers.map(ready));
    // 'block' reports nothing after it starts, so the job's progress keeps the pid of the worker that took it
    const job = await service.create({ orgId: ORG, userId: 'u1', kind: diagnosticsJob, spec: { mode: 'block', seconds: 12 } });
    const pid = await until('the job running on a worker', async () => {
      const p = (await queue.getJob(job.id))?.progress as { pid?: number } | undefined;
      return (await service.get(ORG, job.id))?.state === 'running' && p?.pid;
    });
    const first = workers.find((w) => w.pid === pid)!;
    const second = workers.find((w) => w.pid !== pid)!;
    expect(first).toBeTruthy();
    first.kill('SIGKILL'); // mid-job, as a host that loses power
    const done = await service.waitFor(job.id, 300_000);
    expect(done.state).toBe('succeeded');
    expect(done.result).toEqual({ blocked: true });
    // The workers' JSON records: the survivor ran it as the 2nd attempt and finished it; the killed one never did.
    const records = (w: ChildProcess) =>
      logs.get(w)!.join('').split('\n').filter((l) => l.startsWith('{"time"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records(second).find((r) => r.job_id === job.id && r.msg === 'job succeeded')).toMatchObject({ attempt: 2, kind: 'diagnostics', worker: 'bull' });
    expect(records(first).find((r) => r.job_id === job.id && r.msg === 'job started')).toMatchObject({ attempt: 1 });
    expect(records(first).some((r) => r.job_id === job.id && r.msg === 'job succeeded')).toBe(false);
    // the queue knows it ran twice (one stall); the row and the handlers saw one completion
    const bull = await queue.getJob(job.id);
    expect(await bull!.getState()).toBe('completed');
    await new Promise((r) => setTimeout(r, 1500));
    expect(finished).toBe(1);

    // a completion reported again (a duplicate event, another server's reconcile) changes nothing
    const before = await service.get(ORG, job.id);
    (service as unknown as { listener(): { succeeded(id: string, result: unknown): void } }).listener().succeeded(job.id, { blocked: false });
    await new Promise((r) => setTimeout(r, 500));
    const after = await service.get(ORG, job.id);
    expect(after).toEqual(before);
    expect(finished).toBe(1);
  }, 900_000);

  it('fails a job whose worker dies twice, and does not leave it running', async () => {
    await stopAll(); // the survivor of the test before would otherwise take the job from b
    const a = startWorker();
    await ready(a);
    const job = await service.create({ orgId: ORG, userId: 'u1', kind: diagnosticsJob, spec: { mode: 'sleep', seconds: 120 } });
    await until('running on a', async () => (await service.get(ORG, job.id))?.state === 'running' && (await queue.getJob(job.id))?.progress);
    const b = startWorker();
    await ready(b);
    a.kill('SIGKILL');
    await until('running again', async () => (await (await queue.getJob(job.id))?.getState()) === 'active' && logs.get(b)!.join('').length > 0 && (await queue.getJob(job.id))!.attemptsStarted >= 2);
    b.kill('SIGKILL');
    const c = startWorker(); // the stalled-job check runs on a live worker
    await ready(c);
    const done = await service.waitFor(job.id, 300_000);
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/stalled/i);
  }, 900_000);
});

describe('sweep of unused job outputs', () => {
  it('removes old output folders of finished jobs and of jobs without a row; keeps active and recent ones', async () => {
    const { dir, handle } = fresh('mitate-sweep-');
    try {
      await migrate(handle.db);
      const config = loadConfig({ MITATE_DATA_DIR: dir }, { redisUrl: undefined, workers: 1 });
      const service = new JobService({ db: handle.db, config, log: () => {} });
      const finishedJob = await service.create({ orgId: ORG, userId: 'u1', kind: diagnosticsJob, spec: { mode: 'fail' } }).catch(() => null);
      // rows written directly: one finished long ago, one queued, one finished just now
      const t = new Date(Date.now() - 3 * 24 * 3600_000).toISOString();
      const base = { organisation_id: ORG, progress: 0, message: '', log: '', result_json: null, error: null, subject_type: null, subject_id: null, created_by: null, attempts: 0, started_at: null, spec_json: '{}' };
      await handle.db.insertInto('jobs').values([
        { ...base, id: 'old-done', kind: 'preprocess', state: 'succeeded', created_at: t, finished_at: t },
        { ...base, id: 'queued', kind: 'preprocess', state: 'queued', created_at: t, finished_at: null },
        { ...base, id: 'new-done', kind: 'preprocess', state: 'succeeded', created_at: t, finished_at: new Date().toISOString() },
      ]).execute();
      const old = new Date(Date.now() - 3 * 24 * 3600_000);
      for (const id of ['old-done', 'queued', 'new-done', 'no-row-old', 'no-row-new']) {
        const d = path.join(dir, 'jobs', id);
        fs.mkdirSync(d, { recursive: true });
        fs.writeFileSync(path.join(d, 'data.parquet'), 'x');
        if (id !== 'no-row-new') fs.utimesSync(d, old, old);
      }
      const swept = await service.sweepOutputs(24 * 3600_000);
      expect(swept.sort()).toEqual(['no-row-old', 'old-done']);
      expect(fs.readdirSync(path.join(dir, 'jobs')).filter((n) => n !== finishedJob?.id).sort()).toEqual(['new-done', 'no-row-new', 'queued']);
      await service.close();
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);
});
