import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, multipart, STRONG_PASSWORD, tiles, zipOf } from './helpers.js';
import { until } from './until.js';

/**
 * Issue 16, crash safety: kill -9 of an engine worker during each job kind, and of the server during an upload, a
 * preprocessing registration, training and a prediction. The moment of the kill is exact, not raced: with
 * MITATE_TEST_HOLD_FILE the engine stops a task of a listed kind at its first progress report, and the server stops a
 * registration after its files are committed and before its row is stored (src/testhold.ts); each writes
 * <file>.held when it stops there. After the kill (and a restart for the server) nothing half-written is listed, no
 * job stays queued or running, orphans are swept, and the same work run again succeeds.
 */

const SERVER_DIR = path.join(import.meta.dirname, '..');
const DONE = ['succeeded', 'failed', 'cancelled'];

/** A small regression table: y = 3·x1 − 2·x2 + noise. */
function table(rows: number, withTarget = true, seed = 1): string {
  let s = seed;
  const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647);
  const lines = [withTarget ? 'x1,x2,x3,y' : 'x1,x2,x3'];
  for (let i = 0; i < rows; i++) {
    const x1 = +(rnd() * 10).toFixed(3);
    const x2 = +(rnd() * 5).toFixed(3);
    const x3 = +(rnd() * 2).toFixed(3);
    lines.push(withTarget ? `${x1},${x2},${x3},${(3 * x1 - 2 * x2 + rnd()).toFixed(3)}` : `${x1},${x2},${x3}`);
  }
  return lines.join('\n') + '\n';
}

/** Every 10th OK and NG tile of the shared magnetic-tile set (20 images): enough to start an image model. */
const tilesZip = () => zipOf([...tiles('OK', 10), ...tiles('NG', 10)]);

/** A sampled process with three signals; a fault shifts s1 from sample 300. */
function series(): string {
  const lines = ['sample,s1,s2,s3,fault'];
  for (let i = 0; i < 400; i++) {
    const f = i >= 300 ? 1 : 0;
    lines.push(`${i},${(Math.sin(i / 7) + f * 4).toFixed(4)},${Math.cos(i / 11).toFixed(4)},${((i % 13) / 13).toFixed(4)},${f}`);
  }
  return lines.join('\n') + '\n';
}

