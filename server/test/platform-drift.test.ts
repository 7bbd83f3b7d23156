import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoDue, settingsOf, warningsOf } from '../src/features/platform/drift/rules.js';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

const CSV = fs.readFileSync(path.join(SHARED_DATA, 'uci_concrete', 'concrete_data.csv'), 'utf8').trim();
const [HEADER, ...LINES] = CSV.split('\n');
const COLUMNS = HEADER.split(',');
const FEATURES = COLUMNS.slice(0, 8);
/** Rows of the training data itself, half of them in a fixed shuffled order (the file is ordered by mix, so any part of
 * the stream, e.g. the rows an automatic check compares, has the training distribution). */
const order = (i: number) => crypto.createHash('sha1').update(String(i)).digest('hex');
const STREAM = LINES.map((l, i) => ({ l, k: order(i) }))
  .sort((a, b) => a.k.localeCompare(b.k))
  .slice(0, 500)
  .map(({ l }) => l)
  .map((l) => Object.fromEntries(FEATURES.map((c, i) => [c, Number(l.split(',')[i])])));

/** Input drift of hosted APIs (issue 31 §4): a shifted stream warns on the shifted feature only, a steady one never. */
describe.each(DATABASES)('drift of hosted APIs on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let viewer: { auth: Record<string, string> };
  let model = { project: '', key: '' };

  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  /** A running API of the trained model with a production key (the review is not what is tested here). */
  async function hosted(name: string) {
    const key = `${name}-${crypto.randomBytes(3).toString('hex')}`;
    const res = await call('POST', '/api/platform/projects', { name, key, project_id: model.project, model_key: model.key, content_language: 'en-gb' });
    expect(res.statusCode).toBe(201);
    const id = body(res).id as string;
    await t.app.ctx.db.updateTable('platform_projects').set({ status: 'running' }).where('id', '=', id).execute();
    const secret = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'k', kind: 'production' })).secret as string;
    return { id, key, secret };
  }

  async function stream(api: { key: string; secret: string }, rows: Record<string, number>[]) {
    for (let i = 0; i < rows.length; i += 10) {
      const res = await t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict`, payload: { rows: rows.slice(i, i + 10) }, headers: { 'x-api-key': api.secret } });
      expect(res.statusCode).toBe(200);
    }
  }

  /** The drift view once its newest check finished (checks run as jobs: waited for, never timed). */
  async function finished(id: string) {
    for (let i = 0; i < 600; i++) {
      const v = body(await call('GET', `/api/platform/projects/${id}/drift`));
      if (v.latest && v.latest.state !== 'running') return v;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error('no drift check finished');
  }

  /** The newest drift job of a hosted API as stored: the language its spec asks the engine to speak, and what it said. */
  async function driftJob(id: string) {
    const j = await t.app.ctx.db.selectFrom('jobs').select(['spec_json', 'message']).where('kind', '=', 'platform_drift').where('subject_id', '=', id).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    return { lang: JSON.parse(j.spec_json).lang as string, message: j.message };
  }

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1, drift: { sampleCap: 5000, flushMs: 200, keepRows: 5000, keepDays: 30 } } });
    alice = await registerAndLogin(t.app, 'drifter');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    const u = await registerAndLogin(t.app, 'viewer', 'Elsewhere');
    const orgId = (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow()).organisation_id;
    await t.app.ctx.db.updateTable('users').set({ organisation_id: orgId, role: 'viewer' }).where('email', '=', u.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: u.email, password: STRONG_PASSWORD } });
    viewer = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    const ds = body(await upload(t.app, alice.auth, { name: 'concrete.csv', content: CSV + '\n' }));
    const p = body(await call('POST', `/api/regress/register/${ds.id}`, { name: 'Concrete', target_variables: ['compressive_strength_mpa'], feature_variables: FEATURES, models: [{ algorithm: 'linear' }] }));
    const pid = p.project_id ?? p.id;
    const started = body(await call('POST', `/api/train/model/${pid}`, {}));
    await t.app.ctx.jobs.waitFor(started.job?.id ?? body(await call('GET', `/api/regress/project/${pid}`)).job.id, 600_000);
    const m = body(await call('GET', `/api/regress/project/${pid}`)).models.find((x: { state: string }) => x.state === 'done');
    model = { project: pid, key: m.model_key };
  }, 600_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a steady stream raises no warning; a check needs sampled rows; viewers and other organisations cannot check', async () => {
    const api = await hosted('steady');
    const empty = await call('POST', `/api/platform/projects/${api.id}/drift/check`, undefined, alice, 'ja');
    expect(empty.statusCode).toBe(409);
    expect(empty.json().detail.response).toBe('直近24時間に応答したリクエストのサンプルがまだありません。先にAPIを呼び出してください。');
    // refused calls are not sampled
    expect((await t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict`, payload: { rows: [{ cement: 'x' }] }, headers: { 'x-api-key': api.secret } })).statusCode).toBe(422);
    await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { auto_every: 0 });
    await stream(api, STREAM);
    expect((await call('POST', `/api/platform/projects/${api.id}/drift/check`, undefined, viewer)).statusCode).toBe(403);
    expect((await call('GET', `/api/platform/projects/${api.id}/drift`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/platform/projects/${api.id}/drift/check`, undefined, bob)).statusCode).toBe(404);
    const started = await call('POST', `/api/platform/projects/${api.id}/drift/check`);
    expect(started.statusCode).toBe(200);
    expect(body(started)).toMatchObject({ running: true, sampled_rows: STREAM.length, latest: { state: 'running', trigger: 'manual', rows: STREAM.length } });
    const v = await finished(api.id);
    expect(v.latest.state).toBe('done');
    expect(await driftJob(api.id)).toEqual({ lang: 'en', message: 'Comparing the served inputs with the training data' }); // the caller's language
    expect(v.latest.features.map((f: { feature: string }) => f.feature)).toEqual(FEATURES);
    for (const f of v.latest.features) {
      expect(f).toMatchObject({ kind: 'numeric', test: 'ks', rows: STREAM.length, missing: 0, outside: 0, warnings: [] });
      expect(f.psi).toBeLessThan(0.1);
    }
    expect(v).toMatchObject({ warning: false, warned_features: [], new_rows: 0 });
    expect(v.history).toHaveLength(1);
    expect(Object.keys(v.history[0].psi)).toEqual(FEATURES);
    expect(body(await call('GET', `/api/platform/projects/${api.id}/drift`, undefined, viewer)).latest.id).toBe(v.latest.id); // viewers read
  }, 600_000);

  it('a stream whose cement shifts warns on cement only, by itself after auto_every rows; thresholds are per project', async () => {
    const api = await hosted('shifted');
    // An automatic check has no caller: it speaks the language of the person who published the API (issue 33).
    await t.app.ctx.db.updateTable('users').set({ language: 'ja-jp' }).where('email', '=', alice.email).execute();
    const bad = await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { psi: -1 });
    expect(bad.statusCode).toBe(422);
    expect((await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { auto_every: 300 }, viewer)).statusCode).toBe(403);
    expect(body(await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { auto_every: 300, auto_minutes: 0 })).settings).toMatchObject({ psi: 0.2, p_value: 0.01, auto_every: 300, auto_minutes: 0 });
    await stream(
      api,
      STREAM.map((r) => ({ ...r, cement: r.cement + 150 })),
    );
    const v = await finished(api.id); // nobody pressed the button
    await t.app.ctx.db.updateTable('users').set({ language: 'en-gb' }).where('email', '=', alice.email).execute();
    expect(v.latest).toMatchObject({ state: 'done', trigger: 'auto' });
    expect(await driftJob(api.id)).toEqual({ lang: 'ja', message: '受け付けた入力を学習データと比較しています' });
    expect(v.warning).toBe(true);
    expect(v.warned_features).toEqual(['cement']);
    const cement = v.latest.features.find((f: { feature: string }) => f.feature === 'cement');
    expect(cement.warnings).toContain('shift');
    expect(cement.psi).toBeGreaterThan(0.2);
    expect(cement.p_value).toBeLessThan(0.01);
    expect(cement.outside).toBeGreaterThan(0);
    for (const f of v.latest.features.filter((x: { feature: string }) => x.feature !== 'cement')) expect(f.warnings).toEqual([]);
    // a project's own thresholds: the same figures no longer warn
    const loose = body(await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { psi: 10, outside: 1 }));
    expect(loose).toMatchObject({ warning: false, warned_features: [], settings: { psi: 10, outside: 1, auto_every: 300 } });
  }, 600_000);
  it('samples CSV bodies as it samples JSON rows: a CSV stream whose water shifts warns on water only', async () => {
    const api = await hosted('csv');
    await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { auto_every: 0 });
    const rows = STREAM.map((r) => ({ ...r, water: r.water + 100 }));
    for (let i = 0; i < rows.length; i += 10) {
      const csv = [FEATURES.join(','), ...rows.slice(i, i + 10).map((r: Record<string, number>) => FEATURES.map((f) => r[f]).join(','))].join('\n') + '\n';
      const res = await t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict`, payload: csv, headers: { 'x-api-key': api.secret, 'content-type': 'text/csv' } });
      expect(res.statusCode, res.body).toBe(200);
    }
    // at most 20 CSV requests of each flush period are kept (each with all its 10 rows), so 200 to 500 rows
    const started = body(await call('POST', `/api/platform/projects/${api.id}/drift/check`, undefined, alice, 'ja'));
    expect(started.sampled_rows).toBeGreaterThanOrEqual(200);
    expect(started.sampled_rows).toBeLessThanOrEqual(rows.length);
    expect(started.latest.rows).toBe(started.sampled_rows);
    const v = await finished(api.id);
    expect(v).toMatchObject({ warning: true, warned_features: ['water'] });
    expect(await driftJob(api.id)).toEqual({ lang: 'ja', message: '受け付けた入力を学習データと比較しています' }); // the caller's language
    const water = v.latest.features.find((f: { feature: string }) => f.feature === 'water');
    expect(water).toMatchObject({ rows: started.sampled_rows, missing: 0 });
    expect(water.outside).toBeGreaterThan(0.5);
    expect(water.warnings).toContain('shift');
    for (const f of v.latest.features.filter((x: { feature: string }) => x.feature !== 'water')) expect(f).toMatchObject({ missing: 0, warnings: [] });
  }, 600_000);
});

