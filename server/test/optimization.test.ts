import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, multipart, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

const CONCRETE = fs.readFileSync(path.join(SHARED_DATA, 'uci_concrete', 'concrete_data.csv'), 'utf8');
const TARGET = 'compressive_strength_mpa';
const FEATURES = CONCRETE.split('\n')[0].trim().split(',').filter((c) => c !== TARGET);

/** SPEC §7 'Optimization' on uci_concrete: a trained model, a cost constraint, every call, the §5 rules, tenancy. */
describe.each(DATABASES)('optimization on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let datasetId = '';
  let trainingId = '';
  let otherTrainingId = '';
  let ranges: { name: string; min: number; max: number }[] = [];

  const call = (method: string, url: string, payload?: unknown, who = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  async function train(dataset: string, algorithm: string) {
    const reg = body(await call('POST', `/api/regress/register/${dataset}`, { name: `concrete ${algorithm}`, target_variables: [TARGET], feature_variables: FEATURES, cross_validation: 2, models: [{ algorithm, params: algorithm === 'random_forest' ? { n_estimators: 30 } : {} }] }));
    const started = body(await call('POST', `/api/train/model/${reg.project_id}`));
    await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    return reg.project_id as string;
  }

  const settings = (over: Record<string, unknown> = {}) => ({
    name: 'Strong and cheap',
    models: [{ project_id: trainingId, model_key: '1_random_forest' }],
    targets: [{ name: TARGET, goal: 'maximize' }],
    features: ranges.map((f) => (f.name === 'age_days' ? { name: f.name, kind: 'discrete', values: [7, 28, 90] } : { name: f.name, kind: 'range', lower: f.min, upper: f.max, unit: 'kg/m³' })),
    constraints: [{ name: 'cost', type: 'linear', coefficients: { cement: 0.1, blast_furnace_slag: 0.05, superplasticizer: 1 }, operator: '<=', value: 40 }],
    algorithms: ['tpe', 'random'],
    n_trials: 40,
    seed: 1,
    ...over,
  });

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 2 } });
    alice = await registerAndLogin(t.app, 'optimiser');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    datasetId = body(await upload(t.app, alice.auth, { name: 'concrete.csv', content: CONCRETE })).id;
    const otherDataset = body(await upload(t.app, alice.auth, { name: 'concrete2.csv', content: CONCRETE })).id;
    trainingId = await train(datasetId, 'random_forest');
    otherTrainingId = await train(otherDataset, 'ridge');
  }, 600_000);
  afterAll(() => t?.close());

  it('gives the features step the inputs and training ranges of the chosen models', async () => {
    const res = await call('POST', `/api/optimization/preprocess/${trainingId}`, { models: [{ project_id: trainingId, model_key: '1_random_forest' }] });
    expect(res.statusCode, res.body).toBe(200);
    const info = body(res);
    expect(info.dataset_id).toBe(datasetId);
    expect(info.targets[0]).toMatchObject({ name: TARGET, model_key: '1_random_forest' });
    expect(info.features.map((f: { name: string }) => f.name)).toEqual(FEATURES);
    expect(info.features.find((f: { name: string }) => f.name === 'cement')).toMatchObject({ kind: 'numeric', min: 102, max: 540 });
    ranges = info.features;
  });

  it('refuses bad settings with clear messages in en and ja, storing nothing', async () => {
    const msg = async (payload: object, lang = 'en') => {
      const res = await call('POST', `/api/optimization/register/${datasetId}`, payload, alice, lang);
      expect(res.statusCode, res.body).toBe(422);
      return res.json().detail[0].msg as string;
    };
    expect(await msg(settings({ models: [] }))).toBe('At least one model must be selected');
    expect(await msg(settings({ models: [] }), 'ja')).toBe('モデルを1つ以上選択してください');
    expect(await msg(settings({ models: [{ project_id: trainingId, model_key: '1_random_forest' }, { project_id: otherTrainingId, model_key: '1_ridge' }] }))).toBe(
      'All models must come from the same source dataset.',
    );
    expect(await msg(settings({ targets: [{ name: TARGET, goal: 'maximize' }, { name: TARGET, goal: 'minimize' }] }))).toContain('chosen twice');
    expect(await msg(settings({ features: [...settings().features, { name: TARGET, kind: 'range', lower: 1, upper: 2 }] }))).toContain('must not be among the features');
    expect(await msg(settings({ features: settings().features.slice(1) }))).toBe('Set a range, values or a fixed value for "cement".');
    expect(await msg(settings({ features: settings().features.slice(1) }), 'ja')).toBe('「cement」の範囲・値・固定値を設定してください。');
    const inverted = settings().features.map((f: { name: string }) => (f.name === 'cement' ? { ...f, lower: 500, upper: 100 } : f));
    expect(await msg(settings({ features: inverted }))).toContain('lower bound of "cement" must be below');
    const words = settings().features.map((f: { name: string }) => (f.name === 'age_days' ? { ...f, values: [7, 'soon'] } : f));
    expect(await msg(settings({ features: words }))).toContain('"soon"');
    expect(await msg(settings({ seed: 1, constraints: [{ name: 'cost', type: 'linear', coefficients: { cement: 0.123456789 }, operator: '<=', value: 40 }] }))).toContain('7 digits');
    const infeasible = settings({ constraints: [{ name: 'budget', type: 'linear', coefficients: { cement: 1, water: 1 }, operator: '<=', value: 50 }, { name: 'cement floor', type: 'linear', coefficients: { cement: 1 }, operator: '>=', value: 120 }] });
    const text = await msg(infeasible);
    expect(text).toContain('"budget"');
    expect(await msg(infeasible, 'ja')).toContain('「budget」');
    expect(body(await call('GET', '/api/optimization/projects')).total).toBe(0);
  }, 900_000);

  it('registers, runs TPE and random search, honours the cost, ranks, downloads and predicts a condition', async () => {
    const res = await call('POST', `/api/optimization/register/${datasetId}`, settings());
    expect(res.statusCode, res.body).toBe(201);
    const p0 = body(res);
    expect(p0.runs.map((r: { algorithm: string }) => r.algorithm).sort()).toEqual(['random', 'tpe']);
    for (const r of p0.runs) await t.app.ctx.jobs.waitFor(r.job_id, 600_000);
    const p = body(await call('GET', `/api/optimization/project/${p0.id}`));
    expect(p.state, JSON.stringify(p.runs)).toBe('done');
    expect(p.models[0]).toMatchObject({ target: TARGET, model_key: '1_random_forest' });

    const tpe = body(await call('GET', `/api/optimization/result/${p0.id}?algorithm=tpe`));
    expect(tpe.run.state).toBe('done');
    const r = tpe.result;
    // the 40 trials the algorithm proposed, then the refinement with its stated budget (issue 30)
    expect(r.search_evaluations).toBe(40);
    expect(r.refinement.screen_evaluations).toBe(8192);
    expect(r.evaluations).toBeGreaterThanOrEqual(40 + r.refinement.screen_evaluations + r.refinement.local_evaluations);
    expect(r.max_violation).toBeLessThanOrEqual(1e-9);
    const best = r.best[0];
    const cost = 0.1 * best.features.cement + 0.05 * best.features.blast_furnace_slag + best.features.superplasticizer;
    expect(cost).toBeLessThanOrEqual(40 + 1e-9);
    expect([7, 28, 90]).toContain(best.features.age_days);
    expect(best.predictions[TARGET]).toBeGreaterThan(40);
    expect(r.convergence.at(-1).best).toBeCloseTo(best.objective, 6);
    expect(Object.keys(r.profiles)).toContain('cement');
    // by run id too
    expect(body(await call('GET', `/api/optimization/result/${tpe.run.id}`)).run.id).toBe(tpe.run.id);

    const csv = await call('POST', `/api/opt/feature/download/${datasetId}`, { run_id: tpe.run.id });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\n')[0]).toContain(`predicted_${TARGET}`);
    const template = await call('POST', `/api/opt/feature/download/${datasetId}`, {});
    expect(template.body.split('\n')[0]).toBe('name,kind,lower,upper,values,unit');

    const pred = body(await call('POST', `/api/optimization/prediction/${p0.id}`, { conditions: [best.features] }));
    await t.app.ctx.jobs.waitFor(pred.id, 600_000);
    const done = body(await call('POST', `/api/optimization/prediction/result/${pred.id}`));
    expect(done.state).toBe('done');
    expect(done.result.predictions[0].predictions[TARGET]).toBeCloseTo(best.predictions[TARGET], 6);
    expect(done.result.predictions[0].feasible).toBe(true);
    expect(body(await call('GET', `/api/optimization/prediction/${pred.id}`)).state).toBe('done');

    // list with state counts and search
    const list = body(await call('GET', '/api/optimization/projects/list?state=done'));
    expect(list.counts.done).toBe(1);
    expect(list.items[0].id).toBe(p0.id);
    expect(body(await call('GET', '/api/optimization/projects?query=nomatch')).total).toBe(0);

    // run one algorithm again
    const again = body(await call('POST', `/api/optimization/evaluate/${p0.id}`, { algorithms: ['cmaes'] }));
    expect(again.runs.map((x: { algorithm: string }) => x.algorithm)).toContain('cmaes');
    await t.app.ctx.jobs.waitFor(again.runs.find((x: { algorithm: string }) => x.algorithm === 'cmaes').job_id, 600_000);

    // another organisation sees nothing; a viewer writes nothing
    expect((await call('GET', `/api/optimization/project/${p0.id}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/optimization/result/${tpe.run.id}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/optimization/project/delete/${p0.id}`, undefined, bob)).statusCode).toBe(404);
    expect(body(await call('GET', '/api/optimization/projects', undefined, bob)).total).toBe(0);
    await t.app.ctx.db.updateTable('users').set({ role: 'viewer' }).where('email', '=', alice.email).execute();
    expect((await call('POST', `/api/optimization/evaluate/${p0.id}`, {})).statusCode).toBe(403);
    expect((await call('DELETE', `/api/optimization/project/delete/${p0.id}`)).statusCode).toBe(403);
    await t.app.ctx.db.updateTable('users').set({ role: 'owner' }).where('email', '=', alice.email).execute();

    expect((await call('DELETE', `/api/optimization/project/delete/${p0.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/optimization/project/${p0.id}`)).statusCode).toBe(404);
  }, 600_000);

  it('runs a sum constraint with the operator it was given, the API default <= included (issue 30)', async () => {
    // cement + water reaches at most 787 in the data ranges: "= 800" is infeasible, "<= 800" always holds
    const sums = [
      { name: 'binder', type: 'sum', features: ['cement', 'water'], value: 800 },
      { name: 'floor', type: 'sum', features: ['cement', 'water'], operator: '>=', value: 500 },
    ];
    const res = await call('POST', `/api/optimization/register/${datasetId}`, settings({ name: 'Sums', constraints: sums, algorithms: ['random'], n_trials: 10 }));
    expect(res.statusCode, res.body).toBe(201);
    const p0 = body(res);
    expect(p0.constraints.map((c: { operator: string }) => c.operator)).toEqual(['<=', '>=']);
    await t.app.ctx.jobs.waitFor(p0.runs[0].job_id, 600_000);
    const r = body(await call('GET', `/api/optimization/result/${p0.id}?algorithm=random`)).result;
    expect(r.constraints.map((c: { operator: string }) => c.operator)).toEqual(['<=', '>=']);
    expect(r.max_violation).toBeLessThanOrEqual(1e-9);
    for (const b of r.best) {
      const sum = b.features.cement + b.features.water;
      expect(b.constraints.binder).toBeCloseTo(sum, 6);
      expect(sum).toBeLessThan(800);
      expect(sum).toBeGreaterThanOrEqual(500 - 1e-9);
    }
    // "=" with the same total is refused as infeasible, naming the constraint, before anything is stored
    const eq = await call('POST', `/api/optimization/register/${datasetId}`, settings({ name: 'Sums =', constraints: [{ ...sums[0], operator: '=' }], algorithms: ['random'] }));
    expect(eq.statusCode).toBe(422);
    expect(eq.json().detail[0].msg).toContain('"binder"');
    expect((await call('DELETE', `/api/optimization/project/delete/${p0.id}`)).statusCode).toBe(200);
  }, 600_000);

  it('reads a feature-settings CSV and lists every SPEC §7 call in the OpenAPI document', async () => {
    const docs = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const p of ['/api/optimization/csv/upload', '/api/optimization/register/{dataset_id}', '/api/optimization/preprocess/{project_id}', '/api/optimization/evaluate/{optimizer_id}',
      '/api/optimization/projects', '/api/optimization/project/{id}', '/api/optimization/project/delete/{id}', '/api/optimization/prediction/{project_id}',
      '/api/optimization/prediction/result/{task_id}', '/api/optimization/prediction/{id}', '/api/optimization/result/{id}', '/api/optimization/projects/list', '/api/opt/feature/download/{dataset_id}']) {
      expect(docs.paths[p], p).toBeTruthy();
    }
    const csv = 'name,kind,lower,upper,values,unit\ncement,range,102,540,,kg\nage_days,discrete,,,7;28;90,day\n';
    const mp = multipart({}, { name: 'features.csv', content: csv });
    const res = await t.app.inject({ method: 'POST', url: '/api/optimization/csv/upload?data_type=training_data&training_type=regression', payload: mp.payload, headers: { ...mp.headers, ...alice.auth } });
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res).features).toEqual([
      expect.objectContaining({ name: 'cement', kind: 'range', lower: 102, upper: 540, unit: 'kg' }),
      expect.objectContaining({ name: 'age_days', kind: 'discrete', values: ['7', '28', '90'] }),
    ]);
    const bad = multipart({}, { name: 'f.csv', content: 'a,b\n1,2\n' });
    const r2 = await t.app.inject({ method: 'POST', url: '/api/optimization/csv/upload', payload: bad.payload, headers: { ...bad.headers, ...alice.auth, 'accept-language': 'ja' } });
    expect(r2.statusCode).toBe(422);
    expect(r2.json().detail[0].msg).toContain('name, kind, lower, upper');
    // a bad row is refused with its reason, in the caller's language (issue 15)
    const rowMsg = async (content: string, lang: string) => {
      const mp = multipart({}, { name: 'f.csv', content });
      const r = await t.app.inject({ method: 'POST', url: '/api/optimization/csv/upload', payload: mp.payload, headers: { ...mp.headers, ...alice.auth, 'accept-language': lang } });
      expect(r.statusCode, r.body).toBe(422);
      return r.json().detail[0].msg as string;
    };
    const word = 'name,kind,lower,upper\ncement,range,102,540\nwater,range,lots,200\n';
    expect(await rowMsg(word, 'ja')).toBe('CSVの2行目: 「lower」には数値を入力してください（「lots」）。');
    expect(await rowMsg(word, 'en')).toBe('Row 2 of the CSV: "lower" must be a number ("lots").');
    expect(await rowMsg('name,kind,lower,upper\n,range,1,2\n', 'ja')).toBe('CSVの1行目に特徴量の名前がありません。');
    expect(await rowMsg(`name,kind,lower,upper,values,unit\ncement,range,1,2,,${'u'.repeat(60)}\n`, 'ja')).toBe('CSVの1行目: 「unit」の値は使えません。');
  });
});