describe.skipIf(process.platform !== 'linux').each(DATABASES)('crash safety on %s', (dbKind) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-crash-'));
  const holdFile = path.join(dataDir, '..', `${path.basename(dataDir)}.hold`);
  const schema = dbKind === 'postgres' ? `t_${crypto.randomBytes(6).toString('hex')}` : '';
  const email = `crash.${crypto.randomBytes(3).toString('hex')}@example.com`;
  let server: ChildProcess | null = null;
  let serverOut = '';
  let base = '';
  let auth: Record<string, string> = {};
  let orgId = '';
  const ids: Record<string, string> = {};
  const jobIds = new Set<string>();

  // ---- the server process ----------------------------------------------------------------------------------

  async function start(): Promise<void> {
    serverOut = '';
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(SERVER_DIR, 'test', 'fixtures', 'crash-server.ts'), dataDir, schema], {
      cwd: SERVER_DIR,
      // every CSV is converted beside its upload (issue 17), so a kill can land in the middle of that conversion
      env: { ...process.env, MITATE_TEST_HOLD_FILE: holdFile, MITATE_JOB_OUTPUT_GRACE_H: '0', DATABASE_URL: '', REDIS_URL: '', MITATE_S3_BUCKET: '', MITATE_STREAM_INGEST_MIN_MB: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = proc;
    proc.stdout!.on('data', (d) => (serverOut += d));
    proc.stderr!.on('data', (d) => (serverOut += d));
    const port = await until('the server listening', () => {
      if (proc.exitCode !== null) throw new Error(`the server exited: ${serverOut}`);
      return /listening (\d+)/.exec(serverOut)?.[1];
    }, 120_000);
    base = `http://127.0.0.1:${port}`;
    if (auth.authorization) await login();
  }

  async function kill9(): Promise<void> {
    const proc = server!;
    if (proc.exitCode === null && proc.signalCode === null) {
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await gone;
    }
    server = null;
  }

  async function login(): Promise<void> {
    const res = await fetch(`${base}/account/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: STRONG_PASSWORD }) });
    if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
    auth = { authorization: `Bearer ${(await res.json()).detail.response.access_token}` };
  }

  // The answer's JSON (or text), read freely by the checks below.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  async function call(method: string, url: string, payload?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await res.text();
    let body: Awaited<ReturnType<typeof call>>['body'] = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body };
  }
  const ok = async (method: string, url: string, payload?: unknown) => {
    const r = await call(method, url, payload);
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.detail.response;
  };

  async function uploadCsv(name: string, content: string, fields: Record<string, string> = {}): Promise<string> {
    const body = multipart({ name, data_type: 'training_data', type: 'supervised', training_type: 'regression', ...fields }, { name, content });
    const res = await fetch(`${base}/api/dataset/register`, { method: 'POST', headers: { ...auth, ...body.headers }, body: body.payload });
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
    return (await res.json()).detail.response.id;
  }

  async function uploadZip(name: string, content: Buffer): Promise<string> {
    const body = multipart({ name, data_type: 'training_data', type: 'supervised', training_type: 'analysis' }, { name, content, type: 'application/zip' });
    const res = await fetch(`${base}/api/dataset/register`, { method: 'POST', headers: { ...auth, ...body.headers }, body: body.payload });
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
    return (await res.json()).detail.response.id;
  }

  const optimisation = () => ({
    name: 'crash optimisation',
    models: [{ project_id: trained, model_key: '1_ridge' }],
    targets: [{ name: 'y', goal: 'maximize' }],
    features: ['x1', 'x2', 'x3'].map((name) => ({ name, kind: 'range', lower: 0, upper: 2 })),
    algorithms: ['random'],
    n_trials: 10,
    seed: 1,
  });

  async function design(name: string) {
    const settings = { name, variables: [{ name: 'a', type: 'continuous', low: 0, high: 1 }, { name: 'b', type: 'continuous', low: 0, high: 1 }], model: { kind: 'linear' }, responses: ['r'], algorithm: 'd_optimal', n_runs: 6, seed: 3 };
    const boundary = `----crash${crypto.randomBytes(6).toString('hex')}`;
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="settings"\r\n\r\n${JSON.stringify(settings)}\r\n--${boundary}--\r\n`;
    const res = await fetch(`${base}/api/optimal/register`, { method: 'POST', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: payload });
    if (res.status !== 201) throw new Error(`design: ${res.status} ${await res.text()}`);
    const p = (await res.json()).detail.response;
    for (const r of p.round_list ?? []) if (r.job_id) jobIds.add(r.job_id);
    return p;
  }

  const job = async (id: string) => ok('GET', `/api/jobs/${id}`);
  const finished = async (id: string) => {
    const j = await until(`job ${id} finished`, async () => {
      const v = await job(id);
      return DONE.includes(v.state) && v;
    });
    return j;
  };

  // ---- holds ------------------------------------------------------------------------------------------------

  function hold(...points: string[]): void {
    fs.rmSync(`${holdFile}.held`, { force: true });
    fs.writeFileSync(holdFile, points.join('\n'));
  }
  function release(): void {
    fs.writeFileSync(holdFile, '');
  }
  /** Waits until a process stopped at `point` and answers its pid. */
  const held = (point: string) =>
    until(`a process held at ${point}`, () => {
      const text = fs.existsSync(`${holdFile}.held`) ? fs.readFileSync(`${holdFile}.held`, 'utf8') : '';
      const m = new RegExp(`\\[test hold\\] ${point} pid (\\d+)`).exec(text);
      return m ? Number(m[1]) : undefined;
    });

  // ---- what must hold after every crash ----------------------------------------------------------------------

  const orgDir = (...p: string[]) => path.join(dataDir, 'files', 'org', orgId, ...p);
  const dirsIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

  /** Every dataset folder belongs to a listed dataset, and every listed dataset reads back. */
  async function datasetsConsistent(): Promise<string[]> {
    const listed = (await ok('GET', '/api/dataset')).map((d: { id: string }) => d.id).sort();
    expect(dirsIn(orgDir('datasets'))).toEqual(listed);
    for (const id of listed) {
      const image = id === ids.tiles;
      expect((await call('GET', `/api/dataset/upload/${id}?page=1&page_size=2`)).status, id).toBe(image ? 409 : 200);
    }
    return listed;
  }

  /** No job of ours stays queued or running (one that registration started, such as statistics, finishes). */
  async function noJobActive(): Promise<void> {
    for (const id of jobIds) expect(DONE, id).toContain((await job(id)).state);
    await until('no job queued or running', async () => {
      const status = await ok('GET', '/api/services/status');
      return status.active === 0 && status.queued === 0;
    });
  }

  /** Only the jobs folders of active jobs stay after a restart's sweep (grace 0 here), and nothing under tmp. */
  function nothingOrphaned(): void {
    expect(dirsIn(path.join(dataDir, 'jobs'))).toEqual([]);
    expect(dirsIn(path.join(dataDir, 'tmp')).filter((n) => n !== 'duckdb')).toEqual([]);
  }

  beforeAll(async () => {
    if (schema) {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
    }
    release();
    await start();
    const reg = await fetch(`${base}/account/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: STRONG_PASSWORD, first_name: 'Crash', last_name: 'Tester', organisation_name: 'Crash Works' }),
    });
    expect(reg.status, await reg.clone().text()).toBe(201);
    await login();
    ids.train = await uploadCsv('train.csv', table(300));
    ids.infer = await uploadCsv('infer.csv', table(80, false, 7), { data_type: 'inference_data' });
    ids.series = await uploadCsv('series.csv', series(), { type: 'unsupervised' });
    orgId = dirsIn(path.join(dataDir, 'files', 'org'))[0];
    expect(orgId).toBeTruthy();
    // the statistics every new dataset gets are done before any hold
    for (const id of [ids.train, ids.infer, ids.series]) {
      const r = await ok('POST', `/api/statistics/result/${id}`);
      if (r.job_id) await finished(r.job_id);
    }
  }, 300_000);

  afterAll(async () => {
    release();
    if (server) await kill9();
    if (schema) {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(holdFile, { force: true });
    fs.rmSync(`${holdFile}.held`, { force: true });
  }, 120_000);

  // ---- kill -9 of a worker during each job kind -------------------------------------------------------------

  interface WorkerCase {
    kind: string;
    /** Starts the work; answers the id of what the user sees (dataset, run, project, prediction). */
    start(): Promise<string>;
    /** The user's view of it: 'running', 'failed' or 'done' (what 'queued' and the like map to). */
    state(id: string): Promise<string>;
    /** After the failure: nothing half-written is offered. */
    check?(id: string): Promise<void>;
    /** Runs it again and waits for success; answers the id to look at. */
    rerun(id: string): Promise<string>;
  }

  const stateOf = (s: string) => (s === 'succeeded' || s === 'done' ? 'done' : s === 'failed' || s === 'cancelled' ? 'failed' : 'running');
  const projectState = (p: { training_state: string }) => (p.training_state === 'training' ? 'running' : p.training_state);
  let trained = ''; // a project with a trained model, for prediction

  const workerCases: WorkerCase[] = [
    {
      kind: 'statistics',
      start: async () => {
        const r = await ok('POST', `/api/statistics/${ids.train}`);
        jobIds.add(r.job_id);
        return ids.train;
      },
      state: async (id) => stateOf((await ok('POST', `/api/statistics/result/${id}`)).state),
      check: async (id) => expect((await ok('POST', `/api/statistics/result/${id}`)).result).toBeNull(),
      rerun: async (id) => {
        const r = await ok('POST', `/api/statistics/${id}`);
        jobIds.add(r.job_id);
        await until('statistics done', async () => (await ok('POST', `/api/statistics/result/${id}`)).state === 'succeeded');
        expect((await ok('POST', `/api/statistics/result/${id}`)).result.columns.length).toBe(4);
        return id;
      },
    },
    {
      kind: 'preprocess',
      start: async () => {
        const r = await ok('POST', `/api/preprocess/dataset/${ids.train}`, { steps: [{ process_type: 'scaling', method: 'standard', columns: ['x1'] }] });
        jobIds.add(r.job_id);
        return r.temp_id;
      },
      state: async (id) => stateOf((await ok('GET', `/api/preprocess/result/${id}`)).state),
      check: async (id) => {
        const before = await datasetsConsistent();
        expect((await call('POST', `/api/new_dataset/register/${id}`, { name: 'half', comment: '' })).status).toBe(409);
        expect(await datasetsConsistent()).toEqual(before);
      },
      rerun: async () => {
        const r = await ok('POST', `/api/preprocess/dataset/${ids.train}`, { steps: [{ process_type: 'scaling', method: 'standard', columns: ['x1'] }] });
        jobIds.add(r.job_id);
        expect((await finished(r.job_id)).state).toBe('succeeded');
        const d = await ok('POST', `/api/new_dataset/register/${r.temp_id}`, { name: 'scaled after a crash', comment: '' });
        expect(d.preprocessed).toBe(true);
        const listed = await datasetsConsistent();
        expect(listed).toContain(d.id);
        return r.temp_id;
      },
    },
    {
      kind: 'train',
      start: async () => {
        const p = await ok('POST', `/api/regress/register/${ids.train}`, { name: 'crash model', target_variables: ['y'], feature_variables: ['x1', 'x2', 'x3'], cross_validation: 2, models: [{ algorithm: 'ridge' }, { algorithm: 'linear' }] });
        const s = await ok('POST', `/api/train/model/${p.project_id}`);
        jobIds.add(s.job.id);
        return p.project_id;
      },
      state: async (id) => projectState(await ok('GET', `/api/regress/project/${id}`)),
      check: async (id) => {
        const p = await ok('GET', `/api/regress/project/${id}`);
        for (const m of p.models) expect(m.state).toBe('failed');
        expect((await call('POST', `/api/regress/report/${id}`, { model_key: p.models[0].model_key })).status).toBe(409);
        // the half-written run folder went with the failure
        expect(dirsIn(orgDir('training', id, 'runs'))).toEqual([]);
      },
      rerun: async (id) => {
        const s = await ok('POST', `/api/train/model/${id}`);
        jobIds.add(s.job.id);
        expect((await finished(s.job.id)).state).toBe('succeeded');
        const p = await ok('GET', `/api/regress/project/${id}`);
        expect(p.training_state).toBe('done');
        for (const m of p.models) expect(m.state).toBe('done');
        expect(dirsIn(orgDir('training', id, 'runs'))).toHaveLength(1);
        trained = id;
        return id;
      },
    },
    {
      kind: 'predict',
      start: async () => {
        expect(trained, 'the training case ran first').toBeTruthy();
        const r = await ok('POST', `/api/inference/execute/${trained}/1_ridge`, { dataset_id: ids.infer });
        return r.id;
      },
      state: async (id) => (await ok('GET', `/api/prediction/${id}`)).state,
      check: async (id) => expect((await call('GET', `/api/inference/${id}/rows?page=1&page_size=5`)).status).toBe(409),
      rerun: async () => {
        const r = await ok('POST', `/api/inference/execute/${trained}/1_ridge`, { dataset_id: ids.infer });
        const done = await until('the prediction done', async () => {
          const v = await ok('GET', `/api/prediction/${r.id}`);
          return (v.state === 'done' || v.state === 'failed') && v;
        });
        expect(done.state).toBe('done');
        expect((await ok('GET', `/api/inference/${r.id}/rows?page=1&page_size=5`)).rows).toHaveLength(5);
        return r.id;
      },
    },
    {
      kind: 'tsad_train',
      start: async () => {
        const p = await ok('POST', `/api/timeseries/register/${ids.series}`, {
          name: 'crash series',
          project_type: 'time_series_anomaly_detection_unsupervised',
          time_column: 'sample',
          feature_variables: ['s1', 's2', 's3'],
          target_variables: ['fault'],
          normal: { mode: 'rows', rows: 200 },
          models: [{ algorithm: 'pca_mspc' }],
        });
        const s = await ok('POST', `/api/timeseries/train/model/${p.project_id}`);
        jobIds.add(s.job.id);
        return p.project_id;
      },
      state: async (id) => projectState(await ok('GET', `/api/timseseries/project/${id}`)),
      check: async (id) => {
        const p = await ok('GET', `/api/timseseries/project/${id}`);
        for (const m of p.models) expect(m.state).toBe('failed');
        expect(dirsIn(orgDir('training', id, 'runs'))).toEqual([]);
      },
      rerun: async (id) => {
        const s = await ok('POST', `/api/timeseries/train/model/${id}`);
        jobIds.add(s.job.id);
        expect((await finished(s.job.id)).state).toBe('succeeded');
        const p = await ok('GET', `/api/timseseries/project/${id}`);
        expect(p.training_state).toBe('done');
        return id;
      },
    },
    {
      kind: 'optimize',
      start: async () => {
        expect(trained, 'the training case ran first').toBeTruthy();
        const p = await ok('POST', `/api/optimization/register/${ids.train}`, optimisation());
        for (const r of p.runs) jobIds.add(r.job_id);
        return p.id;
      },
      state: async (id) => (await ok('GET', `/api/optimization/project/${id}`)).state,
      check: async (id) => {
        const p = await ok('GET', `/api/optimization/project/${id}`);
        for (const r of p.runs) expect(r.state).toBe('failed');
        const r = await ok('GET', `/api/optimization/result/${id}?algorithm=random`);
        expect(r.run.state).toBe('failed');
        expect(r.result).toBeNull();
        expect((await call('POST', `/api/opt/feature/download/${ids.train}`, { run_id: r.run.id })).status).toBe(409);
      },
      rerun: async (id) => {
        const again = await ok('POST', `/api/optimization/evaluate/${id}`, { algorithms: ['random'] });
        for (const r of again.runs ?? []) if (r.job_id) jobIds.add(r.job_id);
        await until('the optimisation done', async () => ['done', 'failed'].includes((await ok('GET', `/api/optimization/project/${id}`)).state));
        expect((await ok('GET', `/api/optimization/project/${id}`)).state).toBe('done');
        expect((await ok('GET', `/api/optimization/result/${id}?algorithm=random`)).result.best.length).toBeGreaterThan(0);
        return id;
      },
    },
    {
      kind: 'optimal_design',
      start: async () => {
        // registering waits up to two minutes for the engine's input checks, and this job is held: list it instead
        void design('crash design').catch(() => {});
        return until('the design listed', async () => (await ok('GET', `/api/optimal/projects?query=${encodeURIComponent('crash design')}`)).items.find((x: { name: string }) => x.name === 'crash design')?.id as string | undefined);
      },
      state: async (id) => (await ok('GET', `/api/optimal/project/${id}`)).state,
      check: async (id) => expect((await ok('GET', `/api/optimal/result/${id}`)).result).toBeNull(),
      rerun: async () => {
        const p = await design('design after a crash');
        await until('the design done', async () => ['done', 'failed'].includes((await ok('GET', `/api/optimal/project/${p.id}`)).state));
        const r = await ok('GET', `/api/optimal/result/${p.id}`);
        expect(r.state).toBe('done');
        expect(r.result.runs).toHaveLength(6);
        return p.id;
      },
    },
    {
      kind: 'image_train',
      start: async () => {
        ids.tiles ??= await uploadZip('tiles.zip', await tilesZip());
        const p = await ok('POST', `/api/project/register/${ids.tiles}`, { project_type: 'analysis', name: 'crash tiles', settings: { image_size: 32, epochs: 1, batch_size: 16 }, models: [{ algorithm: 'compact_cnn', params: { width: 4 } }] });
        const s = await ok('POST', `/api/train/${p.project_id}`, {});
        if (s.job?.id) jobIds.add(s.job.id);
        return p.project_id;
      },
      state: async (id) => projectState(await ok('GET', `/api/image/train/result/${id}`)),
      check: async (id) => {
        const v = await ok('GET', `/api/image/train/result/${id}`);
        for (const m of v.models) expect(m.state).toBe('failed');
      },
      rerun: async (id) => {
        const s = await ok('POST', `/api/train/${id}`, {});
        if (s.job?.id) jobIds.add(s.job.id);
        await until('the image model trained', async () => ['done', 'failed'].includes((await ok('GET', `/api/image/train/result/${id}`)).training_state));
        const v = await ok('GET', `/api/image/train/result/${id}`);
        expect(v.models[0].state, JSON.stringify(v.models[0])).toBe('done');
        return id;
      },
    },
  ];

  it.each(workerCases.map((c) => [c.kind, c] as const))('kill -9 of the worker running %s: the job fails, nothing half-written is offered, a re-run works', async (_kind, c) => {
    hold(c.kind);
    const id = await c.start();
    const pid = await held(c.kind);
    // the engine holds right after its start message; the server records it a moment later
    await until(`the server saw ${c.kind} start`, async () => (await c.state(id)) === 'running');
    process.kill(pid, 'SIGKILL');
    await until(`${c.kind} failed after the kill`, async () => (await c.state(id)) === 'failed');
    release();
    await c.check?.(id);
    await noJobActive();
    await c.rerun(id);
    await datasetsConsistent();
    await noJobActive();
  }, 900_000);

  // ---- kill -9 of the server --------------------------------------------------------------------------------

  it('kill -9 of the server during an upload: after restart nothing is listed, the temporary file is swept, the upload works again', async () => {
    const before = await datasetsConsistent();
    const body = multipart({ name: 'interrupted.csv', data_type: 'training_data', type: 'supervised', training_type: 'regression' }, { name: 'interrupted.csv', content: table(120_000, true, 3) });
    const url = new URL(`${base}/api/dataset/register`);
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...auth, ...body.headers, 'content-length': body.payload.length } });
    req.on('error', () => {}); // the server dies under it
    req.write(body.payload.subarray(0, Math.floor(body.payload.length / 2)));
    // the first half is being written to the upload's temporary folder, and converted to Parquet beside it (its pipe)
    const inFlight = (d: string) => path.join(dataDir, 'tmp', d);
    await until('the upload half-written and converting', () =>
      dirsIn(path.join(dataDir, 'tmp')).some((d) => fs.existsSync(path.join(inFlight(d), 'upload.pipe')) && fs.existsSync(path.join(inFlight(d), 'original.csv')) && fs.statSync(path.join(inFlight(d), 'original.csv')).size >= 1 << 20),
    );
    await kill9();
    req.destroy();
    await start();
    expect(await datasetsConsistent()).toEqual(before);
    nothingOrphaned();
    const again = await uploadCsv('after the crash.csv', table(200, true, 5));
    expect(await datasetsConsistent()).toContain(again);
    const r = await ok('POST', `/api/statistics/result/${again}`);
    if (r.job_id) jobIds.add(r.job_id);
  }, 600_000);

  it('kill -9 of the server during a preprocessing registration: no dataset is listed, its committed folder is swept, the run is registered afterwards', async () => {
    const r = await ok('POST', `/api/preprocess/dataset/${ids.train}`, { steps: [{ process_type: 'scaling', method: 'minmax', columns: ['x2'] }] });
    jobIds.add(r.job_id);
    expect((await finished(r.job_id)).state).toBe('succeeded');
    const before = await datasetsConsistent();
    hold('server:register');
    void call('POST', `/api/new_dataset/register/${r.temp_id}`, { name: 'registered in a crash', comment: '' }).catch(() => {});
    await held('server:register');
    // the dataset's folder is committed, its row is not stored
    expect(dirsIn(orgDir('datasets')).length).toBe(before.length + 1);
    await kill9();
    release();
    await start();
    expect(await datasetsConsistent()).toEqual(before);
    expect((await ok('GET', `/api/preprocess/result/${r.temp_id}`)).dataset_id).toBeNull();
    nothingOrphaned();
    // the unregistered run's output was swept with the rest (grace 0 here), so the same condition runs again
    const again = await ok('POST', `/api/preprocess/dataset/${ids.train}`, { steps: [{ process_type: 'scaling', method: 'minmax', columns: ['x2'] }] });
    jobIds.add(again.job_id);
    expect((await finished(again.job_id)).state).toBe('succeeded');
    const d = await ok('POST', `/api/new_dataset/register/${again.temp_id}`, { name: 'registered after a crash', comment: '' });
    expect(await datasetsConsistent()).toContain(d.id);
    expect((await call('POST', `/api/new_dataset/register/${again.temp_id}`, { name: 'twice', comment: '' })).status).toBe(409);
  }, 600_000);

  it('kill -9 of the server during training: after restart the job and its models are failed, the run folder is gone, training again works', async () => {
    const p = await ok('POST', `/api/regress/register/${ids.train}`, { name: 'server crash model', target_variables: ['y'], feature_variables: ['x1', 'x2'], models: [{ algorithm: 'ridge' }] });
    hold('train');
    const s = await ok('POST', `/api/train/model/${p.project_id}`);
    jobIds.add(s.job.id);
    await held('train');
    // the engine holds right after its start message: wait until the server has recorded it (else a kill before that
    // leaves the job queued, and it rightly runs again after the restart instead of failing)
    await until('the server saw the training start', async () => (await job(s.job.id)).state === 'running');
    await kill9();
    release();
    await start();
    const after = await ok('GET', `/api/regress/project/${p.project_id}`);
    expect(after.training_state).toBe('failed');
    expect(after.models[0].state).toBe('failed');
    expect((await job(s.job.id)).state).toBe('failed');
    expect(dirsIn(orgDir('training', p.project_id, 'runs'))).toEqual([]);
    await noJobActive();
    nothingOrphaned();
    const again = await ok('POST', `/api/train/model/${p.project_id}`);
    jobIds.add(again.job.id);
    expect((await finished(again.job.id)).state).toBe('succeeded');
    expect((await ok('GET', `/api/regress/project/${p.project_id}`)).models[0].state).toBe('done');
  }, 600_000);

  it('kill -9 of the server during a prediction: after restart it is failed and offers no rows, predicting again works', async () => {
    expect(trained, 'the worker training case ran first').toBeTruthy();
    hold('predict');
    const pred = await ok('POST', `/api/inference/execute/${trained}/1_ridge`, { dataset_id: ids.infer });
    await held('predict');
    await until('the server saw the prediction start', async () => (await ok('GET', `/api/prediction/${pred.id}`)).state === 'running');
    await kill9();
    release();
    await start();
    expect((await ok('GET', `/api/prediction/${pred.id}`)).state).toBe('failed');
    expect((await call('GET', `/api/inference/${pred.id}/rows?page=1&page_size=5`)).status).toBe(409);
    await noJobActive();
    nothingOrphaned();
    const again = await ok('POST', `/api/inference/execute/${trained}/1_ridge`, { dataset_id: ids.infer });
    const done = await until('the prediction done', async () => {
      const v = await ok('GET', `/api/prediction/${again.id}`);
      return (v.state === 'done' || v.state === 'failed') && v;
    });
    expect(done.state).toBe('done');
  }, 600_000);

  it('after a last restart no job is queued or running and no orphan remains', async () => {
    await kill9();
    await start();
    await noJobActive();
    await datasetsConsistent();
    nothingOrphaned();
  }, 300_000);
});
