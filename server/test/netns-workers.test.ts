import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { engineDir } from '../src/jobs/engine.js';
import { multipart, STRONG_PASSWORD } from './helpers.js';
import { startS3Server, type S3Server } from './s3-server.js';
import { until } from './until.js';
import { trainJob } from '../src/features/training/jobs.js';
import { statisticsJob } from '../src/features/datasets/jobs.js';

/**
 * Issue 16, scale-out: engine workers on "other hosts", each in its own network namespace made by this test (ip netns)
 * and joined to this machine by a veth pair on a private /30 and nothing else. Redis, PostgreSQL and the S3 store
 * (moto) listen on 127.0.0.1 only, so each worker reaches them through small TCP relays on the host end of its veth;
 * a worker has no shared disk either (its own --data-dir; files travel through the store). One worker is killed with
 * -9 while it holds a training job (MITATE_TEST_HOLD_FILE stops the task at its first progress report, so the moment
 * is exact); the job runs again on another worker, ends done once and its result is applied once; every other job
 * (the statistics of uploads made meanwhile) ends done once too; no job stays running.
 *
 * Needs root, the `ip` command and Redis (TEST_REDIS_URL); runs the server on PostgreSQL when TEST_DATABASE_URL is
 * set, else on SQLite. Otherwise skipped, saying why.
 */

const redisUrl = process.env.TEST_REDIS_URL;
const databaseUrl = process.env.TEST_DATABASE_URL;
const WORKERS = 3;
const LOCK_MS = 3000; // a dead worker's job is handed on after 1–2 lock periods
const PYTHON = path.join(engineDir, '..', '.venv', 'bin', 'python');

