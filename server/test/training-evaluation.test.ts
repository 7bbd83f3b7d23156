import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

// statsmodels' stackloss (Brownlee 1965; public domain), 21 rows: an 85/15 split leaves 3 test rows.
const STACKLOSS = 'STACKLOSS,AIRFLOW,WATERTEMP,ACIDCONC|42.0,80.0,27.0,89.0|37.0,80.0,27.0,88.0|37.0,75.0,25.0,90.0|28.0,62.0,24.0,87.0|18.0,62.0,22.0,87.0|18.0,62.0,23.0,87.0|19.0,62.0,24.0,93.0|20.0,62.0,24.0,93.0|15.0,58.0,23.0,87.0|14.0,58.0,18.0,80.0|14.0,58.0,18.0,89.0|13.0,58.0,17.0,88.0|11.0,58.0,18.0,82.0|12.0,58.0,19.0,93.0|8.0,50.0,18.0,89.0|7.0,50.0,18.0,86.0|8.0,50.0,19.0,72.0|8.0,50.0,19.0,79.0|9.0,50.0,20.0,80.0|15.0,56.0,20.0,82.0|15.0,70.0,20.0,91.0|'.split('|').join('\n');

/** Issue 15: small test sets are flagged and cross-validation-only evaluation can be chosen for small tables. */
describe.each(DATABASES)('evaluation of small tables on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let dataset: string;
  const call = (method: string, url: string, payload?: unknown, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...alice.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const base = { target_variables: ['STACKLOSS'], feature_variables: ['AIRFLOW', 'WATERTEMP', 'ACIDCONC'], cross_validation: 3, models: [{ algorithm: 'linear' }] };

  async function train(payload: object) {
    const p = body(await call('POST', `/api/regress/register/${dataset}`, payload));
    await call('POST', `/api/train/model/${p.project_id}`);
    const started = body(await call('GET', `/api/regress/project/${p.project_id}`));
    await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    return body(await call('GET', `/api/regress/project/${p.project_id}`));
  }

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'evaluator');
    dataset = body(await upload(t.app, alice.auth, { name: 'stackloss.csv', content: STACKLOSS })).id;
  }, 900_000);
  afterAll(() => t?.close());

  it('a 3-row test set is flagged and repeated cross-validation is the headline', async () => {
    const p = await train({ ...base, name: 'holdout' });
    const m = p.models[0];
    expect(m.state).toBe('done');
    expect(p.evaluation).toBe('holdout');
    expect(m.evaluation).toMatchObject({ mode: 'holdout', test_rows: 3, small_test: true, headline: 'repeated_cv', threshold: 30 });
    expect(m.evaluation.repeated_cv.mean).toBeGreaterThan(0.5);
  }, 900_000);

  it('cross-validation only trains on every row and has no test set', async () => {
    const p = await train({ ...base, name: 'cv only', evaluation: 'cv_only' });
    const m = p.models[0];
    expect(p.evaluation).toBe('cv_only');
    expect(m.evaluation).toMatchObject({ mode: 'cv_only', test_rows: 0, small_test: false, headline: 'repeated_cv' });
    expect(m.evaluation.repeated_cv.repeats).toBe(10);
  }, 900_000);

  it('cross-validation only is refused where it does not apply, in the caller\'s language', async () => {
    const res = await call('POST', `/api/softsensor/register/${dataset}`, { ...base, name: 'x', evaluation: 'cv_only' }, 'ja');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toBe('交差検証のみの評価は回帰と判別分析で使えます。');
  });
});
