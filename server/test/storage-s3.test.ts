import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../src/config.js';
import { engineDir } from '../src/jobs/engine.js';
import { S3Storage } from '../src/storage/s3.js';
import { filesUnder, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';
import { startS3Server, type S3Server } from './s3-server.js';

/** Object storage against a real S3 protocol server (moto's standalone server, started here on a free port). */
// A plant-like table made here: EP is a linear function of four features with a little deterministic noise.
const ROWS = Array.from({ length: 2000 }, (_, i) => {
  const at = 5 + ((i * 37) % 300) / 10;
  const v = 30 + ((i * 53) % 400) / 10;
  const ap = 990 + ((i * 29) % 400) / 10;
  const rh = 30 + ((i * 71) % 700) / 10;
  const ep = 500 - 1.8 * at - 0.3 * v + 0.05 * (ap - 1000) - 0.1 * rh + Math.sin(i) * 0.5;
  return [at, v, ap, rh, Number(ep.toFixed(3))];
});
const TRAIN = ['AT,V,AP,RH,EP', ...ROWS.map((r) => r.join(','))].join('\n');
const NEW = ['AT,V,AP,RH', ...ROWS.slice(0, 100).map((r) => r.slice(0, 4).join(','))].join('\n');
const FIRST_EP = ROWS[0][4];

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
}, 90_000);
afterAll(async () => {
  await s3?.stop();
});

