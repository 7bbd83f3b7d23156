import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

const read = (...p: string[]) => fs.readFileSync(path.join(SHARED_DATA, ...p), 'utf8');
const CCPP = read('uci_ccpp', 'ccpp.csv');
const STEEL = read('uci_steel_plates_faults', 'steel_plates_faults.csv');
const DEBUTANIZER = read('fortuna_soft_sensors', 'debutanizer.csv');
const STEEL_FEATURES = STEEL.split('\n')[0].split(',').slice(0, 27);

/** SPEC §7 Project / regression / soft sensor / discriminant analysis / clustering / dimensional compression and Inference. */
describe.each(DATABASES)('training and prediction on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  const ids: Record<string, string> = {};

  const call = (method: string, url: string, payload?: unknown, who = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  async function waitTrained(prefix: string, id: string) {
    const p = body(await call('GET', `/api/${prefix}/project/${id}`));
    await t.app.ctx.jobs.waitFor(p.job.id, 600_000);
    return body(await call('GET', `/api/${prefix}/project/${id}`));
  }

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 2 } });
    alice = await registerAndLogin(t.app, 'trainer');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    const up = async (name: string, content: string, fields: Record<string, string> = {}) => body(await upload(t.app, alice.auth, { name, content }, fields)).id;
    ids.ccpp = await up('ccpp.csv', CCPP);
    // inference rows: the first 300 without the target
    const lines = CCPP.trim().split('\n');
    ids.ccppNew = await up('ccpp_new.csv', [lines[0].split(',').slice(0, 4).join(','), ...lines.slice(1, 301).map((l) => l.split(',').slice(0, 4).join(','))].join('\n'), { data_type: 'inference_data' });
    ids.ccppMissing = await up('ccpp_missing.csv', [lines[0].split(',').slice(0, 3).join(','), ...lines.slice(1, 50).map((l) => l.split(',').slice(0, 3).join(','))].join('\n'), { data_type: 'inference_data' });
    ids.steel = await up('steel.csv', STEEL, { training_type: 'discriminant_analysis' });
    ids.debutanizer = await up('debutanizer.csv', DEBUTANIZER, { type: 'softsensor', training_type: 'soft_sensor' });
    ids.words = await up('words.csv', 'x,y,label,const\n' + Array.from({ length: 40 }, (_, i) => `${i},${i * 2 + (i % 3)},${i % 2 ? 'a' : 'b'},7`).join('\n') + '\n1,2,lonely,7\n');
  }, 900_000);
  afterAll(() => t?.close());

  it('lists the algorithms of each type with their defaults', async () => {
    const cat = body(await call('GET', '/api/training/catalogue'));
    const reg = cat.types.find((x: { type: unknown }) => x.type === 'regression');
    expect(reg.prefix).toBe('regress');
    expect(reg.algorithms.map((a: { key: string }) => a.key)).toEqual(
      expect.arrayContaining(['linear', 'ridge', 'lasso', 'elastic_net', 'pls', 'svr', 'knn', 'random_forest', 'extra_trees', 'lightgbm', 'gaussian_process', 'mlp']),
    );
    expect(reg.algorithms.find((a: { key: string }) => a.key === 'ridge').params[0]).toMatchObject({ name: 'alpha', default: 1, label: 'Regularisation strength (alpha)' });
    // issue 15: one catalogue of message keys, said in the reader's language (engine/mitate_engine/messages.json)
    type Spec = { key: string; label: string; params: { name: string; label: string; help?: string }[] };
    const ja = body(await call('GET', '/api/training/catalogue', undefined, alice, 'ja')) as { types: { type: string; algorithms: Spec[] }[] };
    const jaReg = ja.types.find((x) => x.type === 'regression')!.algorithms;
    expect(jaReg.find((a) => a.key === 'ridge')).toMatchObject({ label: 'リッジ回帰', params: [{ name: 'alpha', label: '正則化の強さ（alpha）' }] });
    const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
    for (const t of ja.types)
      for (const a of t.algorithms) {
        expect(a.label, a.key).toMatch(JAPANESE);
        for (const p of a.params) {
          expect(p.label, `${a.key}.${p.name}`).toMatch(JAPANESE);
          expect(p.help, `${a.key}.${p.name}`).toMatch(JAPANESE);
        }
      }
    // every SPEC §7 call of the five types is in the OpenAPI document
    const docs = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const p of [
      '/api/project/register/{dataset_id}', '/api/projects', '/api/project/{id}', '/api/train/model/{id}', '/api/train/result/{id}',
      '/api/regress/register/{id}', '/api/regress/project/{id}/config', '/api/regress/project/list/{q}', '/api/regress/report/{id}',
      '/api/regress/model/download/{project}/{name}/{index}', '/api/regress/project/delete/{id}', '/api/prediction/{project_id}', '/api/prediction/{id}',
      '/api/softsensor/train/model/{id}', '/api/dimensional/compression/prediction/{project_id}', '/api/discriminant/analysis/prediction/result/{id}',
      '/api/clustering/train/result/{id}', '/api/inference/execute/{project_id}/{key}', '/api/inference/list/{query}', '/api/inference/{id}',
      '/api/inference/download/{project_id}/{key}', '/api/inference/progress/{id}', '/api/inference/delete/{id}',
    ]) {
      expect(docs.paths[p], p).toBeTruthy();
    }
    expect(docs.paths['/api/regress/register/{id}'].post.requestBody).toBeTruthy();
  });

  it('refuses bad settings before anything is stored, with SPEC §5 texts and the column named', async () => {
    const base = { name: 'bad', target_variables: ['EP'], feature_variables: ['AT', 'V'], models: [{ algorithm: 'ridge' }] };
    const msg = async (payload: object, id = ids.ccpp, prefix = 'regress', lang = 'en') => (await call('POST', `/api/${prefix}/register/${id}`, payload, alice, lang)).json().detail[0].msg;
    expect(await msg({ ...base, models: [] })).toBe('At least one model must be selected');
    expect(await msg({ ...base, target_variables: [] })).toBe('Please select the target variable');
    expect(await msg({ ...base, feature_variables: [] })).toBe('Please select feature variables');
    expect(await msg({ ...base, cross_validation: '1' })).toBe('Please enter default, 2 or more numbers');
    expect(await msg({ ...base, cross_validation: 'abc' })).toBe('Please enter default, 2 or more numbers');
    expect(await msg({ ...base, variance_threshold: 0.123456789 })).toContain('7 digits');
    expect(await msg({ ...base, feature_variables: ['AT', 'EP'] })).toContain('"EP"');
    expect(await msg({ ...base, feature_variables: ['AT', 'nope'] })).toContain('"nope"');
    expect(await msg({ ...base, target_variables: ['label'], feature_variables: ['x'] }, ids.words)).toContain('"label" is not numeric');
    expect(await msg({ ...base, target_variables: ['y'], feature_variables: ['x', 'const'] }, ids.words)).toContain('"const" is constant');
    expect(await msg({ ...base, target_variables: ['label'], feature_variables: ['x'], models: [{ algorithm: 'lda' }] }, ids.words, 'discriminant/analysis')).toContain(
      '"lonely"',
    );
    expect(await msg({ ...base, models: [{ algorithm: 'ridge', params: { alpha: 'much' } }] })).toBe('Ridge regression: "Regularisation strength (alpha)" must be a number.');
    // the algorithm, the parameter and the problem in the reader's language: no English fragment in a Japanese message
    expect(await msg({ ...base, models: [{ algorithm: 'ridge', params: { alpha: 'much' } }] }, ids.ccpp, 'regress', 'ja')).toBe('リッジ回帰：「正則化の強さ（alpha）」には数値を入力してください。');
    expect(await msg({ ...base, models: [{ algorithm: 'svr', params: { kernel: 'cubic' } }] }, ids.ccpp, 'regress', 'ja')).toBe(
      'サポートベクター回帰（SVR）：「カーネル」は rbf, linear, poly, sigmoid のいずれかにしてください。',
    );
    expect(await msg({ ...base, models: [{ algorithm: 'lightgbm', params: { n_estimators: 2.5 } }] }, ids.ccpp, 'regress', 'ja')).toBe('LightGBM（勾配ブースティング）：「木の本数」には整数を入力してください。');
    expect(await msg({ ...base, target_variables: ['label'], feature_variables: ['x'] }, ids.words, 'regress', 'ja')).toContain('回帰には数値の目的変数');
    expect(await msg({ ...base, models: [{ algorithm: 'kmeans' }] })).toContain('kmeans');
    expect(await msg({ ...base, models: [] }, ids.ccpp, 'regress', 'ja')).toBe('モデルを1つ以上選択してください');
    expect(body(await call('GET', '/api/regress/project/list/*')).total).toBe(0);
  });

  it('regression: register, train (one model fails alone, with its log), poll, report, download, predict', async () => {
    const reg = await call('POST', `/api/regress/register/${ids.ccpp}`, {
      name: 'Power plant',
      target_variables: ['EP'],
      feature_variables: ['AT', 'V', 'AP', 'RH'],
      cross_validation: 3,
      auto_tune: true,
      number_of_trials: 2,
      models: [{ algorithm: 'ridge', params: { alpha: 0.5 } }, { algorithm: 'lightgbm', params: { n_estimators: 50 } }, { algorithm: 'gaussian_process' }],
    });
    expect(reg.statusCode).toBe(200);
    const p0 = body(reg);
    expect(p0.training_state).toBe('ready');
    expect(p0.models.map((m: { model_key: string }) => m.model_key)).toEqual(['1_ridge', '2_lightgbm', '3_gaussian_process']);
    expect(p0.split_ratio).toBe(0.85);
    expect(p0.number_of_trials).toBe(2);

    const startRes = await call('POST', `/api/train/model/${p0.project_id}`);
    expect(startRes.statusCode, startRes.body).toBe(200);
    const started = body(startRes);
    expect(['training']).toContain(started.training_state);
    // a second click joins the running job
    expect(body(await call('POST', `/api/train/model/${p0.project_id}`)).job.id).toBe(started.job.id);
    const p = await waitTrained('regress', p0.project_id);
    // on a failure, say why (the job's error and each model's), not only the state
    expect(p.training_state, JSON.stringify({ error: p.error, job: p.job, models: p.models.map((m: { model_key: string; state: string; error?: string; log?: string }) => [m.model_key, m.state, m.error, m.log]) })).toBe('done');
    const [ridge, lgbm, gp] = p.models;
    expect(ridge.state).toBe('done');
    expect(lgbm.state).toBe('done');
    expect(gp.state).toBe('failed');
    expect(gp.error).toContain('3,000 training rows');
    expect(gp.log).toContain('Gaussian process');
    expect(lgbm.metrics.r2).toBeGreaterThan(0.9);
    expect(ridge.metrics.rmse).toBeGreaterThan(0);
    expect(lgbm.cv.folds).toHaveLength(3);
    expect(p.best_model_key).toBe('2_lightgbm');
    const job = await t.app.ctx.jobs.get(p.job ? (await t.app.ctx.db.selectFrom('training_projects').select('organisation_id').executeTakeFirstOrThrow()).organisation_id : '', p.job.id);
    expect(job?.log).toContain('trial 2 of 2'.replace(' of ', '/'));

    const repRes = await call('POST', `/api/regress/report/${p.project_id}`, { model_key: '2_lightgbm' });
    expect(repRes.statusCode, repRes.body).toBe(200);
    const rep = body(repRes).report;
    expect(rep.metrics.r2).toBeCloseTo(lgbm.metrics.r2, 10);
    expect(rep.charts.predicted_vs_actual.actual.length).toBe(rep.test_rows);
    expect(rep.test_rows).toBe(Math.round(9568 * 0.15));
    expect(rep.permutation_importance.map((r: { feature: string }) => r.feature)).toEqual(expect.arrayContaining(['AT', 'V', 'AP', 'RH']));
    expect(rep.permutation_importance[0].feature).toBe('AT');
    expect(rep.shap.length).toBe(4);
    expect(rep.auto_tune.trials).toHaveLength(2);
    expect(rep.hyperparameters.n_estimators).toBeGreaterThan(0);
    const ridgeRep = body(await call('POST', `/api/regress/report/${p.project_id}`, { model_key: '1_ridge' })).report;
    expect(ridgeRep.shap).toBeNull();
    expect(ridgeRep.charts.coefficients).toHaveLength(4);
    // the report names the algorithm and its hyper-parameters in the reader's language
    expect(ridgeRep).toMatchObject({ label: 'Ridge regression', param_labels: { alpha: 'Regularisation strength (alpha)' } });
    const ridgeJa = body(await call('POST', `/api/regress/report/${p.project_id}`, { model_key: '1_ridge' }, alice, 'ja'));
    expect(ridgeJa.report).toMatchObject({ label: 'リッジ回帰', param_labels: { alpha: '正則化の強さ（alpha）' } });
    expect(ridgeJa.model).toMatchObject({ model_key: '1_ridge', label: 'リッジ回帰' });
    expect((await call('POST', `/api/regress/report/${p.project_id}`, { model_key: '3_gaussian_process' })).statusCode).toBe(409);

    const html = await call('GET', `/api/regress/report/download/${p.project_id}/2_lightgbm`);
    expect(html.headers['content-type']).toContain('text/html');
    expect(html.body).toContain('<svg');
    expect(html.body).not.toMatch(/<script|https?:\/\/(?!www\.w3)/);
    // the PDF's document, in the caller's language
    expect(html.body).toContain('<html lang="en">');
    expect(html.body).toContain('Leaderboard');
    const htmlJa = await call('GET', `/api/regress/report/download/${p.project_id}/2_lightgbm`, undefined, alice, 'ja');
    expect(htmlJa.body).toContain('<html lang="ja">');
    expect(htmlJa.body).toContain('モデルの比較');
    // drawn with the bundled face on a machine without Japanese fonts (pdf/html-font.ts)
    expect(htmlJa.body).toMatch(/<head[^>]*><style>@font-face\{font-family:"Noto Sans JP";src:url\(data:font\/woff;base64,/);
    expect((await call('GET', `/api/regress/report/download/${p.project_id}/3_gaussian_process`)).statusCode).toBe(409);
    const zip = await call('GET', `/api/regress/model/download/${p.project_id}/lightgbm/2`);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 2).toString()).toBe('PK');
    expect(zip.rawPayload.includes(Buffer.from('manifest.json'))).toBe(true);

    // another organisation sees nothing
    expect((await call('GET', `/api/regress/project/${p.project_id}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/regress/model/download/${p.project_id}/lightgbm/2`, undefined, bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/softsensor/project/${p.project_id}`)).statusCode).toBe(404);

    // prediction: a missing feature column is named before any job starts
    const bad = await call('POST', `/api/prediction/${p.project_id}`, { model_key: '2_lightgbm', dataset_id: ids.ccppMissing });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].msg).toContain('"RH"');
    expect(body(await call('GET', '/api/inference/list/*')).total).toBe(0);
    const pred = body(await call('POST', `/api/inference/execute/${p.project_id}/2_lightgbm`, { dataset_id: ids.ccppNew }));
    await t.app.ctx.jobs.waitFor((await t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!, 600_000);
    const done = body(await call('GET', `/api/prediction/${pred.id}`));
    expect(done.state).toBe('done');
    expect(done.result.rows).toBe(300);
    expect(done.report_type).toBe('regression');
    const rows = body(await call('GET', `/api/inference/${pred.id}/rows?page=1&page_size=5`));
    expect(rows.columns).toEqual(['predicted_EP', 'AT', 'V', 'AP', 'RH']);
    expect(rows.rows).toHaveLength(5);
    // the first input row of ccpp has EP 480.48: a good model is near it
    expect(Math.abs(rows.rows[0][0] - 480.48)).toBeLessThan(15);
    const csv = await call('GET', `/api/inference/download/${p.project_id}/${pred.id}`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\n')[0]).toBe('predicted_EP,AT,V,AP,RH');
    expect(csv.body.trim().split('\n')).toHaveLength(301);
    expect(body(await call('GET', `/api/inference/progress/${pred.id}`)).state).toBe('done');
    expect((await call('GET', `/api/inference/${pred.id}`, undefined, bob)).statusCode).toBe(404);
    expect(body(await call('DELETE', `/api/inference/delete/${pred.id}`)).id).toBe(pred.id);
    expect((await call('GET', `/api/inference/${pred.id}`)).statusCode).toBe(404);

    // rename, list, delete
    expect(body(await call('PUT', `/api/project/${p.project_id}`, { name: 'Power plant v2' })).name).toBe('Power plant v2');
    expect(body(await call('GET', '/api/project/list/?query=v2')).total).toBe(1);
    expect(body(await call('GET', '/api/projects')).length).toBe(1);
    expect(body(await call('DELETE', `/api/regress/project/delete/${p.project_id}`)).id).toBe(p.project_id);
    expect((await call('GET', `/api/project/${p.project_id}`)).statusCode).toBe(404);
  }, 900_000);

  it('a run whose data turns bad fails every model with the reason; training again recovers', async () => {
    const p = body(
      await call('POST', `/api/regress/register/${ids.words}`, { name: 'words', target_variables: ['y'], feature_variables: ['x'], models: [{ algorithm: 'linear' }] }),
    );
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', ids.words).executeTakeFirstOrThrow();
    const file = path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', ids.words, 'data.parquet');
    const saved = fs.readFileSync(file);
    fs.writeFileSync(file, 'not parquet');
    await call('POST', `/api/train/model/${p.project_id}`);
    const failed = await waitTrained('regress', p.project_id);
    expect(failed.training_state).toBe('failed');
    expect(failed.models[0].state).toBe('failed');
    expect(failed.models[0].log).toBeTruthy();
    fs.writeFileSync(file, saved);
    await call('POST', `/api/train/model/${p.project_id}`);
    const ok = await waitTrained('regress', p.project_id);
    expect(ok.training_state).toBe('done');
    expect(ok.models[0].metrics.r2).toBeGreaterThan(0.9);
  }, 900_000);

  it('discriminant analysis: classes, confusion matrix, ROC, probabilities', async () => {
    const p = body(
      await call('POST', `/api/discriminant/analysis/register/${ids.steel}`, {
        name: 'Steel faults',
        target_variables: ['Fault'],
        feature_variables: STEEL_FEATURES,
        balance_data: true,
        models: [{ algorithm: 'lda' }, { algorithm: 'random_forest', params: { n_estimators: 40 } }],
      }),
    );
    await call('POST', `/api/discriminant/analysis/train/model/${p.project_id}`);
    const done = await waitTrained('discriminant/analysis', p.project_id);
    expect(done.models.map((m: { state: string }) => m.state)).toEqual(['done', 'done']);
    const rf = done.models[1];
    expect(rf.metrics.accuracy).toBeGreaterThan(0.65);
    const rep = body(await call('POST', `/api/discriminant/analysis/report/${p.project_id}`, { model_key: rf.model_key })).report;
    expect(rep.charts.confusion_matrix.labels).toHaveLength(7);
    expect(rep.charts.confusion_matrix.matrix.flat().reduce((a: number, b: number) => a + b, 0)).toBe(rep.test_rows);
    expect(rep.charts.roc).toHaveLength(7);
    expect(rep.shap).not.toBeNull();
    const pred = body(await call('POST', `/api/discriminant/analysis/prediction/${p.project_id}`, { model_key: rf.model_key, dataset_id: ids.steel }));
    const jobId = (await t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!;
    await t.app.ctx.jobs.waitFor(jobId, 600_000);
    const res = body(await call('GET', `/api/discriminant/analysis/prediction/result/${pred.id}`));
    expect(res.state).toBe('done');
    expect(Object.values(res.result.counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(1941);
    const rows = body(await call('GET', `/api/inference/${pred.id}/rows?page_size=2`));
    expect(rows.columns.slice(0, 8)).toEqual(['predicted_Fault', ...rep.charts.confusion_matrix.labels.map((c: string) => `probability_${c}`)]);
  }, 900_000);

  it('soft sensor: lags and moving windows, time-ordered split, actual and predicted over time', async () => {
    const p = body(
      await call('POST', `/api/softsensor/register/${ids.debutanizer}`, {
        name: 'Debutanizer',
        target_variables: ['y'],
        feature_variables: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'],
        lags: [1, 2],
        windows: [5],
        cross_validation: 3,
        models: [{ algorithm: 'pls', params: { n_components: 5 } }, { algorithm: 'lightgbm', params: { n_estimators: 60 } }],
      }),
    );
    expect(p.lags).toEqual([1, 2]);
    await call('POST', `/api/softsensor/train/model/${p.project_id}`);
    const done = await waitTrained('softsensor', p.project_id);
    expect(done.models.every((m: { state: string }) => m.state === 'done')).toBe(true);
    const rep = body(await call('POST', `/api/softsensor/report/${p.project_id}`, { model_key: done.models[1].model_key })).report;
    const ts = rep.charts.time_series;
    // time order: training rows come strictly before test rows (no datetime column: row order)
    expect(Math.max(...ts.train.time)).toBeLessThan(Math.min(...ts.test.time));
    expect(rep.permutation_importance.map((r: { feature: string }) => r.feature)).toContain('u1_lag1');
    expect(rep.train_rows + rep.test_rows).toBe(2394 - 4);
  }, 900_000);

  it('clustering and dimensional compression: metrics, maps, assignment of new rows', async () => {
    const c = body(
      await call('POST', `/api/clustering/register/${ids.steel}`, {
        name: 'Steel clusters',
        feature_variables: STEEL_FEATURES,
        models: [{ algorithm: 'kmeans', params: { n_clusters: 4 } }, { algorithm: 'hierarchical', params: { n_clusters: 4 } }],
      }),
    );
    await call('POST', `/api/clustering/train/model/${c.project_id}`);
    const cd = await waitTrained('clustering', c.project_id);
    expect(cd.models.map((m: { state: string }) => m.state)).toEqual(['done', 'done']);
    expect(cd.models[0].metrics.n_clusters).toBe(4);
    const rep = body(await call('POST', `/api/clustering/report/${c.project_id}`, { model_key: cd.models[0].model_key })).report;
    expect(rep.metrics.silhouette).toBeGreaterThan(0);
    expect(Object.values(rep.metrics.cluster_sizes as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(1941);
    expect(rep.charts.elbow.k[0]).toBe(2);
    const hrep = body(await call('POST', `/api/clustering/report/${c.project_id}`, { model_key: cd.models[1].model_key })).report;
    expect(hrep.charts.dendrogram.icoord.length).toBeGreaterThan(0);
    const pred = body(await call('POST', `/api/clustering/prediction/${c.project_id}`, { model_key: cd.models[1].model_key, dataset_id: ids.steel }));
    const jobId = (await t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!;
    await t.app.ctx.jobs.waitFor(jobId, 600_000);
    const res = body(await call('GET', `/api/clustering/prediction/result/${pred.id}`));
    // the training rows themselves are assigned to the clusters they formed
    expect(res.result.counts).toEqual(hrep.metrics.cluster_sizes);

    const d = body(
      await call('POST', `/api/dimensional/compression/register/${ids.steel}`, {
        name: 'Steel map',
        target_variables: ['Fault'],
        feature_variables: STEEL_FEATURES,
        models: [{ algorithm: 'pca', params: { n_components: 3 } }],
      }),
    );
    await call('POST', `/api/dimensional/compression/train/model/${d.project_id}`);
    const dd = await waitTrained('dimensional/compression', d.project_id);
    expect(dd.models[0].state).toBe('done');
    const drep = body(await call('POST', `/api/dimensional/compression/report/${d.project_id}`, { model_key: dd.models[0].model_key })).report;
    expect(drep.metrics.explained_variance_ratio).toHaveLength(3);
    expect(drep.charts.loadings.components).toHaveLength(3);
    expect(drep.charts.map.color.length).toBe(drep.charts.map.x.length);
  }, 900_000);
});
