import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

/**
 * Issue 16: on PostgreSQL with two workers, one training job's auto-tune trials are shared with a helper job
 * (kind tune_helper) through Optuna's RDB storage in the same database and schema; the count of trials stays n,
 * and the helper ends with the job. Runs when TEST_DATABASE_URL is set.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('auto-tune trials shared between workers (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('postgres', { config: { workers: 2 } });
  }, 120_000);
  afterAll(() => t?.close());

  it('queues a helper beside the training job, which ends with it; the report counts n trials in all', async () => {
    const alice = await registerAndLogin(t.app, 'tuner');
    const body = (r: LightMyRequestResponse) => r.json().detail.response;
    const csv = fs.readFileSync(path.join(SHARED_DATA, 'uci_concrete', 'concrete_data.csv'), 'utf8');
    const cols = csv.split('\n')[0].trim().split(',');
    const ds = body(await upload(t.app, alice.auth, { name: 'concrete.csv', content: csv }));
    const call = (method: string, url: string, payload?: unknown) => t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: alice.auth });
    const p = body(
      await call('POST', `/api/regress/register/${ds.id}`, {
        name: 'shared tuning',
        target_variables: [cols[cols.length - 1]],
        feature_variables: cols.slice(0, -1),
        cross_validation: 2,
        auto_tune: true,
        number_of_trials: 8,
        models: [{ algorithm: 'random_forest', params: { n_estimators: 20 } }],
      }),
    );
    const started = body(await call('POST', `/api/train/model/${p.project_id}`));
    const helpers = await t.app.ctx.db.selectFrom('jobs').selectAll().where('subject_type', '=', 'train_job').where('subject_id', '=', started.job.id).execute();
    expect(helpers.map((h) => h.kind)).toEqual(['tune_helper']);
    const spec = JSON.parse(helpers[0].spec_json);
    expect(spec.tune_shared.storage).toMatch(/^postgresql\+psycopg:\/\/.*search_path/);
    const main = await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    expect(main.state, main.error ?? '').toBe('succeeded');
    const helper = await t.app.ctx.jobs.waitFor(helpers[0].id, 120_000);
    expect(['succeeded', 'cancelled'], `${helper.state}: ${helper.error ?? ''}`).toContain(helper.state);
    const rep = body(await call('POST', `/api/regress/report/${p.project_id}`, { model_key: '1_random_forest' })).report;
    expect(rep.auto_tune.trials.length).toBeGreaterThanOrEqual(8);
    expect(rep.auto_tune.trials.length).toBeLessThanOrEqual(9);
    if (helper.state === 'succeeded') {
      // The helper counts the trials it started; the report lists those finished when the main job closed the
      // study, so the helper's one trial in flight at that moment (abandoned) may be missing from it.
      const ran = (helper.result as { total: number }).total;
      const listed = rep.auto_tune.trials.filter((x: { worker: unknown }) => x.worker && x.worker !== 'main').length;
      expect(listed).toBeLessThanOrEqual(ran);
      expect(listed).toBeGreaterThanOrEqual(ran - 1);
    }
  }, 900_000);
});
