import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8');
const SIGNALS = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];
const UNSUPERVISED = 'time_series_anomaly_detection_unsupervised';

/** POST timeseries/drift/suggest/{dataset id}: the engine's suggestion of slowly drifting signals, said in en/ja. */
describe.each(DATABASES)('suggestion of slowly drifting signals on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let skab = '';
  const call = (url: string, payload: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const msg = (res: LightMyRequestResponse) => res.json().detail[0].msg as string;
  const jobs = async () => Number((await t.app.ctx.db.selectFrom('jobs').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const first400 = { project_type: UNSUPERVISED, time_column: 'datetime', feature_variables: SIGNALS, normal: { mode: 'rows', rows: 400 } };

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'plant');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    const res = await upload(t.app, alice.auth, { name: 'skab.csv', content: SKAB }, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
    if (res.statusCode >= 300) throw new Error(res.body);
    skab = body(res).id;
  }, 300_000);
  afterAll(() => t?.close());

  it('suggests the thermal signals of SKAB with a reason each, in English and Japanese, and stores nothing', async () => {
    const projects = async () => Number((await t.app.ctx.db.selectFrom('training_projects').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await projects();
    const en = await call(`/api/timeseries/drift/suggest/${skab}`, first400);
    expect(en.statusCode, en.body).toBe(200);
    const r = body(en);
    expect(r.period).toBe('normal');
    expect(r.rows).toBe(400);
    expect(r.sample_rows).toBe(400); // a period this short is looked at whole
    expect(r.drift_signals).toEqual(['Temperature', 'Thermocouple']);
    expect(r.drift_rows).toBeGreaterThanOrEqual(2);
    expect(r.drift_rows).toBeLessThanOrEqual(100);
    // what the unsupervised default adds with them (engine timeseries/drift.py DEFAULTS), filled in by the wizard
    expect(r.defaults).toEqual({ windows: [5], alarm_k: 3, alarm_n: 5 });
    expect(r.signals.map((s: { signal: string }) => s.signal)).toEqual(SIGNALS);
    const temp = r.signals.find((s: { signal: string }) => s.signal === 'Temperature');
    expect(temp.drifts).toBe(true);
    expect(temp.move).toBeGreaterThan(8);
    expect(temp.reason).toBe(`Its level moves by ${temp.move.toFixed(1)} standard deviations of its short-term variation over the normal period, gradually and without coming back.`);
    const voltage = r.signals.find((s: { signal: string }) => s.signal === 'Voltage');
    expect(voltage.drifts).toBe(false);
    expect(voltage.reason).toMatch(/^Its level moves by \d+\.\d standard deviations .* only; a slow drift is suggested from 8\.$/);
    const ja = body(await call(`/api/timeseries/drift/suggest/${skab}`, first400, alice, 'ja'));
    expect(ja.drift_signals).toEqual(r.drift_signals);
    expect(ja.drift_rows).toBe(r.drift_rows);
    expect(ja.signals.find((s: { signal: string }) => s.signal === 'Temperature').reason).toBe(`正常期間の中で、水準が短期的な変動の標準偏差の${temp.move.toFixed(1)}倍動いています。少しずつ動き、元に戻りません。`);
    for (const s of ja.signals) expect(s.reason, s.signal).toMatch(/[ぁ-んァ-ヶ一-龯]/);
    expect(await projects()).toBe(before);
    // the quick job stays on record, and GET /jobs/{id} answers it as declared (its reasons as catalogue codes)
    const job = await t.app.ctx.db.selectFrom('jobs').select('id').where('kind', '=', 'tsad_drift_suggest').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    const seen = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: alice.auth });
    expect(seen.statusCode, seen.body).toBe(200);
    const result = body(seen).result;
    expect(result.drift_signals).toEqual(['Temperature', 'Thermocouple']);
    expect(result.signals.find((s: { signal: string }) => s.signal === 'Temperature').reason).toMatchObject({ code: 'tsad_drift_reason_drifts', params: { period: { code: 'tsad_drift_period_normal' } } });
  }, 300_000);

  it('reads a range of the normal period and the supervised training part', async () => {
    const lines = SKAB.trim().split('\n');
    const at = (row: number) => lines[row].split(';')[0]; // data rows from 1
    const range = body(await call(`/api/timeseries/drift/suggest/${skab}`, { ...first400, normal: { mode: 'range', start: at(1), end: at(400) } }));
    expect(range.rows).toBe(400);
    expect(range.drift_signals).toEqual(['Temperature', 'Thermocouple']);
    const sup = await call(`/api/timeseries/drift/suggest/${skab}`, { project_type: 'time_series_anomaly_detection_supervised', time_column: 'datetime', feature_variables: ['Temperature', 'Voltage'], split_ratio: 0.5 }, alice, 'ja');
    expect(sup.statusCode, sup.body).toBe(200);
    expect(body(sup).period).toBe('train');
    expect(body(sup).defaults).toBeNull(); // measured for the normal period only
    expect(body(sup).signals[0].reason).toContain('学習部分');
  }, 300_000);

  it('refuses an unknown signal and a short period in the caller\'s language, queuing nothing', async () => {
    const before = await jobs();
    const unknown = await call(`/api/timeseries/drift/suggest/${skab}`, { ...first400, feature_variables: ['Temperature', 'Nope'] });
    expect(unknown.statusCode).toBe(422);
    expect(msg(unknown)).toBe('The column "Nope" is not in the dataset.');
    expect(msg(await call(`/api/timeseries/drift/suggest/${skab}`, { ...first400, feature_variables: ['Nope'] }, alice, 'ja'))).toBe('列「Nope」はデータセットにありません。');
    const short = { ...first400, normal: { mode: 'rows', rows: 20 } };
    const en = await call(`/api/timeseries/drift/suggest/${skab}`, short);
    expect(en.statusCode).toBe(422);
    expect(msg(en)).toBe('The suggestion of slowly drifting signals needs at least 30 rows in the period the models learn from; it has 20. Choose a longer period.');
    expect(msg(await call(`/api/timeseries/drift/suggest/${skab}`, short, alice, 'ja'))).toBe('ゆっくりドリフトする信号の提案には、モデルが学習する期間に30行以上が必要です（現在20行）。期間を長くしてください。');
    expect((await call(`/api/timeseries/drift/suggest/${skab}`, { ...first400, feature_variables: [] })).statusCode).toBe(422);
    expect(await jobs()).toBe(before);
  });

  it('another organisation gets 404; a viewer of the organisation may ask', async () => {
    expect((await call(`/api/timeseries/drift/suggest/${skab}`, first400, bob)).statusCode).toBe(404);
    const carol = await registerAndLogin(t.app, 'carol', 'Tmp Org');
    const org = await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db.updateTable('users').set({ organisation_id: org.organisation_id, role: 'viewer' }).where('email', '=', carol.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: carol.email, password: STRONG_PASSWORD } });
    const viewer = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    const res = await call(`/api/timeseries/drift/suggest/${skab}`, first400, viewer);
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res).drift_signals).toEqual(['Temperature', 'Thermocouple']);
  }, 300_000);
});
