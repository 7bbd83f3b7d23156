import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, makeLimiter } from '../src/features/platform/gateway.js';
import { StatsRecorder } from '../src/features/platform/stats.js';
import { installErrorHandler } from '../src/http/errors.js';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';

const CCPP = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'), 'utf8').trim().split('\n').slice(0, 801).join('\n') + '\n';
const ADMIN = `platform.admin.${crypto.randomBytes(3).toString('hex')}@example.com`;

/** Hosted model APIs (issue 13): life cycle, review, credentials, serving, statistics, roles and tenancy. */
describe.each(DATABASES)('hosted model APIs on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: Awaited<ReturnType<typeof registerAndLogin>>;
  let viewer: { auth: Record<string, string> };
  let member: { auth: Record<string, string> };
  let modelProject = '';
  let modelKey = '';
  let bobModel: { project: string; key: string };
  let id = '';
  let key = '';

  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const serve = (apiKey: string | undefined, payload: unknown, projectKey = key, extra: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/serve/${projectKey}/predict`, payload: payload as object, headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...extra } });

  async function trained(who: typeof alice) {
    const ds = body(await upload(t.app, who.auth, { name: 'ccpp.csv', content: CCPP }));
    const p = body(await call('POST', `/api/regress/register/${ds.id}`, { name: 'Power plant', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models: [{ algorithm: 'linear' }] }, who));
    const started = body(await call('POST', `/api/train/model/${p.project_id ?? p.id}`, {}, who));
    const pid = p.project_id ?? p.id;
    await t.app.ctx.jobs.waitFor(started.job?.id ?? body(await call('GET', `/api/regress/project/${pid}`, undefined, who)).job.id, 600_000);
    const view = body(await call('GET', `/api/regress/project/${pid}`, undefined, who));
    const m = view.models.find((x: { state: string }) => x.state === 'done');
    return { project: pid, key: m.model_key as string };
  }

  /** A second user of alice's organisation with the given role. */
  async function colleague(role: string) {
    const u = await registerAndLogin(t.app, role, 'Elsewhere');
    const orgId = (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow()).organisation_id;
    await t.app.ctx.db.updateTable('users').set({ organisation_id: orgId, role: role as 'viewer' }).where('email', '=', u.email).execute();
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: u.email, password: STRONG_PASSWORD } });
    return { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
  }

  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = ADMIN;
    process.env.MITATE_SANDBOX_RPS = '2';
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'publisher');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    const reg = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: ADMIN, password: STRONG_PASSWORD, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Platform' } });
    expect(reg.statusCode).toBe(201);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: ADMIN, password: STRONG_PASSWORD } });
    admin = { email: ADMIN, tokens: login.json().detail.response, auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    viewer = await colleague('viewer');
    member = await colleague('member');
    ({ project: modelProject, key: modelKey } = await trained(alice));
    bobModel = await trained(bob);
  }, 400_000);
  afterAll(async () => {
    delete process.env.MITATE_PLATFORM_ADMINS;
    delete process.env.MITATE_SANDBOX_RPS;
    await t?.close();
  });

  const fields = () => ({ name: 'Power API', key: `power-${crypto.randomBytes(3).toString('hex')}`, project_id: modelProject, model_key: modelKey, content_language: 'en-gb', cpu_cores: 2, memory_gb: 1.5 });

  it('validates SPEC §5 rules and prices from the price list', async () => {
    const bad = async (patch: object) => (await call('POST', '/api/platform/projects', { ...fields(), ...patch })).json();
    expect((await bad({ content_language: '' })).detail[0]).toMatchObject({ loc: ['body', 'content_language'], msg: 'Content language is required.' });
    expect((await bad({ expected_requests_per_month: 2_147_483_647 })).detail[0].msg).toBe('Expected request count must be below 2,147,483,647.');
    expect((await bad({ memory_gb: 1.123456789 })).detail[0].msg).toBe('At most 7 digits after the decimal point.');
    expect((await bad({ key: 'Bad Key!' })).detail[0].loc).toEqual(['body', 'key']);
    const q = body(await call('POST', '/api/platform/quote', { subscription_type: 'standard', billing_cycle: 'monthly', cpu_cores: 2, memory_gb: 1.5, gpu_gb: 0, auto_scaling: false, expected_requests_per_month: 1_000_000 }));
    // default list: base 3000 + 2 × 2500 + 1.5 × 600 + 1,000,000 requests × 1500 per million
    expect(q).toMatchObject({ currency: 'JPY', subscription_price: 9800, infrastructure_price: 3000 + 5000 + 900 + 1500 });
    const yearly = body(await call('POST', '/api/platform/quote', { subscription_type: 'standard', billing_cycle: 'yearly', cpu_cores: 2, memory_gb: 1.5, gpu_gb: 0, auto_scaling: false, expected_requests_per_month: 0 }));
    expect(yearly.subscription_price).toBe(Math.round(9800 * 12 * 0.9));
    expect((await call('GET', '/api/platform/projects')).json().detail.response.total).toBe(0); // nothing half-made stayed
  });

  it('walks the life cycle: draft → review → approval needs a verified identity → running ⇄ stopped', async () => {
    const f = fields();
    const created = await call('POST', '/api/platform/projects', f);
    expect(created.statusCode).toBe(201);
    const p = body(created);
    ({ id, key } = p);
    expect(p).toMatchObject({ status: 'draft', actions: ['submit'], key: f.key, features: ['AT', 'V', 'AP', 'RH'], outputs: ['predicted_EP'], currency: 'JPY' });
    expect(p.endpoint).toMatch(new RegExp(`/serve/${f.key}/predict$`));
    expect((await call('POST', '/api/platform/projects', { ...fields(), key: f.key })).statusCode).toBe(409); // keys are unique
    // not approved yet: no credentials, start refused
    expect((await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'early' })).statusCode).toBe(409);
    expect((await call('POST', `/api/platform/projects/${id}/start`)).statusCode).toBe(409);
    expect(body(await call('POST', `/api/platform/projects/${id}/submit`)).status).toBe('under_review');
    const early = await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'early' }, alice, 'ja');
    expect(early.statusCode).toBe(409);
    expect(early.json().detail.response).toBe('審査中のプロジェクトは承認されるまで認証情報を発行できません。');
    expect((await call('PUT', `/api/platform/projects/${id}`, { name: 'x' })).statusCode).toBe(409); // not editable in review
    // review is for platform administrators only
    expect((await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' })).statusCode).toBe(403);
    const queue = body(await call('GET', '/api/platform/admin/projects', undefined, admin));
    expect(queue.items.find((x: { id: string }) => x.id === id)).toMatchObject({ organisation_name: 'Acme Works', identity_verified: false });
    // identity not verified: not approved
    const refused = await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' }, admin);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail.response).toMatch(/identity/);
    expect((await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'reject' }, admin)).statusCode).toBe(422); // a reason is required
    expect(body(await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'reject', reason: 'Add documentation' }, admin))).toMatchObject({ status: 'rejected', reason: 'Add documentation' });
    // a rejected project is edited: only the fields sent change (the others keep their values), and it is priced again
    const edited = body(await call('PUT', `/api/platform/projects/${id}`, { name: 'Power API 2', documentation_url: 'https://example.com/docs', cpu_cores: 3 }));
    expect(edited).toMatchObject({ name: 'Power API 2', status: 'rejected', settings: { documentation_url: 'https://example.com/docs', cpu_cores: 3, memory_gb: 1.5, content_language: 'en-gb' } });
    expect(edited.infrastructure_price).toBeGreaterThan(p.infrastructure_price);
    expect((await call('PUT', `/api/platform/projects/${id}`, { cpu_cores: 1.123456789 })).json().detail[0]).toMatchObject({ loc: ['body', 'cpu_cores'], msg: 'At most 7 digits after the decimal point.' });
    expect(body(await call('POST', `/api/platform/projects/${id}/submit`)).status).toBe('under_review');
    const orgId = (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', alice.email).executeTakeFirstOrThrow()).organisation_id;
    const userId = (await t.app.ctx.db.selectFrom('users').select('id').where('email', '=', alice.email).executeTakeFirstOrThrow()).id;
    await t.app.ctx.db
      .insertInto('identity_verifications')
      .values({ id: crypto.randomUUID(), organisation_id: orgId, user_id: userId, state: 'done', front_key: 'x', back_key: 'y', reason: null, submitted_at: new Date().toISOString(), reviewed_at: new Date().toISOString(), reviewed_by: null })
      .execute();
    expect(body(await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' }, admin)).status).toBe('approved');
    expect((await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' }, admin)).statusCode).toBe(409); // reviewed once
    expect((await call('POST', `/api/platform/projects/${id}/stop`)).statusCode).toBe(409);
    expect(body(await call('POST', `/api/platform/projects/${id}/start`))).toMatchObject({ status: 'running', actions: ['stop'] });
    const running = await call('PUT', `/api/platform/projects/${id}`, { name: 'x' }, alice, 'ja');
    expect(running.statusCode).toBe(409); // not editable while running
    expect(running.json().detail.response).toBe('編集できるのは下書きか却下されたプロジェクトのみです。');
    expect(body(await call('GET', `/api/platform/projects?status=running`)).items.map((x: { id: string }) => x.id)).toEqual([id]);
  });

  it('enforces roles on the server and keeps organisations apart', async () => {
    expect((await call('GET', `/api/platform/projects/${id}`, undefined, viewer)).statusCode).toBe(200);
    expect((await call('GET', `/api/platform/projects/${id}`, undefined, member)).statusCode).toBe(200);
    for (const who of [viewer, member]) {
      expect((await call('POST', `/api/platform/projects/${id}/stop`, undefined, who)).statusCode).toBe(403);
      expect((await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'k' }, who)).statusCode).toBe(403);
      expect((await call('POST', '/api/platform/projects', fields(), who)).statusCode).toBe(403);
    }
    expect((await call('GET', `/api/platform/projects/${id}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/platform/projects/${id}/stop`, undefined, bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/platform/projects/${id}/credentials`, undefined, bob)).statusCode).toBe(404);
    // bob cannot publish alice's model
    expect((await call('POST', '/api/platform/projects', { ...fields(), project_id: modelProject }, bob)).statusCode).toBe(404);
  });

  let secret = '';
  it('creates keys shown once and stored hashed; serves predictions with the same validation as batch prediction', async () => {
    expect((await call('POST', `/api/platform/projects/${id}/credentials`, { name: ' ' })).json().detail[0].msg).toBe('Credential name is required.');
    const created = await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'factory line 1' });
    expect(created.statusCode).toBe(201);
    const c = body(created);
    secret = c.secret;
    expect(secret).toMatch(/^mk_live_/);
    expect(secret.startsWith(c.prefix)).toBe(true);
    const listed = body(await call('GET', `/api/platform/projects/${id}/credentials`));
    expect(listed[0]).not.toHaveProperty('secret');
    const stored = await t.app.ctx.db.selectFrom('platform_credentials').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).toBe(crypto.createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const res = await serve(secret, { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }, { AT: 23.64, V: 58.49, AP: 1011.4, RH: 74.2 }] });
    expect(res.statusCode).toBe(200);
    // the answer is written without helmet or the generic serialiser: the same security headers and a JSON type
    for (const r of [res, await serve('mk_live_nonsense', { rows: [] })]) {
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
    const out = body(res);
    expect(Object.keys(out)).toEqual(['model', 'version', 'outputs', 'predictions']);
    expect(out.outputs).toEqual(['predicted_EP']);
    expect(out.predictions[0].predicted_EP).toBeGreaterThan(470); // the true values are 480.48 and 445.75
    expect(out.predictions[1].predicted_EP).toBeLessThan(455);
    const csv = await t.app.inject({ method: 'POST', url: `/serve/${key}/predict`, payload: 'AT,V,AP,RH\n8.34,40.77,1010.84,90.01\n', headers: { 'x-api-key': secret, 'content-type': 'text/csv' } });
    expect(body(csv).predictions[0].predicted_EP).toBeCloseTo(out.predictions[0].predicted_EP, 6);
    expect(csv.headers['server-timing']).toMatch(/desc="engine"/); // CSV bodies always go to the serving process
    // JSON rows: once the model's serving plan has checked out, answered in the server's own process, equal to the
    // serving process's answer for the same row (the CSV one above) within 1e-9
    let local = await serve(secret, { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] });
    for (const until = Date.now() + 120_000; !/desc="in-process"/.test(String(local.headers['server-timing'])) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 200));
      local = await serve(secret, { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] });
    }
    expect(local.headers['server-timing']).toMatch(/desc="in-process"/);
    expect(Math.abs(body(local).predictions[0].predicted_EP - body(csv).predictions[0].predicted_EP)).toBeLessThanOrEqual(1e-9);
    expect(body(local)).toMatchObject({ model: out.model, version: out.version, outputs: ['predicted_EP'] });
    const missing = await serve(secret, { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84 }] });
    expect(missing.statusCode).toBe(422);
    // the engine catalogue's text and code (the batch prediction's check), in the caller's language
    expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'RH'], msg: 'The feature column "RH" is missing from the inference data.', type: 'inference_feature_missing' });
    const wrong = await serve(secret, { rows: [{ AT: 'hot', V: 40.77, AP: 1010.84, RH: 90 }] }, key, { 'accept-language': 'ja' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail[0]).toMatchObject({ loc: ['body', 'AT'], msg: '説明変数の列「AT」は数値である必要がありますが、「hot」が含まれています。', type: 'inference_not_numeric' });
    const empty = await serve(secret, { rows: [] }, key, { 'accept-language': 'ja' });
    expect(empty.json().detail[0]).toMatchObject({ msg: 'リクエストに行がありません。', type: 'serve_no_rows' });
    // concurrent requests, some bad: each caller gets its own answer
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => serve(secret, { rows: [i % 4 === 0 ? { AT: 1 } : { AT: 8 + i, V: 40, AP: 1010, RH: 80 }] })));
    expect(many.map((r) => r.statusCode)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 4 === 0 ? 422 : 200)));
  });

  it('refuses missing, wrong, other organisations\' and revoked keys, and stopped projects', async () => {
    expect((await serve(undefined, { rows: [{ AT: 1, V: 1, AP: 1, RH: 1 }] })).statusCode).toBe(401);
    expect((await serve('mk_live_nonsense', { rows: [{ AT: 1, V: 1, AP: 1, RH: 1 }] })).statusCode).toBe(401);
    expect((await serve(secret, {}, 'no-such-api')).statusCode).toBe(404);
    // bob's own approved API and key do not open alice's
    const bp = body(await call('POST', '/api/platform/projects', { ...fields(), project_id: bobModel.project, model_key: bobModel.key }, bob));
    await call('POST', `/api/platform/projects/${bp.id}/submit`, undefined, bob);
    await t.app.ctx.db.updateTable('platform_projects').set({ status: 'approved' }).where('id', '=', bp.id).execute();
    const bobKey = body(await call('POST', `/api/platform/projects/${bp.id}/credentials`, { name: 'bob' }, bob)).secret;
    expect((await serve(bobKey, { rows: [{ AT: 1, V: 1, AP: 1, RH: 1 }] })).statusCode).toBe(401);
    expect((await serve(bobKey, { rows: [{ AT: 1, V: 1, AP: 1, RH: 1 }] }, bp.key)).statusCode).toBe(503); // approved, not started
    // stop → 503 with a clear message; start again
    await call('POST', `/api/platform/projects/${id}/stop`);
    const stopped = await serve(secret, { rows: [{ AT: 1, V: 1, AP: 1, RH: 1 }] });
    expect(stopped.statusCode).toBe(503);
    expect(stopped.json().detail.response).toMatch(/stopped/);
    await call('POST', `/api/platform/projects/${id}/start`);
    // revoke: refused at once
    const c2 = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'temporary' }));
    expect((await serve(c2.secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] })).statusCode).toBe(200);
    expect(body(await call('DELETE', `/api/platform/projects/${id}/credentials/${c2.id}`)).revoked_at).toBeTruthy();
    expect((await serve(c2.secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] })).statusCode).toBe(401);
    expect((await call('DELETE', `/api/platform/projects/${id}/credentials/${c2.id}`, undefined, bob)).statusCode).toBe(404);
  });

  it('rate-limits sandbox keys', async () => {
    const sb = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'sandbox', kind: 'sandbox' }));
    expect(sb.secret).toMatch(/^mk_test_/);
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) codes.push((await serve(sb.secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] })).statusCode);
    expect(codes).toContain(429); // 2 a second, bursts of 4: ten quick calls cannot all pass
    expect(codes.slice(0, 2)).toEqual([200, 200]);
  });

  it('records request statistics: per path, devices, browsers, OS, over time, as CSV', async () => {
    await serve(secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] }, key, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1' });
    await serve(secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] }, key, { 'user-agent': 'python-requests/2.32.3' });
    const s = body(await call('GET', `/api/platform/projects/${id}/statistics?bucket=hour`, undefined, viewer));
    expect(s.total + s.refused).toBeGreaterThanOrEqual(20);
    expect(s.total).toBeGreaterThanOrEqual(10);
    expect(s.refused).toBeGreaterThan(0);
    expect(s.refusals.key).toBeGreaterThan(0); // the 401s of the tests above, counted apart and never billed
    expect(s.paths[0]).toMatchObject({ path: `/serve/${key}/predict` });
    expect(s.paths[0].average_ms).toBeGreaterThan(0);
    expect(s.devices.map((d: { name: string }) => d.name)).toContain('mobile');
    expect(s.browsers.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining(['Mobile Safari', 'python-requests']));
    expect(s.os.map((d: { name: string }) => d.name)).toContain('iOS');
    expect(s.devices.reduce((a: number, d: { ratio: number }) => a + d.ratio, 0)).toBeCloseTo(1, 6);
    expect(s.series.at(-1).count).toBeGreaterThan(0);
    const day = body(await call('GET', `/api/platform/projects/${id}/statistics?bucket=day`));
    expect(day.series[0].time).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const csv = await call('GET', `/api/platform/projects/${id}/statistics/download`);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.body.split('\n')[0]).toBe('section,name,count,average_ms,ratio,refused');
    expect(csv.body).toContain(`path,/serve/${key}/predict,`);
    const cred = body(await call('GET', `/api/platform/projects/${id}/credentials`)).find((c: { name: string }) => c.name === 'factory line 1');
    expect(cred.last_used_at).toBeTruthy();
    expect((await call('GET', `/api/platform/projects/${id}/statistics`, undefined, bob)).statusCode).toBe(404);
  });

  it('writes one statistics row per client kind and hour, in one flush', async () => {
    const project = await t.app.ctx.db.selectFrom('platform_projects').select(['id', 'organisation_id']).where('id', '=', id).executeTakeFirstOrThrow();
    const errors: Error[] = [];
    const rec = new StatsRecorder(t.app.ctx.db, 3_600_000, (e) => errors.push(e));
    const one = { orgId: project.organisation_id, projectId: project.id, path: '/stats-recorder-test', status: 200 };
    // two curl versions are one client kind; the next hour is another row; a request of now lands in this hour
    rec.record({ ...one, ms: 2, userAgent: 'curl/8.1.0', at: new Date('2026-01-02T03:10:00Z') });
    rec.record({ ...one, ms: 4, userAgent: 'curl/8.4.0', at: new Date('2026-01-02T03:50:00Z') });
    rec.record({ ...one, ms: 8, userAgent: 'curl/8.4.0', at: new Date('2026-01-02T04:00:00Z') });
    const before = new Date().toISOString().slice(0, 13);
    rec.record({ ...one, ms: 1, userAgent: 'curl/8.4.0' });
    rec.record({ ...one, ms: 1, userAgent: 'curl/8.4.0' });
    const after = new Date().toISOString().slice(0, 13);
    await rec.close();
    expect(errors).toEqual([]);
    const rows = await t.app.ctx.db.selectFrom('platform_request_stats').select(['hour', 'browser', 'count', 'total_ms']).where('path', '=', '/stats-recorder-test').orderBy('hour').execute();
    expect(rows.slice(0, 2).map((r) => [r.hour, r.browser, Number(r.count), Number(r.total_ms)])).toEqual([
      ['2026-01-02T03', 'curl', 2, 6],
      ['2026-01-02T04', 'curl', 1, 8],
    ]);
    // (the two requests of now fall in one hour, or in two when that hour ended between them)
    expect(rows.slice(2).every((r) => r.hour === before || r.hour === after)).toBe(true);
    expect(rows.slice(2).reduce((a, r) => a + Number(r.count), 0)).toBe(2);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('with Redis, another server refuses a revoked key at once and shares the sandbox rate limit', async () => {
    // Two more servers on the same database and Redis, with a key cache far longer than the test: only the
    // published change can make the second one refuse.
    const base = t.app.ctx.config;
    const ctx = { ...t.app.ctx, config: { ...base, redisUrl: process.env.TEST_REDIS_URL, serving: { ...base.serving, cacheMs: 600_000, workers: 1 } } };
    const servers = await Promise.all(
      [0, 1].map(async () => {
        const app = Fastify();
        app.setValidatorCompiler(validatorCompiler);
        app.setSerializerCompiler(serializerCompiler);
        installErrorHandler(app);
        const gw = makeGateway(ctx);
        gw.register(app);
        await app.ready();
        await gw.ready();
        return { app, gw };
      }),
    );
    try {
      const c = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'two servers' }));
      const ask = (i: number) => servers[i].app.inject({ method: 'POST', url: `/serve/${key}/predict`, payload: { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] }, headers: { 'x-api-key': c.secret } });
      for (const i of [0, 1]) {
        const first = await ask(i); // both now hold the key in their cache
        expect(first.statusCode, first.body).toBe(200);
      }
      await t.app.ctx.db.updateTable('platform_credentials').set({ revoked_at: new Date().toISOString() }).where('id', '=', c.id).execute();
      expect((await ask(1)).statusCode).toBe(200); // cached: without the message it would serve for ten minutes
      servers[0].gw.forget(key); // what the revoke route does on the server that revoked it
      const until = Date.now() + 10_000;
      let code = 200;
      while (code === 200 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        code = (await ask(1)).statusCode;
      }
      expect(code).toBe(401);
      expect((await ask(0)).statusCode).toBe(401);

      // the sandbox bucket is one for all servers: burst 2 with (almost) no refill, three calls over two servers
      const [a, b] = [new Redis(process.env.TEST_REDIS_URL!), new Redis(process.env.TEST_REDIS_URL!)];
      try {
        const one = makeLimiter(0.001, 2, a);
        const two = makeLimiter(0.001, 2, b);
        const bucket = `test-${crypto.randomBytes(4).toString('hex')}`;
        expect([await one(bucket), await two(bucket), await one(bucket), await two(bucket)]).toEqual([true, true, false, false]);
        const alone = makeLimiter(0.001, 2); // without Redis each server counts its own
        expect([await alone(bucket), await alone(bucket), await alone(bucket)]).toEqual([true, true, false]);
      } finally {
        await Promise.all([a.quit(), b.quit()]);
      }
    } finally {
      for (const s of servers) {
        await s.gw.close();
        await s.app.close();
      }
    }
  }, 900_000);

  it('deletes a project with its keys; the API is gone at once', async () => {
    expect((await call('DELETE', `/api/platform/projects/${id}`, undefined, viewer)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/platform/projects/${id}`)).statusCode).toBe(200);
    expect((await serve(secret, { rows: [{ AT: 8, V: 40, AP: 1010, RH: 80 }] })).statusCode).toBe(404);
    expect(await t.app.ctx.db.selectFrom('platform_credentials').selectAll().where('project_id', '=', id).execute()).toEqual([]);
  });
});

describe('hosted model APIs in the OpenAPI document', () => {
  it('lists the platform routes and the serving call', async () => {
    const t = await makeTestApp('sqlite', { startJobs: false });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
      expect(res.statusCode).toBe(200);
      const paths = res.json().paths;
      for (const p of ['/api/platform/projects', '/api/platform/projects/{id}/credentials', '/api/platform/projects/{id}/statistics', '/serve/{key}/predict']) expect(paths[p], p).toBeTruthy();
    } finally {
      await t.close();
    }
  });
});
