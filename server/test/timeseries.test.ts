import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, SHARED_DATA, upload } from './helpers.js';
import { twoOrgs } from './two-orgs.js';

const read = (...p: string[]) => fs.readFileSync(path.join(SHARED_DATA, ...p), 'utf8');
const D01 = read('tep_braatz_subset', 'd01_te.csv');
const D00 = read('tep_braatz_subset', 'd00.csv');
const SKAB = read('skab_subset', 'valve1', '0.csv');
const TEP_SIGNALS = D01.split('\n')[0].split(',').filter((c) => c.startsWith('XM'));
const SKAB_SIGNALS = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];

/** SPEC §7 'Time series' and POST update/threshold: register, train, threshold, report, predict; bad input; tenancy. */
describe.each(DATABASES)('time-series anomaly detection on %s', (kind) => {
  const { s, call, body, viewer: newViewer } = twoOrgs(kind, { alice: 'plant', bob: 'other' }, 2);
  const ids: Record<string, string> = {};
  const msg = (res: LightMyRequestResponse) => res.json().detail[0].msg as string;

  async function trained(id: string, lang = 'en') {
    const p = body(await call('POST', `/api/timeseries/train/model/${id}`, undefined, s.alice, lang));
    await s.t.app.ctx.jobs.waitFor(p.job.id, 600_000);
    // the finished job reads back through its own route: every key of the engine's result is declared
    const job = await call('GET', `/api/jobs/${p.job.id}`, undefined, s.alice);
    expect(job.statusCode, job.body).toBe(200);
    return body(await call('GET', `/api/timseseries/project/${id}`));
  }

  beforeAll(async () => {
    const up = async (name: string, content: string, fields: Record<string, string> = {}) => {
      const res = await upload(s.t.app, s.alice.auth, { name, content }, fields);
      if (res.statusCode >= 300) throw new Error(res.body);
      return body(res).id as string;
    };
    // TEP has a sample number, not a datetime: registered as a plain table, the project orders it by `sample`
    ids.d01 = await up('d01_te.csv', D01, { type: 'unsupervised' });
    ids.d00 = await up('d00.csv', D00, { type: 'unsupervised' });
    ids.d01new = await up('d01_new.csv', D01, { data_type: 'inference_data' });
    ids.skab = await up('skab.csv', SKAB, { training_type: 'time_series_anomaly_detection_supervised', datetime_column: 'datetime' });
    const lines = D00.trim().split('\n');
    ids.dup = await up('dup.csv', [lines[0], ...lines.slice(1, 100), lines[5]].join('\n'));
    ids.words = await up('words.csv', 'sample,x,word\n' + Array.from({ length: 40 }, (_, i) => `${i},${i % 7},${i % 2 ? 'a' : 'b'}`).join('\n'));
  }, 900_000);

  const tep = { name: 'TEP fault 1', project_type: 'time_series_anomaly_detection_unsupervised', time_column: 'sample', feature_variables: TEP_SIGNALS, target_variables: ['fault'] };

  it('every SPEC §7 time-series call is in the OpenAPI document, with response schemas', async () => {
    const docs = (await s.t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const p of [
      '/api/timeseries/register/{id}', '/api/timeseries/train/model/{id}', '/api/timseseries/project/{id}', '/api/timeseries/train/result/{id}',
      '/api/timeseries/report/{id}', '/api/timeseries/prediction/{id}', '/api/timeseries/prediction/result/{id}', '/api/timeseries/model/download/{project}/{model}',
      '/api/update/threshold/{project_id}/{model_key}', '/api/timeseries/project/delete/{id}', '/api/statistics/timeseries/{dataset_id}',
    ]) expect(docs.paths[p], p).toBeTruthy();
    expect(docs.paths['/api/timseseries/project/{id}'].get.responses['200']).toBeTruthy();
  });

  it('names every detector and parameter in the caller\'s language, from the one catalogue', async () => {
    const en = body(await call('GET', '/api/timeseries/catalogue'));
    const ja = body(await call('GET', '/api/timeseries/catalogue', undefined, s.alice, 'ja'));
    expect(ja.unsupervised.map((a: { key: string }) => a.key)).toEqual(en.unsupervised.map((a: { key: string }) => a.key));
    const pca = (c: { unsupervised: { key: string; label: string; params: unknown[] }[] }) => c.unsupervised.find((a) => a.key === 'pca_mspc')!;
    expect(pca(en).label).toBe("PCA-MSPC (Hotelling's T² and Q statistic / SPE)");
    expect(pca(ja).label).toBe('PCA-MSPC（ホテリングのT²とQ統計量(SPE)）');
    expect(pca(ja).params[0]).toMatchObject({ name: 'n_components', kind: 'int', default: 0, low: 0, high: 500, label: '主成分数', help: '0: データから決めます（並行分析。下の累積寄与率を指定したときはそれで決定）' });
    expect(ja.unsupervised.find((a: { key: string }) => a.key === 'isolation_forest').label).toBe('孤立森（Isolation Forest）');
    for (const a of [...ja.unsupervised, ...ja.supervised]) {
      // every name, label and help is Japanese text (not a key, not the English copied)
      for (const s of [a.label, ...a.params.flatMap((p: { label: string; help?: string }) => [p.label, p.help ?? 'あ'])]) expect(s, a.key).toMatch(/[ぁ-んァ-ヶ一-龯]/);
      for (const p of a.params) expect(p, a.key).not.toHaveProperty('label_key');
    }
  });

  it('refuses bad input before anything is stored, in the caller\'s language', async () => {
    const before = body(await call('GET', '/api/timeseries/project/list/')).total;
    const reg = (payload: object, id = ids.d01, lang = 'en') => call('POST', `/api/timeseries/register/${id}`, payload, s.alice, lang);
    expect(msg(await reg({ ...tep, models: [] }))).toBe('At least one model must be selected');
    expect(msg(await reg({ ...tep, time_column: null, models: [{ algorithm: 'pca_mspc' }] }))).toContain('no datetime column');
    expect(msg(await reg({ ...tep, time_column: null, models: [{ algorithm: 'pca_mspc' }] }, ids.d01, 'ja'))).toContain('日時列がありません');
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'pca_mspc' }] }, ids.dup))).toMatch(/1 duplicate timestamps \(first: 5\)/);
    expect(msg(await reg({ ...tep, feature_variables: ['x', 'word'], target_variables: [], models: [{ algorithm: 'lof' }] }, ids.words))).toContain('"word" is not numeric');
    expect(msg(await reg({ ...tep, windows: [50], normal: { mode: 'rows', rows: 40 }, models: [{ algorithm: 'pca_mspc' }] }))).toContain('warm-up');
    // 31 usable rows hold back only 9 (31 x 0.3 = 9.3) to set a threshold on: 32 at least (normal.ts)
    expect(msg(await reg({ ...tep, normal: { mode: 'rows', rows: 31 }, models: [{ algorithm: 'pca_mspc' }] }))).toContain('at least 32 more');
    expect(msg(await reg({ ...tep, normal: { mode: 'rows', rows: 31 }, models: [{ algorithm: 'pca_mspc' }] }, ids.d01, 'ja'))).toContain('残り30%でしきい値を決めます');
    expect(msg(await reg({ ...tep, windows: ['5min'], models: [{ algorithm: 'pca_mspc' }] }))).toContain('time span');
    expect(msg(await reg({ ...tep, project_type: 'time_series_anomaly_detection_supervised', target_variables: ['fault'], models: [{ algorithm: 'lightgbm' }] }, ids.d00))).toContain('single class');
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'pca_mspc', params: { confidence: 2 } }] }))).toBe(
      'PCA-MSPC (Hotelling\'s T² and Q statistic / SPE): "Confidence of the control limits" must be between 0.8 and 0.9999.',
    );
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'pca_mspc', params: { confidence: 2 } }] }, ids.d01, 'ja'))).toBe(
      'PCA-MSPC（ホテリングのT²とQ統計量(SPE)）：「管理限界の信頼水準」は0.8から0.9999の範囲で指定してください。',
    );
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'isolation_forest', params: { n_estimators: 10.5 } }] }, ids.d01, 'ja'))).toBe('孤立森（Isolation Forest）：「木の本数」は整数で指定してください。');
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'lof', params: { k: 3 } }] }))).toBe('Local Outlier Factor (novelty detection): there is no hyper-parameter "k".');
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'lof', params: { alarm_k: 6, alarm_n: 5 } }] }, ids.d01, 'ja'))).toBe('局所外れ値因子法（LOF、新規データの判定）：警報ルールのk（6）はn（5）以下にしてください。');
    expect(msg(await reg({ ...tep, models: [{ algorithm: 'lightgbm' }] }))).toContain('not available');
    expect(msg(await reg({ ...tep, normal: { mode: 'rows', rows: 60 }, models: [{ algorithm: 'sequence_autoencoder' }] }))).toBe(
      "The sequence autoencoder's window of 60 rows needs at least 100 rows of normal period (it learns from the first 70 %, the rest sets its threshold); it has 60. Choose a longer period or a shorter window.",
    );
    expect(body(await call('GET', '/api/timeseries/project/list/')).total).toBe(before);
  });

  it('offers a default normal period from the label: the rows before the first anomaly, all rows when none; else the first half', async () => {
    const dflt = async (id: string, q: string, lang = 'en') => call('GET', `/api/timeseries/normal/default/${id}?${q}`, undefined, s.alice, lang);
    // d01_te: samples 1-160 normal, the fault from sample 161
    expect(body(await dflt(ids.d01, 'time_column=sample&target=fault'))).toEqual({ mode: 'rows', rows: 160, total: 960, source: 'label_before_first_anomaly', end: 160 });
    expect(body(await dflt(ids.d00, 'time_column=sample&target=fault'))).toEqual({ mode: 'rows', rows: 500, total: 500, source: 'label_all_normal', end: 500 });
    expect(body(await dflt(ids.d01, 'time_column=sample'))).toEqual({ mode: 'rows', rows: 480, total: 960, source: 'first_half', end: 480 });
    // a datetime series: the end as the text the normal range takes
    expect(body(await dflt(ids.skab, 'target=anomaly'))).toMatchObject({ source: 'label_before_first_anomaly', end: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    const bad = await dflt(ids.d01, 'time_column=sample&target=nope', 'ja');
    expect(bad.statusCode).toBe(422);
    expect((await call('GET', `/api/timeseries/normal/default/${ids.d01}?time_column=sample`, undefined, s.bob)).statusCode).toBe(404);
    // registered without a normal period: the same default is stored
    const p = body(await call('POST', `/api/timeseries/register/${ids.d01}`, { ...tep, name: 'default normal', models: [{ algorithm: 'pca_mspc' }] }));
    expect(p.normal).toEqual({ mode: 'rows', rows: 160 });
    expect((await call('DELETE', `/api/timeseries/project/delete/${p.project_id}`)).statusCode).toBeLessThan(300);
  });

  it('trains PCA-MSPC on the normal period, alarms after the fault onset, moves and saves the threshold, predicts with it', async () => {
    const p = body(
      await call('POST', `/api/timeseries/register/${ids.d01}`, {
        ...tep,
        normal: { mode: 'rows', rows: 160 },
        models: [{ algorithm: 'pca_mspc', params: { confidence: 0.99 } }, { algorithm: 'isolation_forest' }],
      }),
    );
    ids.tep = p.project_id;
    const done = await trained(p.project_id);
    expect(done.training_state).toBe('done');
    const m = done.models[0];
    expect(m).toMatchObject({ model_key: '1_pca_mspc', state: 'done', saved_threshold: null });
    // the threshold was set on the held-back last 30 % of the normal period (48 of its 160 rows), not fixed at the limit
    expect(m.trained_threshold).toBe(m.metrics.threshold);
    expect(m.metrics.recall).toBeGreaterThan(0.95);
    // the false-alarm rate shown first is on rows not fitted on, said so: the test part (samples 161-960) is all
    // faulty, so it has none to count; the held-back normal rows are. The in-sample one is apart
    expect(m.metrics.far_basis).toBe('held_back_normal');
    // cross-checked (set on one half of the held-back rows, counted on the other), so not the 0 of the rows it was set on
    expect(m.metrics.far).toBeGreaterThanOrEqual(0);
    expect(m.metrics.far).not.toBe(m.metrics.heldout_far);
    expect(m.metrics.heldout_far).toBeLessThanOrEqual(0.03);
    expect(m.metrics.train_alarm_rate).not.toBeUndefined();
    // chosen on the held-back normal rows, never on the test part
    expect(done.best_model_basis).toBe('held_back_normal');
    const heldFar = (x: { metrics: { heldout_far: number } }) => x.metrics.heldout_far;
    expect(heldFar(done.models.find((x: { model_key: string }) => x.model_key === done.best_model_key))).toBe(Math.min(...done.models.map(heldFar)));

    const at = async (q: string) => body(await call('GET', `/api/timeseries/threshold/${p.project_id}/1_pca_mspc?${q}`));
    const base = await at('');
    expect(base.threshold).toBe(m.trained_threshold);
    expect(base.heldout_rows).toBe(48);
    expect(base.heldout_far).toBeCloseTo(m.metrics.heldout_far, 9);
    expect(base.counts.tp + base.counts.fn).toBe(800); // samples 161-960 are faulty
    expect(base.counts.tp + base.counts.fp + base.counts.fn + base.counts.tn).toBe(base.evaluated_rows);
    expect(base.spans.length).toBeGreaterThan(0);
    const high = await at('threshold=1000000');
    expect(high.counts.tp).toBe(0);
    expect(high.recall).toBe(0);
    const far = await at('target_far=0.05');
    expect(far.threshold).toBeGreaterThan(0);
    expect(far.threshold).not.toBe(base.threshold);

    const series = body(await call('GET', `/api/timeseries/series/${p.project_id}/1_pca_mspc?points=100`));
    expect(series.rows).toBe(960);
    expect(series.points.length).toBe(100);
    expect(series.events).toEqual([[160, 959]]);
    const contrib = body(await call('GET', `/api/timeseries/contributions/${p.project_id}/1_pca_mspc?start=200&end=400`));
    expect(contrib.available).toBe(true);
    expect(contrib.items[0].signal).toMatch(/^XM/);
    const signals = body(await call('GET', `/api/timeseries/signals/${p.project_id}/1_pca_mspc?columns=XMEAS_1,XMV_4&points=50`));
    expect(signals.series.XMEAS_1.length).toBe(50);

    const report = body(await call('POST', `/api/timeseries/report/${p.project_id}`, { model_key: '1_pca_mspc' }));
    expect(report.report.detector.t2_limit).toBeGreaterThan(0);
    expect(report.report.alarms[0].contributions.length).toBeGreaterThan(0);
    expect(report.report.metrics.event.events_detected).toBe(1);
    // each event by its rows' time-column values (samples 161-960 are faulty; the evaluated part is the test part)
    const ev = report.report.metrics.event.per_event[0];
    expect(ev.end_time).toBe(960);
    expect(ev.start_time).toBeGreaterThanOrEqual(161);
    expect(ev.start_time).toBe(960 - (ev.end - ev.start));
    const html = await call('GET', `/api/timeseries/report/download/${p.project_id}/1_pca_mspc`);
    expect(html.body).toContain('<svg');
    // in the language of whoever downloads it: the detector, its parameters and every word in the catalogue's words
    expect(html.body).toContain('<html lang="en">');
    expect(html.body).toContain('PCA-MSPC (Hotelling&#x27;s T² and Q statistic / SPE)</h1>');
    expect(html.body).toContain('<th>Confidence of the control limits</th>');
    const htmlJa = await call('GET', `/api/timeseries/report/download/${p.project_id}/1_pca_mspc`, undefined, s.alice, 'ja');
    expect(htmlJa.body).toContain('<html lang="ja">');
    expect(htmlJa.body).toContain('PCA-MSPC（ホテリングのT²とQ統計量(SPE)）</h1>');
    expect(htmlJa.body).toContain('<th>誤警報率（FAR）</th>');
    expect(htmlJa.body).not.toContain('Threshold');
    const zip = await call('GET', `/api/timeseries/model/download/${p.project_id}/1_pca_mspc`);
    expect(zip.headers['content-type']).toBe('application/zip');

    // a saved threshold is shown and used by predictions after it
    expect((await call('POST', `/api/update/threshold/${p.project_id}/1_pca_mspc`, { threshold: 1e9 }, s.bob)).statusCode).toBe(404);
    const saved = body(await call('POST', `/api/update/threshold/${p.project_id}/1_pca_mspc`, { threshold: 1e9 }));
    expect(saved).toMatchObject({ saved_threshold: 1e9, threshold: 1e9 });
    // every figure of the report follows the threshold in force (issue 33): no alarm, no event detected at 1e9
    const atSaved = body(await call('POST', `/api/timeseries/report/${p.project_id}`, { model_key: '1_pca_mspc' })).report;
    expect([atSaved.threshold, atSaved.metrics.threshold, atSaved.metrics.alarms, atSaved.alarms.length, atSaved.metrics.event.events_detected]).toEqual([1e9, 1e9, 0, 0, 0]);
    // and so does the HTML file, written again by the engine at that threshold, in the language of the download
    const htmlSaved = (await call('GET', `/api/timeseries/report/download/${p.project_id}/1_pca_mspc`)).body;
    expect(htmlSaved).toContain('Every figure of this report is at the threshold saved after training (1e+09); training chose');
    expect(htmlSaved).toContain('<tr><th>Threshold</th><td>1000000000</td></tr>'); // a whole number in JSON
    expect(htmlSaved).toContain('<tr><th>Alarms</th><td>0</td></tr>');
    expect(htmlSaved).toContain('>threshold 1e+09</text>');
    expect(htmlSaved.split('<h2>Alarms</h2>')[1].match(/<tr>/g)).toHaveLength(1); // the header row only
    const htmlSavedJa = (await call('GET', `/api/timeseries/report/download/${p.project_id}/1_pca_mspc`, undefined, s.alice, 'ja')).body;
    expect(htmlSavedJa).toContain('学習後に保存したしきい値（1e+09）');
    const pred = body(await call('POST', `/api/timeseries/prediction/${p.project_id}`, { model_key: '1_pca_mspc', dataset_id: ids.d01new }));
    expect(pred.report_type).toBe('time-series');
    const job = await s.t.app.ctx.jobs.waitFor((await s.t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!, 600_000);
    expect(job.state).toBe('succeeded');
    const res = body(await call('GET', `/api/timeseries/prediction/result/${pred.id}`));
    expect(res.result.anomaly).toMatchObject({ threshold: 1e9, alarm_rows: 0 });
    await call('POST', `/api/update/threshold/${p.project_id}/1_pca_mspc`, { threshold: 1 });
    const pred2 = body(await call('POST', `/api/timeseries/prediction/${p.project_id}`, { model_key: '1_pca_mspc', dataset_id: ids.d01new }));
    await s.t.app.ctx.jobs.waitFor((await s.t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred2.id).executeTakeFirstOrThrow()).job_id!, 600_000);
    const r2 = body(await call('GET', `/api/timeseries/prediction/result/${pred2.id}`));
    expect(r2.result.anomaly.alarm_rows).toBeGreaterThan(700);
    const ps = body(await call('GET', `/api/timeseries/prediction/series/${pred2.id}?points=100`));
    // the first sustained alarm (5 rows or more) starts just after the fault onset at sample 161
    const sustained = ps.spans.find((s: { end: number; start: number }) => s.end - s.start >= 4);
    expect(sustained.start).toBeGreaterThanOrEqual(155);
    expect(sustained.start).toBeLessThan(180);
    expect(sustained.contributions.length).toBeGreaterThan(0);
    // zoom: the server downsamples only the window asked for, every row when it is short
    expect(ps).toMatchObject({ rows: 960, start: 0, end: 959 });
    // the predicted file holds the label column (fault, from sample 161): the test part's figures against it (issue 33)
    expect(ps.labelled).toMatchObject({ column: 'fault', rows: ps.labelled.counts.tp + ps.labelled.counts.fp + ps.labelled.counts.fn + ps.labelled.counts.tn });
    expect(ps.labelled.counts.tp + ps.labelled.counts.fn).toBe(800); // samples 161-960 are faulty
    expect(ps.labelled.recall).toBeGreaterThan(0.85);
    expect(ps.labelled.event).toMatchObject({ events: 1, events_detected: 1 });
    const zoomed = body(await call('GET', `/api/timeseries/prediction/series/${pred2.id}?start=150&end=449&points=60`));
    expect(zoomed).toMatchObject({ rows: 960, start: 150, end: 449 });
    expect(zoomed.points.length).toBe(60);
    expect(zoomed.points[0][0]).toBe(150);
    expect(zoomed.points.at(-1)[0]).toBeLessThanOrEqual(449);
    const rows = body(await call('GET', `/api/timeseries/prediction/series/${pred2.id}?start=155&end=174&points=100`));
    expect(rows.points.map((b: number[]) => b[0])).toEqual(Array.from({ length: 20 }, (_, i) => 155 + i));
    for (const b of rows.points) expect(b[1]).toBe(b[2]);
    // each point is labelled by its row's value of the time column (TEP's sample numbers, 1 at row 0)
    expect(rows).toMatchObject({ time_column: 'sample', time_kind: 'order', start_time: 156, end_time: 175 });
    expect(rows.times).toEqual(Array.from({ length: 20 }, (_, i) => 156 + i));
    expect([sustained.start_time, sustained.end_time]).toEqual([sustained.start + 1, sustained.end + 1]);
    // the widest bucket's max over rows 150-449 is the max of those rows read one by one
    const one = body(await call('GET', `/api/timeseries/prediction/series/${pred2.id}?start=150&end=449&points=1000`));
    expect(Math.max(...zoomed.points.map((b: number[]) => b[2]))).toBe(Math.max(...one.points.map((b: number[]) => b[2])));
    const end = body(await call('GET', `/api/timeseries/prediction/series/${pred2.id}?start=950&end=5000&points=100`));
    expect(end).toMatchObject({ start: 950, end: 959 });
  }, 900_000);

  it('a time series ordered by a whole-number column (no dates): registered, charted, checked and trained by rows', async () => {
    const datasets = async () => (await s.t.app.ctx.db.selectFrom('datasets').select('id').execute()).length;
    const before = await datasets();
    // a float column, or text, does not order a time series: refused in the caller's language, nothing stored
    const floatRes = await upload(s.t.app, s.alice.auth, { name: 'd00.csv', content: D00 }, { name: 'd00 float', training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'XMEAS_1' });
    expect(floatRes.statusCode).toBe(422);
    expect(msg(floatRes)).toContain('neither dates and times nor whole numbers');
    const ja = await upload(s.t.app, s.alice.auth, { name: 'd00.csv', content: D00 }, { name: 'd00 float', training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'XMEAS_1' }, { 'accept-language': 'ja' });
    expect(msg(ja)).toContain('行の順序を表す整数');
    expect(await datasets()).toBe(before);

    const res = await upload(s.t.app, s.alice.auth, { name: 'd00.csv', content: D00 }, { name: 'd00 ordered', training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'sample' });
    expect(res.statusCode).toBe(201);
    const ds = body(res);
    expect(ds.datetime_column).toBe('sample');
    const schema = await s.t.app.ctx.db.selectFrom('datasets').select('schema_json').where('id', '=', ds.id).executeTakeFirstOrThrow();
    expect(JSON.parse(schema.schema_json).find((c: { name: string }) => c.name === 'sample').type).toBe('integer');

    // the series chart uses the sample numbers as its axis, and zooms on them
    const whole = body(await call('POST', `/api/statistics/timeseries/${ds.id}`, { columns: ['XMEAS_1'], buckets: 50 }));
    expect(whole).toMatchObject({ datetime_column: 'sample', time_kind: 'order', full_start: 1, full_end: 500, window_rows: 500 });
    const win = body(await call('POST', `/api/statistics/timeseries/${ds.id}`, { columns: ['XMEAS_1'], start: 101, end: 150, buckets: 100 }));
    expect(win).toMatchObject({ start: 101, end: 150, window_rows: 50, downsampled: false });
    const d00 = D00.trim().split('\n').slice(1).map((l) => l.split(','));
    const col = D00.split('\n')[0].split(',').indexOf('XMEAS_1');
    expect(win.series[0].points).toEqual(d00.slice(100, 150).map((r) => [Number(r[0]), Number(r[col])]));

    // the project takes the order column as its time axis; windows count rows, time spans and resampling are refused
    const reg = (payload: object, id = ds.id) => call('POST', `/api/timeseries/register/${id}`, { ...tep, time_column: null, name: 'ordered', ...payload });
    expect(msg(await reg({ windows: ['5min'], models: [{ algorithm: 'pca_mspc' }] }))).toContain('time span');
    expect(msg(await reg({ resample: '1s', models: [{ algorithm: 'pca_mspc' }] }))).toMatch(/resampl/i);
    // duplicate or unsorted order numbers: duplicates refused naming the first, unsorted rows sorted and said so
    const lines = D00.trim().split('\n');
    const dupRes = await upload(s.t.app, s.alice.auth, { name: 'dup.csv', content: [lines[0], ...lines.slice(1, 100), lines[5]].join('\n') }, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'sample' });
    expect(dupRes.statusCode).toBe(201);
    expect(msg(await reg({ models: [{ algorithm: 'pca_mspc' }] }, body(dupRes).id))).toMatch(/1 duplicate timestamps \(first: 5\)/);
    const shuffled = [lines[0], ...lines.slice(1).reverse()].join('\n');
    const unsorted = body(await upload(s.t.app, s.alice.auth, { name: 'reversed.csv', content: shuffled }, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'sample' }));
    const p = body(await reg({ target_variables: [], windows: [5], normal: { mode: 'range', start: 1, end: 300 }, models: [{ algorithm: 'pca_mspc' }, { algorithm: 'sequence_autoencoder', params: { window: 20, epochs: 3, filters: 8 } }] }, unsorted.id));
    expect(p.time_column).toBe('sample');
    expect(p.notes).toContain('sorted:sample');
    // started by a Japanese reader: the engine's log lines (the rows sorted, the sizes) are in Japanese
    const done = await trained(p.project_id, 'ja');
    expect(done.models.map((m: { state: string }) => m.state)).toEqual(['done', 'done']);
    expect(done.models[1].trained_threshold).toBeGreaterThan(0);
    const job = await s.t.app.ctx.db.selectFrom('jobs').select('log').where('id', '=', done.job.id).executeTakeFirstOrThrow();
    expect(job.log).toContain('行が時刻順ではなかったため、時刻列で並べ替えました。');
    expect(job.log).toContain('500行、特徴量');
    expect(job.log).not.toContain('training rows');
    const th = body(await call('GET', `/api/timeseries/threshold/${p.project_id}/1_pca_mspc`));
    expect(th.alarms_per_day).toBeNull();
    expect(th.alarms_per_1000_rows).toBeCloseTo((th.alarms * 1000) / th.evaluated_rows, 9);
    expect(th.evaluated_rows).toBe(200); // samples 301-500 after the normal range 1-300
  }, 900_000);

  it('supervised on SKAB with its anomaly label and a time-ordered split', async () => {
    const p = body(
      await call('POST', `/api/timeseries/register/${ids.skab}`, {
        name: 'SKAB valve1',
        project_type: 'time_series_anomaly_detection_supervised',
        feature_variables: SKAB_SIGNALS,
        target_variables: ['anomaly'],
        windows: [5, '30s'],
        split_ratio: 0.75,
        models: [{ algorithm: 'lightgbm', params: { n_estimators: 100 } }, { algorithm: 'logistic' }],
      }),
    );
    expect(p.time_column).toBe('datetime');
    const done = await trained(p.project_id);
    expect(done.models.map((m: { state: string }) => m.state)).toEqual(['done', 'done']);
    const th = body(await call('GET', `/api/timeseries/threshold/${p.project_id}/1_lightgbm?threshold=0.5`));
    expect(th.labelled).toBe(true);
    expect(th.alarms_per_day).toBeGreaterThan(0);
  }, 900_000);

  it('slowly drifting signals enter as their change over L rows: refused when wrong (en and ja), else trained and shown', async () => {
    const res = await upload(s.t.app, s.alice.auth, { name: 'skab-drift.csv', content: SKAB }, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
    expect(res.statusCode, res.body).toBe(201);
    const id = body(res).id as string;
    const before = body(await call('GET', '/api/timeseries/project/list/')).total;
    const c2 = {
      name: 'SKAB drifting',
      project_type: 'time_series_anomaly_detection_unsupervised',
      feature_variables: SKAB_SIGNALS,
      target_variables: ['anomaly'],
      windows: [5],
      window_stats: ['mean'],
      drift_signals: ['Temperature', 'Thermocouple'],
      drift_rows: 45,
      normal: { mode: 'rows', rows: 400 },
      models: [{ algorithm: 'pca_mspc', params: { confidence: 0.995, alarm_k: 10, alarm_n: 20 } }],
    };
    const reg = (payload: object, lang = 'en') => call('POST', `/api/timeseries/register/${id}`, { ...c2, ...payload }, s.alice, lang);
    const signals = SKAB_SIGNALS.filter((s) => s !== 'Thermocouple');
    expect(msg(await reg({ feature_variables: signals }))).toBe(
      'The slowly drifting signal "Thermocouple" is not among the selected signals; choose it as a signal or take it out of the drifting ones.',
    );
    expect(msg(await reg({ feature_variables: signals }, 'ja'))).toBe('ゆっくりドリフトする信号「Thermocouple」が選択した信号に含まれていません。信号として選ぶか、ドリフトする信号から外してください。');
    expect(msg(await reg({ drift_rows: null }))).toContain('number of rows their change is taken over');
    expect((await reg({ drift_rows: 0 })).statusCode).toBe(422);
    // the suggestion on a long series can exceed 100,000 rows (10 M rows: 191,407): only the normal period bounds it
    expect(msg(await reg({ drift_rows: 191_407 }))).toContain('The change over 191407 rows needs a normal period longer than that');
    expect(msg(await reg({ drift_rows: 400 }, 'ja'))).toBe('400行の変化を使うには、それより長い正常期間が必要です（現在400行）。行数を減らすか、正常期間を長くしてください。');
    expect(msg(await reg({ drift_rows: 395 }))).toContain('warm-up');
    expect((await reg({ window_stats: ['median'] })).statusCode).toBe(422);
    // supervised: the training part (70 % of the rows less a fifth for validation) must outlast the warm-up
    const rows = Number(body(await call('GET', `/api/dataset/${id}/true`)).row_count);
    const sup = { project_type: 'time_series_anomaly_detection_supervised', normal: undefined, split_ratio: 0.7, models: [{ algorithm: 'random_forest' }] };
    const nTrain = Math.round(rows * 0.7);
    expect(msg(await reg({ ...sup, drift_rows: nTrain - 5 }))).toContain('The training part has');
    expect(msg(await reg({ ...sup, drift_rows: nTrain - 5 }, 'ja'))).toContain('学習部分は');
    expect(body(await call('GET', '/api/timeseries/project/list/')).total).toBe(before);

    const p = body(await reg({}));
    expect([p.drift_signals, p.drift_rows, p.window_stats, p.windows]).toEqual([['Temperature', 'Thermocouple'], 45, ['mean'], [5]]);
    const done = await trained(p.project_id);
    expect(done.models[0].state).toBe('done');
    const r = body(await call('POST', `/api/timeseries/report/${p.project_id}`, { model_key: '1_pca_mspc' })).report;
    expect(r.features_settings).toEqual({ lags: [], windows: [5], window_stats: ['mean'], drift_signals: ['Temperature', 'Thermocouple'], drift_rows: 45, warmup_rows: 45 });
    expect(r.parts.warmup).toBe(45);
    // the 355 rows of the normal period after the warm-up: 248 fitted on, the last 107 (30 %) held back
    expect([r.parts.train, r.parts.validation]).toEqual([248, 107]);
    // contributions name the signals the person chose, a drifting one by its own name
    const named = new Set(r.alarms.flatMap((a: { contributions: { signal: string }[] }) => a.contributions.map((c) => c.signal)));
    expect(named.size).toBeGreaterThan(0);
    for (const s of named) expect(SKAB_SIGNALS).toContain(s);
  }, 900_000);

  it('resamples an irregular series (duplicate timestamps averaged) when asked, and refuses a bad period', async () => {
    const lines = SKAB.trim().split(/\r?\n/);
    // every 3rd second missing and a repeated timestamp: irregular
    const irregular = [lines[0], ...lines.slice(1).filter((_, i) => i % 3 !== 2), lines[10]].join('\n');
    const res = await upload(s.t.app, s.alice.auth, { name: 'irregular.csv', content: irregular }, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
    expect(res.statusCode, res.body).toBe(201);
    const id = body(res).id as string;
    const reg = (payload: object, lang = 'en') => call('POST', `/api/timeseries/register/${id}`, { name: 'SKAB irregular', project_type: 'time_series_anomaly_detection_unsupervised', feature_variables: SKAB_SIGNALS, models: [{ algorithm: 'pca_mspc' }], ...payload }, s.alice, lang);
    expect(msg(await reg({}))).toMatch(/duplicate timestamps/);
    expect(msg(await reg({ resample: '1 fortnight' }))).toContain('not understood');
    expect(msg(await reg({ resample: '1 fortnight' }, 'ja'))).toContain('解釈できません');
    const p = body(await reg({ resample: '2s', normal: { mode: 'rows', rows: 150 } }));
    expect(p.resample).toBe('2s');
    const done = await trained(p.project_id);
    expect(done.models[0].state).toBe('done');
    const series = body(await call('GET', `/api/timeseries/series/${p.project_id}/1_pca_mspc?points=2000`));
    // one row per 2-second period that has rows (counted here from the CSV's own timestamps)
    const periods = new Set(irregular.split('\n').slice(1).map((l) => Math.floor(Date.parse(`${l.split(';')[0].replace(' ', 'T')}Z`) / 2000)));
    expect(series.rows).toBe(periods.size);
    expect(series.rows).toBeLessThan(lines.length - 1);
    const sig = body(await call('GET', `/api/timeseries/signals/${p.project_id}/1_pca_mspc?points=5000&columns=Pressure`));
    expect(sig.series.Pressure.length).toBe(series.rows);
  }, 900_000);

  it('another organisation sees nothing; viewers cannot write', async () => {
    expect((await call('GET', `/api/timseseries/project/${ids.tep}`, undefined, s.bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/timeseries/threshold/${ids.tep}/1_pca_mspc`, undefined, s.bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/timeseries/train/model/${ids.tep}`, {}, s.bob)).statusCode).toBe(404);
    // a viewer of Alice's organisation
    const viewer = await newViewer();
    expect((await call('GET', `/api/timseseries/project/${ids.tep}`, undefined, viewer)).statusCode).toBe(200);
    expect((await call('POST', `/api/update/threshold/${ids.tep}/1_pca_mspc`, { threshold: 2 }, viewer)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/timeseries/project/delete/${ids.tep}`, undefined, viewer)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/timeseries/project/delete/${ids.tep}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/timseseries/project/${ids.tep}`)).statusCode).toBe(404);
  });
});