describe('drift rules', () => {
  const s = settingsOf({});
  const f = { feature: 'x', kind: 'numeric' as const, rows: 500, psi: 0.3, test: 'ks' as const, statistic: 0.2, p_value: 0.001, outside: 0, missing: 0 };
  it('a shift needs both the PSI and the test; range and missing shares warn alone; few rows never warn', () => {
    expect(s).toMatchObject({ psi: 0.2, p_value: 0.01, outside: 0.05, missing: 0.05, window_rows: 1000, window_hours: 24, auto_every: 1000, auto_minutes: 60 });
    expect(warningsOf(f, s, 500)).toEqual(['shift']);
    expect(warningsOf({ ...f, p_value: 0.2 }, s, 500)).toEqual([]);
    expect(warningsOf({ ...f, psi: 0.1 }, s, 500)).toEqual([]);
    expect(warningsOf({ ...f, psi: 0, outside: 0.06, missing: 0.5 }, s, 500)).toEqual(['outside', 'missing']);
    expect(warningsOf(f, s, 99)).toEqual([]);
    expect(settingsOf({ psi: -3 })).toEqual(s); // a stored value that no longer validates gives the defaults
  });
  it('checks start by themselves after auto_every new rows, at most once in auto_minutes', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(autoDue(s, 999, false, undefined, now)).toBe(false);
    expect(autoDue(s, 1000, false, undefined, now)).toBe(true);
    expect(autoDue(s, 1000, true, undefined, now)).toBe(false);
    expect(autoDue(s, 5000, false, '2026-11-28T11:30:00Z', now)).toBe(false);
    expect(autoDue(s, 5000, false, '2026-11-28T10:59:00Z', now)).toBe(true);
    expect(autoDue({ ...s, auto_every: 0 }, 5000, false, undefined, now)).toBe(false);
  });
});
