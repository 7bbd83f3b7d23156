import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, filesUnder, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

/** 200,000 rows of four inputs and a noisy target: enough for a LightGBM fit of 1,000 deep rounds to take a while. */
function table(rows: number): string {
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const lines = ['a,b,c,d,y'];
  for (let i = 0; i < rows; i++) {
    const [a, b, c, d] = [rnd(), rnd(), rnd(), rnd()];
    lines.push(`${a.toFixed(5)},${b.toFixed(5)},${c.toFixed(5)},${d.toFixed(5)},${(Math.sin(6 * a) + b * c + 0.3 * rnd()).toFixed(5)}`);
  }
  return lines.join('\n') + '\n';
}

/** Issue 34: Stop (POST /api/jobs/{id}/cancel, the job API) ends a long LightGBM fit and keeps nothing half-written. */
describe.each(DATABASES)('stopping a long training on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let datasetId: string;

  const call = (method: string, url: string, payload?: unknown, who = alice) =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 2 } });
    alice = await registerAndLogin(t.app, 'stopper');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    datasetId = body(await upload(t.app, alice.auth, { name: 'long.csv', content: table(200_000) })).id;
  }, 600_000);
  afterAll(() => t?.close());

  it('ends the job during boosting, fails the model as cancelled and leaves no model or report', async () => {
    const params = { n_estimators: 1000, learning_rate: 0.005, num_leaves: 256, min_child_samples: 2 };
    const reg = await call('POST', `/api/regress/register/${datasetId}`, { name: 'long', target_variables: ['y'], feature_variables: ['a', 'b', 'c', 'd'], models: [{ algorithm: 'lightgbm', params }] });
    expect(reg.statusCode).toBe(200);
    const projectId = body(reg).project_id;
    expect((await call('POST', `/api/train/model/${projectId}`)).statusCode).toBe(200);

    // wait (generously) until the engine reports boosting rounds: the fit is under way
    let r = body(await call('GET', `/api/train/result/${projectId}`));
    const jobId: string = r.job.id;
    for (let i = 0; i < 2400 && !/boosting round \d+ of 1000/.test(r.job?.message ?? ''); i++) {
      expect(['queued', 'running']).toContain(r.job.state);
      await new Promise((res) => setTimeout(res, 250));
      r = body(await call('GET', `/api/train/result/${projectId}`));
    }
    expect(r.job.message).toMatch(/final fit: boosting round \d+ of 1000/);

    // another organisation cannot stop it
    expect((await call('POST', `/api/jobs/${jobId}/cancel`, {}, bob)).statusCode).toBe(404);
    const stop = await call('POST', `/api/jobs/${jobId}/cancel`, {});
    expect(stop.statusCode).toBe(200);
    const ended = await t.app.ctx.jobs.waitFor(jobId, 120_000);
    expect(ended.state).toBe('cancelled');

    r = body(await call('GET', `/api/train/result/${projectId}`));
    expect(r.training_state).not.toBe('training');
    expect(r.models).toHaveLength(1);
    expect(r.models[0].state).toBe('failed');
    expect(r.models[0].error).toMatch(/cancel/);
    // nothing of the stopped model is left: no model file, package or report anywhere under the data folder (the
    // dataset's own sketch manifest aside)
    const written = filesUnder(t.dataDir).filter((f) => !f.includes('/datasets/') && /(^|\/)(model\.joblib|model\.zip|manifest\.json|report\.json)(\.tmp)?$/.test(f));
    expect(written).toEqual([]);
  }, 900_000);
});