function whyNot(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root (ip netns needs root)';
  if (!redisUrl) return 'TEST_REDIS_URL is not set';
  if (spawnSync('ip', ['-V']).status !== 0) return 'no `ip` command (iproute2)';
  if (!fs.existsSync(PYTHON)) return `no engine environment at ${PYTHON}`;
  // root in a container without CAP_SYS_ADMIN cannot make namespaces: find out now rather than fail half-built
  const probe = `mtn-probe-${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `ip netns add failed: ${made.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}
const skipReason = whyNot();
if (skipReason) console.warn(`[netns-workers] skipped: ${skipReason}`);

function ip(...args: string[]): string {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Namespaces of earlier runs whose test process is gone (killed before its afterAll): removed, veths with them. */
function removeStaleNamespaces(): void {
  for (const line of spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n')) {
    const m = /^(mtn-(\d+)-[0-9a-f]+-\d+)/.exec(line);
    if (!m || Number(m[2]) === process.pid) continue;
    let alive = true;
    try {
      process.kill(Number(m[2]), 0);
    } catch {
      alive = false;
    }
    if (!alive) spawnSync('ip', ['netns', 'del', m[1]]);
  }
}

/** A /24 of 10.0.0.0/8 that no address or route of this machine overlaps; each namespace gets one /30 of it. */
function freeSubnet(): string {
  const toInt = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const taken = [...(ip('-o', '-4', 'addr', 'show') + ip('-4', 'route', 'show', 'table', 'all')).matchAll(/\b(\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?/g)].map((m) => {
    const bits = m[2] === undefined ? 32 : Number(m[2]);
    const start = bits === 0 ? 0 : toInt(m[1]) - (toInt(m[1]) % 2 ** (32 - bits));
    return [start, start + 2 ** (32 - bits) - 1];
  });
  for (let i = 0; i < 500; i++) {
    const prefix = `10.${100 + crypto.randomInt(150)}.${crypto.randomInt(256)}.`;
    const lo = toInt(`${prefix}0`);
    const hi = lo + 255;
    if (!taken.some(([a, b]) => a <= hi && lo <= b)) return prefix;
  }
  throw new Error('no free 10.x.y.0/24 found');
}

/** A TCP relay on `host` (a veth's host end) to a service on 127.0.0.1. */
async function relay(host: string, target: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(target, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Namespace {
  name: string;
  hostIp: string;
  nsIp: string;
  redis: number;
  postgres: number;
  s3: number;
}

interface Worker {
  ns: Namespace;
  proc: ChildProcess;
  out: string[];
  dataDir: string;
}

const portOf = (url: string, fallback: number) => Number(new URL(url).port || fallback);

describe.skipIf(!!skipReason)('workers in separate network namespaces (ip netns)', () => {
  const tag = crypto.randomBytes(3).toString('hex');
  const namespaces: Namespace[] = [];
  const relays: { close(): Promise<void> }[] = [];
  const workers: Worker[] = [];
  let tmp = ''; // made in beforeAll: a skipped file leaves nothing behind
  let holdFile = '';
  const queueName = `mitate-netns-${tag}`;
  const schema = databaseUrl ? `t_${crypto.randomBytes(6).toString('hex')}` : '';
  let s3: S3Server | undefined;
  let app: FastifyInstance | undefined;
  let queue: Queue | undefined;
  let redis: Redis | undefined;
  let auth: Record<string, string> = {};
  const finishedCount = new Map<string, number>();

  const removeNamespaces = () => {
    for (const ns of namespaces) spawnSync('ip', ['netns', 'del', ns.name]);
  };
  // afterAll may never run (the runner killed): the namespaces still go when this process exits
  process.once('exit', removeNamespaces);

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads the answers freely
  async function call(method: string, url: string, payload?: unknown): Promise<any> {
    const res = await app!.inject({ method: method as 'GET', url, payload: payload as object, headers: auth });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().detail.response;
  }

  async function uploadCsv(name: string, rows: number, seed: number): Promise<string> {
    let s = seed;
    const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647);
    const lines = ['x1,x2,x3,y'];
    for (let i = 0; i < rows; i++) {
      const [x1, x2, x3] = [rnd() * 10, rnd() * 5, rnd() * 2];
      lines.push(`${x1.toFixed(3)},${x2.toFixed(3)},${x3.toFixed(3)},${(3 * x1 - 2 * x2 + rnd()).toFixed(3)}`);
    }
    const body = multipart({ name, data_type: 'training_data', type: 'supervised', training_type: 'regression' }, { name, content: lines.join('\n') + '\n' });
    const res = await app!.inject({ method: 'POST', url: '/api/dataset/register', payload: body.payload, headers: { ...auth, ...body.headers } });
    if (res.statusCode !== 201) throw new Error(`upload ${name}: ${res.statusCode} ${res.body}`);
    return res.json().detail.response.id;
  }

  function makeNamespace(i: number, prefix: string): Namespace {
    const name = `mtn-${process.pid}-${tag}-${i}`;
    const hostIf = `mt${tag}h${i}`;
    const nsIf = `mt${tag}n${i}`;
    const hostIp = `${prefix}${4 * i + 1}`;
    const nsIp = `${prefix}${4 * i + 2}`;
    ip('netns', 'add', name);
    namespaces.push({ name, hostIp, nsIp, redis: 0, postgres: 0, s3: 0 });
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', name);
    ip('addr', 'add', `${hostIp}/30`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    ip('-n', name, 'addr', 'add', `${nsIp}/30`, 'dev', nsIf);
    ip('-n', name, 'link', 'set', nsIf, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
    return namespaces[namespaces.length - 1];
  }

  /** What a program inside the namespace can reach: its relays, and not this machine's loopback services. */
  function reachable(ns: Namespace, host: string, port: number): boolean {
    const script = `const s=require('net').connect(${port},'${host}');s.setTimeout(3000);s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));s.on('timeout',()=>process.exit(2));`;
    return spawnSync('ip', ['netns', 'exec', ns.name, process.execPath, '-e', script]).status === 0;
  }

  function startWorker(ns: Namespace): Worker {
    const dataDir = fs.mkdtempSync(path.join(tmp, `worker-${ns.name.split('-').pop()}-`));
    const workerRedis = new URL(redisUrl!);
    workerRedis.hostname = ns.hostIp;
    workerRedis.port = String(ns.redis);
    const s3env = s3!.env(`netns-${tag}/`);
    s3env.MITATE_S3_ENDPOINT = `http://${ns.hostIp}:${ns.s3}`;
    const proc = spawn(
      'ip',
      ['netns', 'exec', ns.name, PYTHON, '-u', '-m', 'mitate_engine.bull_worker', '--redis', workerRedis.toString(), '--queue', queueName, '--data-dir', dataDir, '--lock-ms', String(LOCK_MS)],
      {
        cwd: engineDir,
        env: { ...process.env, ...s3env, PYTHONPATH: engineDir, MITATE_TEST_HOLD_FILE: holdFile, REDIS_URL: '', DATABASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const out: string[] = [];
    proc.stdout!.on('data', (d) => out.push(String(d)));
    proc.stderr!.on('data', (d) => out.push(String(d)));
    const w = { ns, proc, out, dataDir };
    workers.push(w);
    return w;
  }
  const text = (w: Worker) => w.out.join('');

  const hold = (kind: string) => {
    fs.rmSync(`${holdFile}.held`, { force: true });
    fs.writeFileSync(holdFile, kind);
  };
  const release = () => fs.writeFileSync(holdFile, '');

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-netns-'));
    holdFile = path.join(tmp, 'hold');
    removeStaleNamespaces();
    release();
    const prefix = freeSubnet();
    s3 = await startS3Server();
    for (let i = 0; i < WORKERS; i++) {
      const ns = makeNamespace(i, prefix);
      for (const [key, port] of [
        ['redis', portOf(redisUrl!, 6379)],
        ['postgres', databaseUrl ? portOf(databaseUrl, 5432) : 0],
        ['s3', portOf(s3.endpoint, 80)],
      ] as const) {
        if (!port) continue;
        const r = await relay(ns.hostIp, port);
        relays.push(r);
        ns[key] = r.port;
      }
    }
    if (schema) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
    }
    app = await buildApp({
      pgSchema: schema || undefined,
      config: {
        dataDir: path.join(tmp, 'server'),
        databaseUrl: databaseUrl || undefined,
        redisUrl,
        queueName,
        workers: 0, // every worker runs in a namespace (MITATE_WORKERS=0)
        s3: s3.settings(`netns-${tag}/`),
        webDist: path.join(tmp, 'no-web'),
      },
    });
    const count = async (job: { id: string }) => void finishedCount.set(job.id, (finishedCount.get(job.id) ?? 0) + 1);
    app.ctx.jobs.onFinished(trainJob, count);
    app.ctx.jobs.onFinished(statisticsJob, count);
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
    queue = new Queue(queueName, { connection: redis });
    const email = `netns.${tag}@example.com`;
    const reg = await app.inject({
      method: 'POST',
      url: '/account/api/auth/register',
      payload: { email, password: STRONG_PASSWORD, first_name: 'Net', last_name: 'Namespace', organisation_name: 'Far Hosts' },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    const login = await app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } });
    auth = { authorization: `Bearer ${login.json().detail.response.access_token}` };
  }, 180_000);

  afterAll(async () => {
    if (tmp) release();
    await Promise.all(
      workers.map((w) =>
        w.proc.exitCode !== null || w.proc.signalCode !== null ? undefined : new Promise((r) => (w.proc.once('exit', r), w.proc.kill('SIGKILL'))),
      ),
    );
    await app?.close().catch(() => {});
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close().catch(() => {});
    redis?.disconnect();
    await Promise.all(relays.map((r) => r.close()));
    await s3?.stop();
    removeNamespaces();
    process.removeListener('exit', removeNamespaces);
    if (schema) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('each namespace reaches this machine only through its veth peer', () => {
    for (const ns of namespaces) {
      expect(ip('-n', ns.name, '-o', '-4', 'addr', 'show')).toContain(`${ns.nsIp}/30`);
      expect(reachable(ns, ns.hostIp, ns.redis), `${ns.name}: Redis through its relay`).toBe(true);
      expect(reachable(ns, ns.hostIp, ns.s3), `${ns.name}: S3 through its relay`).toBe(true);
      if (ns.postgres) expect(reachable(ns, ns.hostIp, ns.postgres), `${ns.name}: PostgreSQL through its relay`).toBe(true);
      // the services themselves listen on this machine's loopback, which a namespace does not share
      expect(reachable(ns, '127.0.0.1', portOf(redisUrl!, 6379)), `${ns.name}: Redis on 127.0.0.1`).toBe(false);
      if (databaseUrl) expect(reachable(ns, '127.0.0.1', portOf(databaseUrl, 5432)), `${ns.name}: PostgreSQL on 127.0.0.1`).toBe(false);
      // and the other namespaces' relays are out of reach
      for (const other of namespaces.filter((o) => o !== ns)) expect(reachable(ns, other.hostIp, other.redis), `${ns.name} → ${other.name}`).toBe(false);
    }
  }, 60_000);

  it('a worker killed mid-job: the job runs again on another, ends done once, its result applied once, nothing lost', async () => {
    const started = namespaces.map(startWorker);
    await until('every worker ready', () => started.every((w) => text(w).includes('"type":"ready"')), 120_000);
    const dataset = await uploadCsv('far.csv', 300, 1);
    const statsOf = async (id: string) => (await call('POST', `/api/statistics/result/${id}`)).state;
    await until('the statistics of the first upload', async () => (await statsOf(dataset)) === 'succeeded');

    // the training job stops at its first progress report on whichever worker takes it
    hold('train');
    const project = await call('POST', `/api/regress/register/${dataset}`, {
      name: 'trained far away',
      target_variables: ['y'],
      feature_variables: ['x1', 'x2', 'x3'],
      cross_validation: 2,
      models: [{ algorithm: 'ridge' }, { algorithm: 'linear' }],
    });
    const jobId: string = (await call('POST', `/api/train/model/${project.project_id}`)).job.id;
    const pid = await until('a worker held at its first progress report', () => {
      const held = fs.existsSync(`${holdFile}.held`) ? fs.readFileSync(`${holdFile}.held`, 'utf8') : '';
      const m = /\[test hold\] train pid (\d+)/.exec(held);
      return m ? Number(m[1]) : undefined;
    });
    const victim = workers.find((w) => w.proc.pid === pid);
    expect(victim, `pid ${pid} is one of the namespaced workers`).toBeTruthy();
    await until('the server saw the job start', async () => (await app!.ctx.jobs.get(await orgOf(jobId), jobId))?.state === 'running');

    // uploads while the job is held: their statistics run on the other workers
    const more = [await uploadCsv('far-2.csv', 120, 2), await uploadCsv('far-3.csv', 120, 3)];

    const gone = new Promise((r) => victim!.proc.once('exit', r));
    process.kill(pid, 'SIGKILL'); // the host loses power mid-job
    await gone;
    release(); // the retry must not stop at the hold as well

    const done = await app!.ctx.jobs.waitFor(jobId, 180_000);
    expect(done.state, done.error ?? '').toBe('succeeded');
    // the workers' JSON records (engine logs.py): the job succeeded once, on a survivor, as attempt 2
    const records = (w: (typeof workers)[number]) =>
      text(w).split('\n').filter((l) => l.startsWith('{"time"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const succeeded = (w: (typeof workers)[number]) => records(w).filter((r) => r.job_id === jobId && r.msg === 'job succeeded');
    const survivors = workers.filter((w) => w !== victim);
    const ranIt = survivors.filter((w) => succeeded(w).length > 0);
    expect(ranIt.map((w) => w.ns.name)).toHaveLength(1);
    expect(ranIt[0].ns.name).not.toBe(victim!.ns.name);
    expect(succeeded(ranIt[0])).toHaveLength(1);
    expect(succeeded(ranIt[0])[0]).toMatchObject({ attempt: 2, kind: 'train', worker: 'bull', pid: ranIt[0].proc.pid }); // the process in that namespace
    expect(succeeded(victim!)).toHaveLength(0);
    const bull = (await queue!.getJob(jobId))!;
    expect(await bull.getState()).toBe('completed');
    expect(bull.attemptsStarted).toBe(2); // one start on the killed worker, one on the survivor
    const row = await app!.ctx.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(2);
    // the same starts heard again (a second API server, a late event) change nothing
    const listener = (app!.ctx.jobs as unknown as { listener(): { started(id: string, attempt?: number): Promise<void> } }).listener();
    await listener.started(jobId, 2);
    await listener.started(jobId, 1);
    await listener.started(jobId);
    expect(await app!.ctx.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow()).toEqual(row);

    // the result applied once: one run folder, every model done once, one report each
    for (const id of more) await until(`the statistics of ${id}`, async () => (await statsOf(id)) === 'succeeded');
    await until('every job finished', async () => {
      const s = await call('GET', '/api/services/status');
      return s.active === 0 && s.queued === 0;
    });
    const p = await call('GET', `/api/regress/project/${project.project_id}`);
    expect(p.training_state).toBe('done');
    expect(p.models.map((m: { model_key: string; state: string }) => [m.model_key, m.state])).toEqual([
      ['1_ridge', 'done'],
      ['2_linear', 'done'],
    ]);
    const runs = await app!.ctx.db.selectFrom('training_models').select(['run_key']).where('project_id', '=', project.project_id).execute();
    expect(new Set(runs.map((r) => r.run_key)).size).toBe(1);
    for (const m of p.models) {
      const rep = await call('POST', `/api/regress/report/${project.project_id}`, { model_key: m.model_key });
      expect(rep.report).toBeTruthy();
    }
    // the job's events, kept in its log: the killed attempt stopped at the hold before any model event, and the retry
    // reported each model once (running, then done before and after cross-validation), with nothing repeated
    const log = row.log ?? '';
    const count = (re: RegExp) => log.split('\n').filter((l) => re.test(l)).length;
    expect(count(/^\[test hold\] train pid /)).toBe(1);
    for (const key of ['1_ridge', '2_linear']) {
      expect(count(new RegExp(`^\\[model\\] \\{"key":"${key}","state":"running"`)), `${key} running`).toBe(1);
      expect(count(new RegExp(`^\\[model\\] \\{"key":"${key}","state":"done".*"cv":null`)), `${key} done before CV`).toBeLessThanOrEqual(1);
      expect(count(new RegExp(`^\\[model\\] \\{"key":"${key}","state":"done".*"cv":\\{`)), `${key} done`).toBe(1);
    }

    // nothing lost, nothing completed twice: every job of the organisation succeeded, and was finished once
    const rows = await app!.ctx.db.selectFrom('jobs').select(['id', 'kind', 'state']).where('organisation_id', '=', row.organisation_id).execute();
    expect(rows.filter((r) => r.kind === 'statistics')).toHaveLength(3);
    for (const r of rows) {
      expect(r.state, `${r.kind} ${r.id}`).toBe('succeeded');
      expect(finishedCount.get(r.id), `${r.kind} ${r.id} finished`).toBe(1);
      expect(await (await queue!.getJob(r.id))!.getState()).toBe('completed');
    }
    const counts = await queue!.getJobCounts('active', 'waiting', 'delayed', 'failed', 'completed');
    expect(counts).toEqual({ active: 0, waiting: 0, delayed: 0, failed: 0, completed: rows.length });
  }, 300_000);

  async function orgOf(jobId: string): Promise<string> {
    const r = await app!.ctx.db.selectFrom('jobs').select(['organisation_id']).where('id', '=', jobId).executeTakeFirstOrThrow();
    return r.organisation_id;
  }
});
