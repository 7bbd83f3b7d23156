import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_REFUSALS } from '../src/features/platform/schemas.js';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8').replace(/\r\n/g, '\n').trim().split('\n');
const HEADER = SKAB[0].split(';');
const SIGNALS = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];
// the rows a client sends: 200 rows from the middle of the file (the onset of its anomaly at row 574 included), time and signals only
const PART = SKAB.slice(451, 651);
const INFERENCE = [HEADER.join(';'), ...PART].join('\n') + '\n';
const ROWS = PART.map((line) => {
  const v = line.split(';');
  return Object.fromEntries([['datetime', v[0]], ...SIGNALS.map((s) => [s, Number(v[HEADER.indexOf(s)])])]);
});
const ADMIN = `ts.admin.${crypto.randomBytes(3).toString('hex')}@example.com`;

type Answer = { time: string; status: string; anomaly_score: number | null; alarm: boolean | null; top_signal: string | null } & Record<string, unknown>;

/** Issue 31 §3: time-series detectors hosted. Each served row equals the batch prediction of the same rows (1e-9,
 * same alarm, threshold in force); a stream fed in pieces equals the whole block; the interface is described. */
describe.each(DATABASES)('hosted time-series detectors on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: { auth: Record<string, string> };
  const apis: Record<string, { id: string; key: string; secret: string; project: string; model: string }> = {};
  let inference = '';

  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const serve = (api: string, payload: unknown, lang = 'en') =>
    t.app.inject({ method: 'POST', url: `/serve/${apis[api].key}/predict`, payload: payload as object, headers: { 'x-api-key': apis[api].secret, 'accept-language': lang } });

  async function publish(name: string, project: string, model: string) {
    const key = `ts-${name}-${crypto.randomBytes(3).toString('hex')}`;
    const created = await call('POST', '/api/platform/projects', { name: `Detector ${name}`, key, project_id: project, model_key: model, content_language: 'en-gb' });
    expect(created.statusCode, created.body).toBe(201);
    const id = body(created).id as string;
    await call('POST', `/api/platform/projects/${id}/submit`);
    expect(body(await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' }, admin)).status).toBe('approved');
    expect(body(await call('POST', `/api/platform/projects/${id}/start`)).status).toBe('running');
    const secret = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'line' })).secret as string;
    apis[name] = { id, key, secret, project, model };
  }

  async function train(payload: object) {
    const p = body(await call('POST', `/api/timeseries/register/${await skabId()}`, payload));
    const started = body(await call('POST', `/api/timeseries/train/model/${p.project_id}`));
    await t.app.ctx.jobs.waitFor(started.job.id, 600_000);
    const view = body(await call('GET', `/api/timseseries/project/${p.project_id}`));
    expect(view.models.map((m: { state: string }) => m.state)).toEqual(['done']);
    return { project: p.project_id as string, model: view.models[0].model_key as string };
  }

  let skab = '';
  async function skabId() {
    if (!skab) {
      const res = await upload(t.app, alice.auth, { name: 'skab.csv', content: SKAB.join('\n') + '\n' }, { training_type: 'time_series_anomaly_detection_supervised', datetime_column: 'datetime' });
      expect(res.statusCode, res.body).toBe(201);
      skab = body(res).id;
    }
    return skab;
  }

  /** The batch prediction (the prediction job) of the inference rows: one object per row, in the file's order. */
  async function batch(api: string): Promise<Record<string, unknown>[]> {
    const { project, model } = apis[api];
    const pred = body(await call('POST', `/api/timeseries/prediction/${project}`, { model_key: model, dataset_id: inference }));
    const job = await t.app.ctx.jobs.waitFor((await t.app.ctx.db.selectFrom('predictions').select('job_id').where('id', '=', pred.id).executeTakeFirstOrThrow()).job_id!, 600_000);
    expect(job.state).toBe('succeeded');
    const page = body(await call('GET', `/api/inference/${pred.id}/rows?page_size=1000`));
    return page.rows.map((r: unknown[]) => Object.fromEntries(page.columns.map((c: string, i: number) => [c, r[i]])));
  }

  function sameAsBatch(got: Answer[], want: Record<string, unknown>[], threshold: number) {
    expect(got).toHaveLength(want.length);
    let scored = 0;
    got.forEach((g, i) => {
      const w = want[i];
      expect(g.time).toBe(ROWS[i].datetime);
      if (w.anomaly_score === null) {
        expect([g.status, g.anomaly_score, g.alarm]).toEqual(['warming_up', null, null]);
        return;
      }
      scored++;
      expect(Math.abs((g.anomaly_score as number) - (w.anomaly_score as number)), `row ${i}`).toBeLessThanOrEqual(1e-9);
      expect(g.alarm).toBe(Number(w.alarm) === 1);
      expect(g.alarm).toBe((g.anomaly_score as number) > threshold);
      expect(g.top_signal).toBe(w.top_signal);
      for (const s of SIGNALS) expect(Math.abs((g[`contribution_${s}`] as number) - (w[`contribution_${s}`] as number))).toBeLessThanOrEqual(1e-9);
    });
    expect(scored).toBeGreaterThan(150);
    expect(got.some((g) => g.alarm) && got.some((g) => g.alarm === false)).toBe(true); // both answers occur
  }

  /** The rows sent as a stream in pieces of 1, 3, 1, 7 and 2 rows. */
  async function stream(api: string, series: string): Promise<{ answers: Answer[]; kept: number[] }> {
    const answers: Answer[] = [];
    const kept: number[] = [];
    let i = 0;
    for (let k = 0; i < ROWS.length; k++) {
      const n = [1, 3, 1, 7, 2][k % 5];
      const res = await serve(api, { series, rows: ROWS.slice(i, i + n) });
      expect(res.statusCode, res.body).toBe(200);
      answers.push(...body(res).predictions);
      kept.push(body(res).time_series.kept_rows);
      i += n;
    }
    return { answers, kept };
  }

  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = ADMIN;
    t = await makeTestApp(kind, { config: { workers: 2 } });
    alice = await registerAndLogin(t.app, 'plant');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: ADMIN, password: STRONG_PASSWORD, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Platform' } });
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: ADMIN, password: STRONG_PASSWORD } });
    admin = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    const user = await t.app.ctx.db.selectFrom('users').select(['id', 'organisation_id']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db
      .insertInto('identity_verifications')
      .values({ id: crypto.randomUUID(), organisation_id: user.organisation_id, user_id: user.id, state: 'done', front_key: 'x', back_key: 'y', reason: null, submitted_at: new Date().toISOString(), reviewed_at: new Date().toISOString(), reviewed_by: null })
      .execute();
    const up = await upload(t.app, alice.auth, { name: 'skab-new.csv', content: INFERENCE }, { data_type: 'inference_data', datetime_column: 'datetime' });
    expect(up.statusCode, up.body).toBe(201);
    inference = body(up).id;
    const common = { feature_variables: SIGNALS, lags: [2], windows: [5, '20s'] };
    const u = await train({ ...common, name: 'SKAB unsupervised', project_type: 'time_series_anomaly_detection_unsupervised', target_variables: [], normal: { mode: 'rows', rows: 400 }, models: [{ algorithm: 'pca_mspc', params: { alarm_k: 2, alarm_n: 4 } }] });
    const s = await train({ ...common, name: 'SKAB supervised', project_type: 'time_series_anomaly_detection_supervised', target_variables: ['anomaly'], split_ratio: 0.7, models: [{ algorithm: 'lightgbm', params: { n_estimators: 40 } }] });
    await publish('unsup', u.project, u.model);
    await publish('sup', s.project, s.model);
  }, 900_000);
  afterAll(async () => {
    delete process.env.MITATE_PLATFORM_ADMINS;
    await t?.close();
  });

  it('describes the interface: time column, history rows, alarm rule, threshold in force, outputs, an example that works', async () => {
    // the project lists the time column among the inputs
    expect(body(await call('GET', `/api/platform/projects/${apis.unsup.id}`)).features).toEqual(['datetime', ...SIGNALS]);
    const d = body(await call('GET', `/api/platform/projects/${apis.unsup.id}/time-series`));
    expect(d).toMatchObject({ time_column: 'datetime', time_type: 'datetime', warmup_rows: 4, detector_rows: 3, history_rows: 7, span: '20s', alarm_rule: { k: 2, n: 4 }, threshold_source: 'trained' });
    expect(d.signals).toEqual(SIGNALS.map((name) => ({ name, type: 'number' })));
    expect(d.outputs.map((o: { name: string }) => o.name)).toEqual(['time', 'status', 'anomaly_score', 'alarm', 'top_signal', ...SIGNALS.map((s) => `contribution_${s}`)]);
    const doc = JSON.parse(d.openapi).paths[`/serve/${apis.unsup.key}/predict`].post;
    expect(doc.requestBody.content['application/json'].schema.properties.rows.items.required).toEqual(['datetime', ...SIGNALS]);
    // the examples, sent as they are, are answered
    for (const ex of [d.examples.block, d.examples.stream]) {
      const res = await serve('unsup', ex);
      expect(res.statusCode, res.body).toBe(200);
      expect(body(res).predictions[0]).toMatchObject({ status: 'warming_up', anomaly_score: null, alarm: null });
      expect(body(res).time_series).toMatchObject({ time_column: 'datetime', history_rows: d.history_rows, warmup_rows: d.warmup_rows, alarm_rule: d.alarm_rule });
    }
    const sup = body(await call('GET', `/api/platform/projects/${apis.sup.id}/time-series`));
    expect(sup).toMatchObject({ history_rows: 4, alarm_rule: { k: 1, n: 1 } });
    expect((await call('GET', `/api/platform/projects/${apis.unsup.id}/time-series`, undefined, bob)).statusCode).toBe(404);
    // the server's OpenAPI document describes the time-series answer of the serving path
    const docs = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(JSON.stringify(docs.paths['/serve/{key}/predict'].post.responses['200'])).toContain('HostedTimeSeriesPrediction');
    expect(Object.keys(docs.components.schemas.HostedTimeSeriesPrediction.properties.detail.properties.response.properties)).toContain('time_series');
    expect(docs.paths['/api/platform/projects/{id}/time-series']).toBeTruthy();
  });

  it.each(['unsup', 'sup'])('%s: a block equals the batch prediction with the threshold in force; a stream equals the block', async (api) => {
    const { project, model } = apis[api];
    let threshold = body(await call('GET', `/api/platform/projects/${apis[api].id}/time-series`)).trained_threshold as number;
    if (api === 'unsup') {
      // a threshold saved on the project is the one in force (for the batch prediction and the API alike)
      threshold = threshold * 0.8;
      expect(body(await call('POST', `/api/update/threshold/${project}/${model}`, { threshold })).saved_threshold).toBe(threshold);
      // the API reads a saved threshold at most once a second: wait until it answers with it
      for (let tries = 0; body(await serve(api, { rows: ROWS.slice(0, 2) })).time_series.threshold !== threshold; tries++) {
        expect(tries).toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(body(await call('GET', `/api/platform/projects/${apis[api].id}/time-series`))).toMatchObject({ threshold, threshold_source: 'saved' });
    }
    const want = await batch(api);
    const res = await serve(api, { rows: ROWS });
    expect(res.statusCode, res.body).toBe(200);
    const block = body(res);
    expect(block.time_series).toMatchObject({ threshold, series: null, kept_rows: null });
    sameAsBatch(block.predictions, want, threshold);
    const history = block.time_series.history_rows as number;
    expect(block.predictions.map((p: Answer) => p.status).slice(0, history + 1)).toEqual(
      Array.from({ length: history + 1 }, (_, i) => (i < block.time_series.warmup_rows ? 'warming_up' : i < history ? 'partial_history' : 'scored')),
    );
    // the same rows shuffled: the same answers, each in the place it was sent
    const order = ROWS.map((_, i) => i).sort((a, b) => ((a * 7919) % 200) - ((b * 7919) % 200));
    const shuffled = body(await serve(api, { rows: order.map((i) => ROWS[i]) })).predictions as Answer[];
    order.forEach((i, j) => expect(shuffled[j]).toEqual(block.predictions[i]));
    // a stream in pieces gives the block's answers
    const s = await stream(api, `line-${api}`);
    expect(s.answers).toHaveLength(ROWS.length);
    s.answers.forEach((a, i) => {
      const b = block.predictions[i];
      expect([a.time, a.status, a.alarm, a.top_signal]).toEqual([b.time, b.status, b.alarm, b.top_signal]);
      for (const [k, v] of Object.entries(b)) if (typeof v === 'number') expect(Math.abs((a[k] as number) - v), `${i} ${k}`).toBeLessThanOrEqual(1e-12);
    });
    expect(s.kept.at(-1)).toBe(ROWS.length); // kept whole below MITATE_TSAD_STREAM_EXACT_ROWS
  }, 600_000);

  it('refuses what a stream cannot take, in the caller\'s language, and bills only answered calls', async () => {
    const before = body(await call('GET', `/api/platform/projects/${apis.unsup.id}/statistics`));
    const series = `order-${crypto.randomBytes(2).toString('hex')}`;
    expect((await serve('unsup', { series, rows: ROWS.slice(10, 12) })).statusCode).toBe(200);
    const back = await serve('unsup', { series, rows: [ROWS[5]] }, 'ja');
    expect(back.statusCode).toBe(422);
    expect(back.json().detail[0]).toMatchObject({ type: 'tsad_stream_order' });
    expect(back.json().detail[0].msg).toContain('時刻順');
    const again = await serve('unsup', { series, rows: [ROWS[12]] });
    expect(again.statusCode).toBe(200); // the refused rows were not kept
    expect(body(again).time_series.kept_rows).toBe(3);
    const noTime = await serve('unsup', { rows: ROWS.slice(0, 3).map(({ datetime: _d, ...r }) => r) });
    expect(noTime.statusCode).toBe(422);
    expect(noTime.json().detail[0]).toMatchObject({ type: 'tsad_time_missing' });
    const badTime = await serve('unsup', { rows: [{ ...ROWS[0], datetime: 'yesterday' }] });
    expect(badTime.json().detail[0]).toMatchObject({ type: 'tsad_time_unreadable' });
    const badSeries = await serve('unsup', { series: '', rows: [ROWS[0]] }, 'ja');
    expect(badSeries.statusCode).toBe(422);
    expect(badSeries.json().detail[0]).toMatchObject({ type: 'tsad_series_invalid', loc: ['body', 'series'] });
    expect(badSeries.json().detail[0].msg).toContain('ストリーム');
    const wrongKey = await t.app.inject({ method: 'POST', url: `/serve/${apis.unsup.key}/predict`, payload: { rows: ROWS }, headers: { 'x-api-key': 'mk_live_wrong' } });
    expect(wrongKey.statusCode).toBe(401);
    // a number sent as text is that number, as for tabular APIs
    const text = body(await serve('unsup', { rows: ROWS.slice(0, 20).map((r) => ({ ...r, Current: String(r.Current) })) })).predictions;
    expect(text).toEqual(body(await serve('unsup', { rows: ROWS.slice(0, 20) })).predictions);
    // every code seen is documented in the OpenAPI document
    for (const res of [back, noTime, badTime, badSeries]) expect(SERVE_REFUSALS[422].codes as readonly string[]).toContain(res.json().detail[0].type);
    const after = body(await call('GET', `/api/platform/projects/${apis.unsup.id}/statistics`));
    expect(after.total - before.total).toBe(4); // answered: 2 rows, 1 row, and the two blocks of 20
    expect(after.refused - before.refused).toBe(5);
  });
});