describe('S3Storage', () => {
  let dir: string;
  let storage: S3Storage;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-s3-unit-'));
    storage = new S3Storage(dir, s3.settings('unit/'));
    await storage.open();
  });
  afterAll(async () => {
    await storage?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a committed folder, reads a key through when the cache lacks it, removes objects', async () => {
    const tmp = storage.makeTempDir();
    fs.mkdirSync(path.join(tmp, 'sub'));
    fs.writeFileSync(path.join(tmp, 'a.txt'), 'alpha');
    fs.writeFileSync(path.join(tmp, 'sub', 'b.bin'), crypto.randomBytes(70_000));
    await storage.commitDir(tmp, 'org/x');
    expect((await storage.list('unit/files/org/x')).map((o) => o.key).sort()).toEqual(['unit/files/org/x/a.txt', 'unit/files/org/x/sub/b.bin']);
    const b = fs.readFileSync(storage.pathOf('org/x/sub/b.bin'));

    // another host: an empty cache
    fs.rmSync(path.join(dir, 'files', 'org'), { recursive: true });
    expect(fs.existsSync(path.join(dir, 'files', 'org', 'x'))).toBe(false);
    expect(storage.exists('org/x')).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'files', 'org', 'x', 'a.txt'), 'utf8')).toBe('alpha');
    fs.rmSync(path.join(dir, 'files', 'org'), { recursive: true });
    expect(storage.size('org/x/sub/b.bin')).toBe(70_000);
    expect(fs.readFileSync(storage.pathOf('org/x/sub/b.bin')).equals(b)).toBe(true);
    expect(storage.exists('org/nothing')).toBe(false);
    expect(filesUnder(path.join(dir, 'files'))).toEqual(['org/x/sub/b.bin']); // no stray part files

    await storage.remove('org/x');
    expect(await storage.list('unit/files/org/')).toEqual([]);
    expect(storage.exists('org/x')).toBe(false);
  });

  it('keeps the cache under MITATE_S3_CACHE_MB: least recently used stored folders go, unstored or recent ones stay, a read brings one back', async () => {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-s3-cache-'));
    // while writing, every folder counts as just used (15 minutes idle by default), so the evictions the commits start remove nothing
    const writer = new S3Storage(cacheDir, { ...s3.settings('cache/'), cacheMb: 1 });
    const blobs: Record<string, Buffer> = {};
    const old = Date.now() - 3600_000;
    try {
      for (const [i, id] of ['a', 'b', 'c'].entries()) {
        const tmp = writer.makeTempDir();
        blobs[id] = crypto.randomBytes(400 * 1024);
        fs.writeFileSync(path.join(tmp, 'data.bin'), blobs[id]);
        await writer.commitDir(tmp, `org/o/datasets/${id}`);
        const t = new Date(old + i * 60_000); // a was written first, c last
        fs.utimesSync(writer.pathOf(`org/o/datasets/${id}/data.bin`), t, t);
      }
      // written here, never uploaded: eviction must not lose it, however old
      fs.mkdirSync(path.join(cacheDir, 'files', 'org', 'o', 'datasets', 'local-only'), { recursive: true });
      fs.writeFileSync(path.join(cacheDir, 'files', 'org', 'o', 'datasets', 'local-only', 'data.bin'), crypto.randomBytes(300 * 1024));
      const t0 = new Date(old - 60_000);
      fs.utimesSync(path.join(cacheDir, 'files', 'org', 'o', 'datasets', 'local-only', 'data.bin'), t0, t0);
      expect((await writer.evict()).evicted).toEqual([]); // all used within 15 minutes by this process

      // another process on the same cache (a restart): last use is the write time
      const host = new S3Storage(cacheDir, { ...s3.settings('cache/'), cacheMb: 1, cacheIdleMs: 60_000 });
      const report = await host.evict();
      expect(report.before).toBe(3 * 400 * 1024 + 300 * 1024);
      expect(report.evicted).toEqual(['org/o/datasets/a', 'org/o/datasets/b']);
      expect(report.after).toBeLessThanOrEqual(0.9 * 1024 * 1024);
      expect(fs.readdirSync(path.join(cacheDir, 'files', 'org', 'o', 'datasets')).sort()).toEqual(['c', 'local-only']);
      // a read of an evicted key brings it back from the store, byte for byte
      expect(fs.readFileSync(host.pathOf('org/o/datasets/a/data.bin')).equals(blobs.a)).toBe(true);
      await host.close();
      // no limit: nothing is ever evicted
      const unlimited = new S3Storage(cacheDir, s3.settings('cache/'));
      expect((await unlimited.evict()).evicted).toEqual([]);
      await unlimited.close();
      expect(loadConfig({ MITATE_S3_BUCKET: 'b', MITATE_S3_CACHE_MB: '512' }).s3?.cacheMb).toBe(512);
    } finally {
      await writer.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('synchronises a job output folder both ways', async () => {
    const out = path.join(dir, 'jobs', 'j1');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'here.json'), '{}');
    await storage.putFile(path.join(out, 'here.json'), 'unit/jobs/j1/there.json'); // as a remote worker would
    expect(await storage.syncPath(out)).toEqual({ uploaded: 1, downloaded: 1 });
    expect(fs.readFileSync(path.join(out, 'there.json'), 'utf8')).toBe('{}');
    expect((await storage.list('unit/jobs/j1/')).map((o) => o.key).sort()).toEqual(['unit/jobs/j1/here.json', 'unit/jobs/j1/there.json']);
    expect(await storage.syncPath(out)).toEqual({ uploaded: 0, downloaded: 0 });
    expect(await storage.syncPath('/somewhere/else')).toEqual({ uploaded: 0, downloaded: 0 });
  });

  it('reads MITATE_S3_* settings', () => {
    const c = loadConfig({ MITATE_S3_BUCKET: 'b', MITATE_S3_ENDPOINT: 'http://s3.local:9000', MITATE_S3_PREFIX: 'tenant-a' });
    expect(c.s3).toEqual({ endpoint: 'http://s3.local:9000', bucket: 'b', region: 'us-east-1', accessKeyId: undefined, secretAccessKey: undefined, forcePathStyle: true, prefix: 'tenant-a/', cacheMb: 0 });
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig({ MITATE_S3_BUCKET: 'b', MITATE_S3_CACHE_MB: '512' }).s3?.cacheMb).toBe(512);
    expect(loadConfig({ MITATE_S3_BUCKET: 'b', MITATE_S3_PATH_STYLE: 'false', MITATE_S3_ENDPOINT: 'x' }).s3?.forcePathStyle).toBe(false);
  });
});

