import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';
import { pdfPages } from './pdf-text.js';

/**
 * Issue 34, "Past one machine": with MITATE_DASK_SCHEDULER set on the engine workers, a LightGBM model is boosted on a
 * Dask cluster (a scheduler and two worker processes started here) and the product shows it like any other model.
 */
const engineDir = path.resolve(import.meta.dirname, '..', '..', 'engine');
const BIN = path.join(engineDir, '..', '.venv', 'bin');
const CCPP = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'), 'utf8');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const haveDask = spawnSync(path.join(BIN, 'python'), ['-c', 'import distributed, lightgbm.dask'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!haveDask)('LightGBM on a Dask cluster (MITATE_DASK_SCHEDULER)', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  const procs: ChildProcess[] = [];
  let address = '';
  const saved = { scheduler: process.env.MITATE_DASK_SCHEDULER, min: process.env.MITATE_DASK_MIN_ROWS };

  const call = (method: string, url: string, payload?: unknown, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...alice.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  beforeAll(async () => {
    const port = await freePort();
    address = `tcp://127.0.0.1:${port}`;
    const env = { ...process.env, PYTHONPATH: [engineDir, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) };
    const quiet = { env, stdio: 'ignore' as const };
    procs.push(spawn(path.join(BIN, 'dask'), ['scheduler', '--host', '127.0.0.1', '--port', String(port), '--no-dashboard'], quiet));
    for (let i = 0; i < 2; i++) procs.push(spawn(path.join(BIN, 'dask'), ['worker', address, '--nthreads', '1', '--no-dashboard', '--host', '127.0.0.1'], quiet));
    const ready = spawnSync(
      path.join(BIN, 'python'),
      ['-c', `import time\nfrom distributed import Client\nfor _ in range(120):\n    try:\n        c = Client("${address}", timeout=5); break\n    except OSError:\n        time.sleep(1)\nc.wait_for_workers(2, timeout=300); c.close()`],
      { encoding: 'utf8', env, timeout: 600_000 },
    );
    expect(ready.status, ready.stderr).toBe(0);
    process.env.MITATE_DASK_SCHEDULER = address; // the engine workers started by the app inherit it
    process.env.MITATE_DASK_MIN_ROWS = '0';
    t = await makeTestApp('sqlite', { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'dask');
  }, 900_000);

  afterAll(async () => {
    await t?.close();
    for (const [k, v] of [['MITATE_DASK_SCHEDULER', saved.scheduler], ['MITATE_DASK_MIN_ROWS', saved.min]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const p of procs.reverse()) p.kill('SIGTERM');
  });

  it('trains through the product on the cluster; the job log, the report and its PDF say so', async () => {
    const id = body(await upload(t.app, alice.auth, { name: 'ccpp.csv', content: CCPP })).id;
    const reg = await call('POST', `/api/regress/register/${id}`, {
      name: 'Power plant on Dask',
      target_variables: ['EP'],
      feature_variables: ['AT', 'V', 'AP', 'RH'],
      cross_validation: 2,
      models: [{ algorithm: 'lightgbm', params: { n_estimators: 50 } }],
    });
    expect(reg.statusCode, reg.body).toBe(200);
    const p0 = body(reg);
    const started = body(await call('POST', `/api/train/model/${p0.project_id}`));
    await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    const p = body(await call('GET', `/api/regress/project/${p0.project_id}`));
    expect(p.training_state, JSON.stringify(p.models)).toBe('done');
    expect(p.models[0].metrics.r2).toBeGreaterThan(0.9);

    const org = (await t.app.ctx.db.selectFrom('training_projects').select('organisation_id').executeTakeFirstOrThrow()).organisation_id;
    const job = await t.app.ctx.jobs.get(org, started.job.id);
    expect(job?.log).toContain(`trained on the Dask cluster at ${address}, 2 workers`);
    const rep = body(await call('POST', `/api/regress/report/${p0.project_id}`, { model_key: p.models[0].model_key })).report;
    expect(rep.trained_on).toEqual({ engine: 'dask', scheduler: address, workers: 2 });
    const pdfJa = await call('GET', `/api/regress/report/pdf/${p0.project_id}/${p.models[0].model_key}`, undefined, 'ja');
    expect(pdfJa.statusCode).toBe(200);
    expect(pdfPages(pdfJa.rawPayload).join('\n').replace(/\s+/g, '')).toContain(`Daskクラスター${address}（ワーカー2台）`);

  }, 900_000);
});
