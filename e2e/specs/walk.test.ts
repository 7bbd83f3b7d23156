import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import yazl from 'yazl';
import { launchBrowser, type RunningServer, SHARED_DATA, startServer } from '../support/server.ts';
import { apiJson, BLANK_INSTALLATION, pageIn, signIn, signUp, trainRegression, uploadDataset } from '../support/session.ts';
import { checkPage, firstDoneModel, goInApp, predictionDone, settle, until, watch } from '../support/walk.ts';

/**
 * Issue 33: a newcomer's walk through every page of SPEC §2, in English and then in Japanese, on a fresh installation
 * with nothing configured (as first-hour.test.ts). The data each page needs is made through the API first (small
 * tables, the cheapest models); each page must show its heading and settle with no failed call, no page error, no
 * 'undefined', no raw i18n key and, in Japanese, no English UI word. Screenshots of every page with E2E_SCREENSHOTS.
 */
const SHOTS = process.env.E2E_SCREENSHOTS;
const csvHead = (file: string, rows: number) => fs.readFileSync(path.join(SHARED_DATA, file), 'utf8').trim().split('\n').slice(0, rows + 1).join('\n') + '\n';

let server: RunningServer;
let browser: Browser;
let who: { email: string; token: string };
const ids: Record<string, string> = {};

/** The magnetic tiles, a few of each class, as the platform's image upload (a ZIP with one folder per class). */
function tilesZip(perClass: number): Promise<Buffer> {
  const z = new yazl.ZipFile();
  const dir = path.join(SHARED_DATA, 'magnetic_tile_okng');
  for (const cls of ['OK', 'NG']) for (const f of fs.readdirSync(path.join(dir, cls)).sort().slice(0, perClass)) z.addFile(path.join(dir, cls, f), `${cls}/${f}`);
  z.end();
  const parts: Buffer[] = [];
  return new Promise((resolve, reject) => z.outputStream.on('data', (d: Buffer) => parts.push(d)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject));
}

/** Everything the pages show, made through the API: datasets, one small project of each type trained with its
 * cheapest model, a prediction of each, an optimisation, a design and a paired t-test. Jobs run side by side. */