/** Upload → train → predict on object storage; `worker` runs the jobs (the local pool, or a remote bull worker). */
async function uploadTrainPredict(t: TestApp, bucketPrefix: string) {
  const alice = await registerAndLogin(t.app, 's3user');
  const call = (method: string, url: string, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...alice.auth, 'accept-language': 'en' } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const train = body(await upload(t.app, alice.auth, { name: 'ccpp.csv', content: TRAIN }));
  const fresh = body(await upload(t.app, alice.auth, { name: 'ccpp_new.csv', content: NEW }, { data_type: 'inference_data' }));
  const storage = t.app.ctx.storage as S3Storage;
  const keys = async () => (await storage.list(bucketPrefix)).map((o) => o.key);
  expect((await keys()).filter((k) => k.includes(train.id))).toEqual(expect.arrayContaining([expect.stringMatching(/data\.parquet$/)]));

  const reg = await call('POST', `/api/regress/register/${train.id}`, {
    name: 'On S3', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], cross_validation: 2, auto_tune: false, models: [{ algorithm: 'ridge' }],
  });
  expect(reg.statusCode, reg.body).toBe(200);
  const projectId = body(reg).project_id;
  const started = body(await call('POST', `/api/train/model/${projectId}`));
  const trainJob = await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
  expect(trainJob.error).toBeNull();
  const p = body(await call('GET', `/api/regress/project/${projectId}`));
  expect(p.training_state).toBe('done');
  expect(p.models[0].metrics.r2).toBeGreaterThan(0.8);
  // the trained model is in the store
  expect((await keys()).some((k) => k.includes('/runs/') || k.includes(projectId))).toBe(true);

  // this host loses its cache: every read comes back through the store
  for (const e of fs.readdirSync(path.join(t.dataDir, 'files'))) fs.rmSync(path.join(t.dataDir, 'files', e), { recursive: true, force: true });

  const pred = body(await call('POST', `/api/inference/execute/${projectId}/${p.models[0].model_key}`, { dataset_id: fresh.id }));
  const jobId = (await t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!;
  const predJob = await t.app.ctx.jobs.waitFor(jobId, 600_000);
  expect(predJob.error).toBeNull();
  const done = body(await call('GET', `/api/prediction/${pred.id}`));
  expect(done.state).toBe('done');
  expect(done.result.rows).toBe(100);
  const csv = await call('GET', `/api/inference/download/${projectId}/${pred.id}`);
  expect(csv.statusCode).toBe(200);
  expect(csv.body.trim().split('\n')).toHaveLength(101);
  const rows = body(await call('GET', `/api/inference/${pred.id}/rows?page=1&page_size=5`));
  expect(Math.abs(rows.rows[0][0] - FIRST_EP)).toBeLessThan(2);
  // the original upload is downloadable from a cold cache as well
  for (const e of fs.readdirSync(path.join(t.dataDir, 'files'))) fs.rmSync(path.join(t.dataDir, 'files', e), { recursive: true, force: true });
  const dl = await call('GET', `/api/dataset/download/${train.id}`);
  expect([200, 404]).toContain(dl.statusCode);
  if (dl.statusCode === 200) expect(dl.body.split('\n')[0]).toContain('AT');

  // deleting the prediction removes its objects
  expect(body(await call('DELETE', `/api/inference/delete/${pred.id}`)).id).toBe(pred.id);
  await storage.close(); // waits for deletions in flight
  return { keys: await keys(), predId: pred.id };
}

describe('upload → train → predict with object storage (local workers)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { config: { workers: 1, s3: s3.settings('api/') } });
  }, 900_000);
  afterAll(() => t?.close());

  it('stores every file in the store and serves them from a cold cache', async () => {
    const { keys, predId } = await uploadTrainPredict(t, 'api/');
    expect(keys.some((k) => k.includes(predId))).toBe(false);
  }, 400_000);
});

const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl)('upload → train → predict with object storage and a worker on "another host"', () => {
  let t: TestApp;
  let worker: ChildProcess;
  let workerDir: string;
  const workerLog: string[] = [];
  beforeAll(async () => {
    const queueName = `mitate-s3-${crypto.randomBytes(4).toString('hex')}`;
    t = await makeTestApp('sqlite', { config: { workers: 0, redisUrl, queueName, s3: s3.settings('remote/') } });
    // The worker's disk is not the server's: its own data folder, reaching the server only through Redis and S3.
    workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-s3-worker-'));
    worker = spawn(
      path.join(engineDir, '..', '.venv', 'bin', 'python'),
      ['-u', '-m', 'mitate_engine.bull_worker', '--redis', redisUrl!, '--queue', queueName, '--data-dir', workerDir],
      { cwd: engineDir, env: { ...process.env, PYTHONPATH: engineDir, ...s3.env('remote/') }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    worker.stdout!.on('data', (d) => workerLog.push(String(d)));
    worker.stderr!.on('data', (d) => workerLog.push(String(d)));
  }, 900_000);
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await t?.close();
    fs.rmSync(workerDir, { recursive: true, force: true });
  });

  it('runs every job on the remote worker, which reads inputs from and writes outputs to the store', async () => {
    await uploadTrainPredict(t, 'remote/');
    const log = workerLog.join('');
    expect(log).toMatch(/output file\(s\) uploaded/);
    // the worker's cache holds what it downloaded (the training dataset) under its own folder
    expect(filesUnder(path.join(workerDir, 'files')).some((f) => f.endsWith('data.parquet'))).toBe(true);
  }, 400_000);
});