async function setUp() {
  const api = (method: string, url: string, body?: unknown) => apiJson(server, method, url, who.token, body);
  const up = (name: string, file: string, body: BlobPart, fields: Record<string, string> = {}) => uploadDataset(server, who.token, name, file, body, fields);
  const concrete = csvHead('uci_concrete/concrete_data.csv', 240);
  const cols = concrete.split('\n')[0].split(',');
  const features = cols.slice(0, -1);
  const newMixes = concrete.split('\n').slice(1, 21).map((l) => l.split(',').slice(0, -1).join(','));
  const steel = csvHead('uci_steel_plates_faults/steel_plates_faults.csv', 400);
  const steelFeatures = steel.split('\n')[0].split(',').slice(0, 8);
  const series = { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'datetime' };
  const zip = await tilesZip(20);
  // the uploads side by side
  const uploads: [string, Promise<string>][] = [
    ['concrete', up('Concrete', 'concrete.csv', concrete)],
    ['mixes', up('New mixes', 'mixes.csv', `${features.join(',')}\n${newMixes.join('\n')}\n`, { data_type: 'inference_data' })],
    ['steel', up('Steel plates', 'steel.csv', steel, { training_type: 'discriminant_analysis' })],
    ['debutanizer', up('Debutanizer', 'debutanizer.csv', csvHead('fortuna_soft_sensors/debutanizer.csv', 500), { type: 'softsensor', training_type: 'soft_sensor' })],
    ['valve', up('Valve 1', 'valve1_0.csv', fs.readFileSync(path.join(SHARED_DATA, 'skab_subset/valve1/0.csv')), series)],
    ['valveNew', up('Valve 1 again', 'valve1_1.csv', fs.readFileSync(path.join(SHARED_DATA, 'skab_subset/valve1/1.csv')), { ...series, data_type: 'inference_data' })],
    ['sleep', up('Sleep', 'sleep.csv', fs.readFileSync(path.join(SHARED_DATA, 'ttest_student_sleep/sleep.csv')), { training_type: 'statistical_analysis' })],
    ['tiles', up('Tiles', 'tiles.zip', new Uint8Array(zip), { training_type: 'analysis' })],
    ['tileClasses', up('Tile classes', 'tile_classes.zip', new Uint8Array(zip), { training_type: 'classification' })],
  ];
  for (const [key, id] of uploads) ids[key] = await id;

  const signals = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];
  const tiny = { image_size: 48, epochs: 2, batch_size: 16 };
  // a prediction of each tabular type and of the detector, an optimisation, a mixture design, a paired t-test: each
  // starts as soon as what it needs is there (a prediction right after its model), so the two workers stay busy
  const predict = async (url: string, model_key: string, dataset_id: string) => {
    const p = await api('POST', url, { model_key, dataset_id });
    await predictionDone(server, who.token, p.id);
    return p.id as string;
  };
  const ranges = features.map((name) => {
    const v = concrete.trim().split('\n').slice(1).map((l) => Number(l.split(',')[cols.indexOf(name)]));
    return { name, kind: 'range', lower: Math.min(...v), upper: Math.max(...v) };
  });
  const design = new FormData();
  const mixture = ['polyethylene', 'polystyrene', 'polypropylene'].map((name) => ({ name, type: 'mixture', low: 0, high: 1 }));
  design.append('settings', JSON.stringify({ name: 'Yarn blend', variables: mixture, mixture_total: 1, model: { kind: 'scheffe_quadratic' }, responses: ['elongation'], algorithm: 'simplex_lattice', parameters: { degree: 2 } }));
  /** A tabular project of `kind` trained with one model, then (when `predictOn` is given) a prediction of it. */
  const tabular = async (kind: string, body: Record<string, unknown>, datasetId: string, predictOn?: string) => {
    const p = await api('POST', `/api/${kind}/register/${datasetId}`, body);
    await api('POST', `/api/${kind}/train/model/${p.project_id}`);
    const key = await firstDoneModel(server, who.token, `/api/${kind}/project/${p.project_id}`);
    const prediction = predictOn ? await predict(`/api/${kind}/prediction/${p.project_id}`, key, predictOn) : '';
    return { pid: p.project_id as string, key, prediction };
  };
  const image = async (project_type: string, datasetId: string, name: string) => {
    const p = await api('POST', `/api/project/register/${datasetId}`, { project_type, name, settings: tiny, models: [{ algorithm: 'compact_cnn', params: { width: 8 } }] });
    await api('POST', `/api/train/${p.project_id}`, {});
    return { pid: p.project_id as string, key: await firstDoneModel(server, who.token, `/api/image/train/result/${p.project_id}`) };
  };
  const [reg, soft, da, cl, dc, ts, img, imgc, od, sa] = await Promise.all([
    (async () => {
      const { pid, modelKey } = await trainRegression(server, who.token, ids.concrete, { name: 'Concrete strength', target_variables: [cols.at(-1)], feature_variables: features, cross_validation: 2, models: [{ algorithm: 'linear' }] });
      const [prediction, opt] = await Promise.all([
        predict(`/api/prediction/${pid}`, modelKey, ids.mixes),
        (async () => {
          // the settings are checked by the engine at once: while both workers are busy it answers 503 and asks to
          // try again in a moment, which is what happens here
          const settings = { name: 'Strong concrete', models: [{ project_id: pid, model_key: modelKey }], targets: [{ name: cols.at(-1), goal: 'maximize' }], features: ranges, algorithms: ['random'], n_trials: 10, seed: 1 };
          const p = await until('the optimisation registered', async () => {
            const res = await fetch(`${server.url}/api/optimization/register/${ids.concrete}`, { method: 'POST', headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
            if (res.status === 503) return false;
            assert.ok(res.ok, `the optimisation: ${res.status} ${await res.clone().text()}`);
            return (await res.json()).detail.response as { id: string };
          });
          await until('the optimisation', async () => (await api('GET', `/api/optimization/project/${p.id}`)).state === 'done');
          return p.id as string;
        })(),
      ]);
      return { pid, key: modelKey, prediction, opt };
    })(),
    tabular('softsensor', { name: 'Butane content', target_variables: ['y'], feature_variables: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'], lags: [1], cross_validation: 2, models: [{ algorithm: 'pls', params: { n_components: 3 } }] }, ids.debutanizer, ids.debutanizer),
    tabular('discriminant/analysis', { name: 'Steel faults', target_variables: ['Fault'], feature_variables: steelFeatures, models: [{ algorithm: 'lda' }] }, ids.steel, ids.steel),
    tabular('clustering', { name: 'Steel clusters', feature_variables: steelFeatures, models: [{ algorithm: 'kmeans', params: { n_clusters: 3 } }] }, ids.steel, ids.steel),
    tabular('dimensional/compression', { name: 'Steel map', target_variables: ['Fault'], feature_variables: steelFeatures, models: [{ algorithm: 'pca', params: { n_components: 2 } }] }, ids.steel),
    (async () => {
      const p = await api('POST', `/api/timeseries/register/${ids.valve}`, { name: 'Valve 1', project_type: 'time_series_anomaly_detection_unsupervised', time_column: 'datetime', feature_variables: signals, target_variables: ['anomaly'], normal: { mode: 'rows', rows: 400 }, models: [{ algorithm: 'pca_mspc' }] });
      await api('POST', `/api/timeseries/train/model/${p.project_id}`);
      const key = await firstDoneModel(server, who.token, `/api/timeseries/train/result/${p.project_id}`);
      return { pid: p.project_id as string, key, prediction: await predict(`/api/timeseries/prediction/${p.project_id}`, key, ids.valveNew) };
    })(),
    image('analysis', ids.tiles, 'Tiles'),
    image('classification', ids.tileClasses, 'Tile classes'),
    (async () => {
      const res = await fetch(`${server.url}/api/optimal/register`, { method: 'POST', headers: { authorization: `Bearer ${who.token}` }, body: design });
      assert.equal(res.status, 201, await res.clone().text());
      const p = (await res.json()).detail.response;
      await until('the design', async () => (await api('GET', `/api/optimal/project/${p.id}`)).state === 'done');
      return p.id as string;
    })(),
    (async () => {
      const p = await api('POST', `/api/statistical/analysis/register/${ids.sleep}`, { name: 'Sleep, paired', test_type: 'paired_t', variable1: 'extra', variable2: 'ID', category: 'group', group1: '1', group2: '2' });
      await until('the t-test', async () => (await api('GET', `/api/statistical/analysis/project/${p.id}`)).state === 'done');
      return p.id as string;
    })(),
  ]);
  Object.assign(ids, { reg: reg.pid, regKey: reg.key, soft: soft.pid, softKey: soft.key, da: da.pid, daKey: da.key, cl: cl.pid, clKey: cl.key, dc: dc.pid, dcKey: dc.key });
  Object.assign(ids, { ts: ts.pid, tsKey: ts.key, img: img.pid, imgKey: img.key, imgc: imgc.pid, imgcKey: imgc.key });
  Object.assign(ids, { pReg: reg.prediction, pSoft: soft.prediction, pDa: da.prediction, pCl: cl.prediction, pTs: ts.prediction, opt: reg.opt, od, sa });
  ids.me = (await api('GET', '/account/api/members')).items[0].id;
}

/** What some pages must say besides passing the common checks, in English and Japanese (issue 33's items). */
const SAYS: Record<string, [RegExp, RegExp]> = {
  // the default number of folds in words, not the raw 'default'
  'details-discriminant': [/default \(5\)/, /既定（5）/],
  // a finished run's time under Progress says it finished; the rate is over the search time, which is shown
  'optimization-details': [/Finished in [\d.]+ s/, /[\d.]+ 秒で完了/],
  'optimization-result': [/s \(search [\d.]+ s\)/, /秒（探索 [\d.]+ 秒）/],
  // a detector is offered at the threshold in force, by its name and translated metric labels
  'prediction-from-detector': [/PCA-MSPC .*FAR [\d.]+ % · Threshold [\d.]+/, /PCA-MSPC.*しきい値 [\d.]+/],
  // the paired test's advice is the signed-rank test, not Mann–Whitney U (which is for independent samples)
  'statistics-details': [/Wilcoxon signed-rank test \(paired\)/, /ウィルコクソンの符号付き順位検定（対応あり）/],
  // design efficiencies relative to the best design found: the {3,2} lattice is D-optimal for its model
  'optimal-design-round': [/D-efficiency \(vs best design found\)\s+100\.00%/, /D効率（見つかった最良の計画比）\s+100\.00%/],
};

/** Every page of SPEC §2 with the data made above (signed-in pages; the signed-out ones are walked apart). */
function pages(): [string, string][] {
  const i = ids;
  return [
    ['dataset', '/dataset'],
    ['dataset-register', '/dataset/register'],
    ['dataset-details', `/dataset/details/${i.concrete}/training_data`],
    ['dataset-columns', `/dataset/details/${i.concrete}/training_data?tab=columns`],
    ['dataset-statistics', `/dataset/details/${i.concrete}/training_data?tab=statistics`],
    ['dataset-details-images', `/dataset/details/${i.tiles}/training_data`],
    ['dataset-details-series', `/dataset/details/${i.valve}/training_data`],
    ['visualization', '/visualization'],
    ['visualization-details', `/visualization/details/${i.concrete}`],
    ['preprocessing', '/pre-processing'],
    ['preprocessing-details', `/pre-processing/details/${i.concrete}`],
    ['training', '/training'],
    ['register-analysis', `/training/analysis/register/${i.tiles}`],
    ['register-classification', `/training/classification/register/${i.tileClasses}`],
    ['register-regression', `/training/regression/register/${i.concrete}`],
    ['register-ts-supervised', `/training/time_series_anomaly_detection_supervised/register/${i.valve}`],
    ['register-ts-unsupervised', `/training/time_series_anomaly_detection_unsupervised/register/${i.valve}`],
    ['register-soft-sensor', `/training/soft_sensor/register/${i.debutanizer}`],
    ['register-dimensional-compression', `/training/dimensional_compression/register/${i.steel}`],
    ['register-discriminant', `/training/discriminant_analysis/register/${i.steel}`],
    ['register-clustering', `/training/clustering/register/${i.steel}`],
    ['details-image', `/training/details/${i.img}`],
    ['details-regression', `/training/regress/details/${i.reg}`],
    ['details-soft-sensor', `/training/soft-sensor/details/${i.soft}`],
    ['details-time-series', `/training/time-series/details/${i.ts}`],
    ['details-dimensional-compression', `/training/dimensional-compression/details/${i.dc}`],
    ['details-discriminant', `/training/discriminant-analysis/details/${i.da}`],
    ['details-clustering', `/training/clustering/details/${i.cl}`],
    ['threshold-image', `/training/result/threshold/${i.img}/${i.imgKey}`],
    ['threshold-time-series', `/training/result/threshold/${i.ts}/${i.tsKey}`],
    ['result-analysis', `/training/result/analysis/details/${i.img}/${i.imgKey}`],
    ['result-classification', `/training/result/classification/details/${i.imgc}/${i.imgcKey}`],
    ['report-image', `/training/result/report/${i.img}/${i.imgKey}`],
    ['report-regression', `/training/regress/result/report/${i.reg}/${i.regKey}`],
    ['result-regression', `/training/regression/result/${i.reg}`],
    ['result-time-series', `/training/time-series/result/${i.ts}`],
    ['report-time-series', `/training/time-series/report/${i.ts}/${i.tsKey}`],
    ['report-soft-sensor', `/training/soft-sensor/report/${i.soft}/${i.softKey}`],
    ['result-dimensional-compression', `/training/dimensional_compression/result/${i.dc}`],
    ['report-dimensional-compression', `/training/dimensional-compression/report/${i.dc}/${i.dcKey}`],
    ['result-discriminant', `/training/discriminant-analysis/result/${i.da}`],
    ['report-discriminant', `/training/discriminant-analysis/report/${i.da}/${i.daKey}`],
    ['report-clustering', `/training/clustering/report/${i.cl}/${i.clKey}`],
    ['classification-images', `/training/classification/images?project_id=${i.imgc}&model_key=${i.imgcKey}`],
    ['classification-class', `/training/classification/class?project_id=${i.imgc}&model_key=${i.imgcKey}`],
    ['optimization-from-model', `/training/optimization/register/${i.reg}/${i.regKey}`],
    ['prediction-from-model', `/training/prediction/register/${i.reg}/${i.regKey}`],
    ['prediction-from-detector', `/training/prediction/register/${i.ts}/${i.tsKey}`],
    ['prediction', '/prediction'],
    ['prediction-register', `/prediction/register/${i.da}/discriminant_analysis`],
    ['prediction-report-soft-sensor', `/prediction/report/soft-sensor/${i.pSoft}`],
    ['prediction-report-regression', `/prediction/regression/report/${i.pReg}`],
    ['prediction-report-time-series', `/prediction/time-series/report/${i.pTs}`],
    ['prediction-report-discriminant', `/prediction/discriminant-analysis/report/${i.pDa}`],
    ['prediction-report-clustering', `/prediction/clustering/report/${i.pCl}`],
    ['optimization', '/optimization'],
    ['optimization-register', '/optimization/regress/register'],
    ['optimization-details', `/optimization/regress/details/${i.opt}`],
    ['optimization-result', `/optimization/regress/result/${i.opt}/random`],
    ['optimization-visualization', `/optimization/regress/visualization/${i.opt}/random`],
    ['optimal-design', '/optimal-design'],
    ['optimal-design-register', '/optimal-design/register'],
    ['optimal-design-details', `/optimal-design/details/${i.od}`],
    ['optimal-design-round', `/optimal-design/details/${i.od}/1`],
    ['statistics', '/statistical-analysis'],
    ['statistics-register', `/statistical-analysis/register/${i.sleep}`],
    ['statistics-details', `/statistical-analysis/details/${i.sa}`],
    ['users', '/users'],
    ['user', `/users/${i.me}`],
    ['profile', '/profile'],
    ['audit', '/audit'],
    ['platform', '/platform'],
    ['invoices', '/invoices'],
    ['wallet', '/wallet'],
    ['admin-settings', '/admin/settings'],
    ['admin-identity', '/admin/identity'],
    ['admin-platform', '/admin/platform'],
    ['admin-billing', '/admin/billing'],
    ['admin-operations', '/admin/operations'],
    ['not-found', '/no/such/page'],
  ];
}

before(async () => {
  server = await startServer({ ...BLANK_INSTALLATION, MITATE_WORKERS: '2', MITATE_TORCH_THREADS: '1' });
  browser = await launchBrowser();
  who = await signUp(server, { prefix: 'newcomer', first_name: 'Nao', last_name: 'Newcomer', organisation_name: 'First Light' });
  await setUp();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

for (const lang of ['en', 'ja'] as const) {
  test(`a newcomer walks every page of SPEC §2 in ${lang === 'en' ? 'English' : 'Japanese'}`, async () => {
    const page = await pageIn(browser, server, lang);
    const seen = watch(page);
    const shot = async (name: string) => {
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `walk-${lang}-${name}.png`), fullPage: true });
    };
    // signed out: sign-in, registration and forgotten password
    const wrong: string[] = [];
    const visit = async (name: string, url: string, says?: RegExp, inApp = false) => {
      if (inApp) await goInApp(page, url);
      else await page.goto(`${server.url}${url}`);
      await settle(page);
      for (const w of await checkPage(page, lang, seen.take())) wrong.push(`${url}: ${w}`);
      if (says && !says.test(await page.locator('body').innerText())) wrong.push(`${url}: does not say ${says}`);
      if (!/ \| Mitate$/.test(await page.title())) wrong.push(`${url}: page title "${await page.title()}"`);
      await shot(name);
    };
    for (const [name, url] of [['login', '/login'], ['register', '/register'], ['forgot-password', '/forgot-password']]) await visit(name, url);
    await signIn(page, server, who.email, lang);
    // Every other page is loaded afresh (a link opened in a new tab) and the rest are reached inside the app, as
    // someone clicking through it would; the other language swaps them, so each page is seen both ways.
    let n = 0;
    for (const [name, url] of pages()) {
      const inApp = name !== 'not-found' && n % 2 === (lang === 'en' ? 1 : 0);
      await visit(`${String(++n).padStart(2, '0')}-${name}`, url, SAYS[name]?.[lang === 'en' ? 0 : 1], inApp);
    }
    // every page is looked at before the walk fails, so one run says all that is wrong
    assert.deepEqual(wrong, []);
  });
}
