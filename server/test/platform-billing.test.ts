import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/auth/tokens.js';
import { clockOf } from '../src/features/billing/clock.js';
import { forgetLock } from '../src/features/billing/lock.js';
import { makeBillingService } from '../src/features/billing/service.js';
import { periodStart } from '../src/features/billing/terms.js';
import { SERVE_REFUSALS } from '../src/features/platform/schemas.js';
import { clip, numericColumns, readNumbers } from '../src/features/platform/inputs.js';
import { TokenBuckets } from '../src/features/platform/limits.js';
import { refusalOf } from '../src/features/platform/stats.js';
import { DATABASES, makeTestApp, registerAndLogin, SHARED_DATA, STRONG_PASSWORD, type TestApp, upload } from './helpers.js';
import { hostedForBilling } from '../src/services.js';

const CCPP = fs.readFileSync(path.join(SHARED_DATA, 'uci_ccpp', 'ccpp.csv'), 'utf8').trim().split('\n').slice(0, 401).join('\n') + '\n';
const ROW = { AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 };
const body = (res: LightMyRequestResponse) => res.json().detail.response;

describe('serving refusals and rate limits (pure rules)', () => {
  it('names the reason of a refusal from its status; answered calls have none', () => {
    expect([200, 201, 401, 402, 400, 415, 422, 403, 429, 500, 503].map(refusalOf)).toEqual([null, null, 'key', 'locked', 'input', 'input', 'input', 'input', 'rate_limit', 'server', 'server']);
  });

  it('token buckets: a burst, then refusals with the seconds to wait, refilled at the rate', () => {
    const b = new TokenBuckets(2, 4);
    const t0 = 1_000_000;
    expect([0, 1, 2, 3].map(() => b.take('a', t0))).toEqual([0, 0, 0, 0]);
    expect(b.take('a', t0)).toBe(1); // one token comes back in half a second: wait 1 s
    expect(b.take('b', t0)).toBe(0); // another id has its own bucket
    expect(b.take('a', t0 + 500)).toBe(0);
    expect(b.take('a', t0 + 500)).toBe(1);
    expect(b.take('a', t0 + 10_000)).toBe(0); // refilled, never past the burst
    expect([0, 1, 2].map(() => b.take('a', t0 + 10_000))).toEqual([0, 0, 0]);
    expect(b.take('a', t0 + 10_000)).toBe(1);
    const slow = new TokenBuckets(0.01, 1);
    expect(slow.take('x', t0)).toBe(0);
    expect(slow.take('x', t0)).toBe(100);
  });

  it('numbers sent as text: the one rule of both serving paths', () => {
    const rows = [{ a: '27', b: 'x', c: 1 }, { a: ' -1.5e3 ', b: '27', c: null }, { a: 3, b: null, c: '.5' }];
    const read = readNumbers(rows, ['a', 'c']);
    expect(read).toEqual({ rows: [{ a: 27, b: 'x', c: 1 }, { a: -1500, b: '27', c: null }, { a: 3, b: null, c: 0.5 }] });
    expect(rows[0].a).toBe('27'); // the caller's rows are not changed
    const same = [{ a: 1 }];
    expect((readNumbers(same, ['a']) as { rows: unknown[] }).rows).toBe(same); // nothing to read: no copy
    for (const bad of ['27 kg', 'hot', '', 'NaN', 'Infinity', '0x1A', '1,000', '1e400'])
      expect(readNumbers([{ a: bad }], ['a'])).toEqual({ refused: { column: 'a', value: bad } });
    expect(readNumbers([{ a: 'y'.repeat(1000) }], ['a'])).toEqual({ refused: { column: 'a', value: `${'y'.repeat(80)}…` } });
    expect(clip(`a${'😀'.repeat(50)}`)).toBe(`a${'😀'.repeat(39)}…`); // never half a character
    expect(clip('😀'.repeat(50))).toBe(`${'😀'.repeat(40)}…`);
    expect(numericColumns({ features: ['a', 'b', 'c'], model_columns: { a: 'numeric', b: 'category', z: 'numeric' } })).toEqual(['a']);
    expect(numericColumns({})).toEqual([]);
  });

  it('keeps at most maxIds buckets', () => {
    const b = new TokenBuckets(1, 2, 100);
    for (let i = 0; i < 1000; i++) b.take(`id${i}`, 5_000);
    expect(b.size).toBeLessThanOrEqual(100);
  });
});

/**
 * Issue 31 §1: a hosted API bills only what it answered. The case: 33 answered predictions, 60 calls with no
 * or a wrong key (401), 2 while the project is locked (402), a broken JSON body (400) and a wrong content type (415):
 * the next invoice bills 33 requests and their serving time only; the statistics page counts the refusals by reason.
 */
describe.each(DATABASES)('hosted APIs bill only what was served on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: { auth: Record<string, string> };
  const ADMIN = `serve.admin.${crypto.randomBytes(3).toString('hex')}@example.com`;
  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  let id = '';
  let key = '';
  let secret = '';
  const serve = (headers: Record<string, string>, payload: string | object = { rows: [ROW] }) =>
    t.app.inject({ method: 'POST', url: `/serve/${key}/predict`, payload, headers: { 'content-type': 'application/json', ...headers } });

  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = ADMIN;
    process.env.MITATE_BILLING_SWEEP = '0'; // the test sweeps itself, with the billing clock where it wants it
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'owner');
    const reg = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: ADMIN, password: STRONG_PASSWORD, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Platform' } });
    expect(reg.statusCode).toBe(201);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: ADMIN, password: STRONG_PASSWORD } });
    admin = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
  }, 120_000);
  afterAll(async () => {
    delete process.env.MITATE_PLATFORM_ADMINS;
    delete process.env.MITATE_BILLING_SWEEP;
    await t?.close();
  });

  it('bills the 33 answered predictions only; the statistics list 60 × 401, 2 × 402, 400 and 415 apart', async () => {
    // a trained linear model of the power plant data, published, approved and running, with one production key
    const ds = body(await upload(t.app, alice.auth, { name: 'ccpp.csv', content: CCPP }));
    const p = body(await call('POST', `/api/regress/register/${ds.id}`, { name: 'Power plant', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models: [{ algorithm: 'linear' }] }));
    const pid = p.project_id ?? p.id;
    const started = body(await call('POST', `/api/train/model/${pid}`, {}));
    await t.app.ctx.jobs.waitFor(started.job?.id ?? body(await call('GET', `/api/regress/project/${pid}`)).job.id, 600_000);
    const model = body(await call('GET', `/api/regress/project/${pid}`)).models.find((x: { state: string }) => x.state === 'done');
    const created = body(await call('POST', '/api/platform/projects', { name: 'Power API', key: `bill-${crypto.randomBytes(3).toString('hex')}`, project_id: pid, model_key: model.model_key, content_language: 'en' }));
    ({ id, key } = created);
    expect(created.settings.expected_requests_per_month).toBe(0); // every answered request is beyond the plan
    await call('POST', `/api/platform/projects/${id}/submit`);
    const user = await t.app.ctx.db.selectFrom('users').select(['id', 'organisation_id']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db
      .insertInto('identity_verifications')
      .values({ id: crypto.randomUUID(), organisation_id: user.organisation_id, user_id: user.id, state: 'done', front_key: 'x', back_key: 'y', reason: null, submitted_at: new Date().toISOString(), reviewed_at: new Date().toISOString(), reviewed_by: null })
      .execute();
    expect(body(await call('POST', `/api/platform/admin/projects/${id}/review`, { decision: 'approve' }, admin)).status).toBe('approved');
    expect(body(await call('POST', `/api/platform/projects/${id}/start`)).status).toBe('running');
    secret = body(await call('POST', `/api/platform/projects/${id}/credentials`, { name: 'line 1' })).secret;

    const answered = [];
    for (let i = 0; i < 33; i++) answered.push((await serve({ 'x-api-key': secret })).statusCode);
    expect(answered).toEqual(Array(33).fill(200));
    const refused: number[] = [];
    for (let i = 0; i < 30; i++) refused.push((await serve({})).statusCode);
    for (let i = 0; i < 30; i++) refused.push((await serve({ 'x-api-key': `mk_live_${crypto.randomBytes(12).toString('hex')}` })).statusCode);
    expect(refused).toEqual(Array(60).fill(401));
    // refused before the handler: a body that is not JSON, and a content type the API does not take
    const broken = await serve({ 'x-api-key': secret }, '{"rows": [');
    expect(broken.statusCode).toBe(400);
    const xml = await serve({ 'x-api-key': secret, 'content-type': 'application/xml' }, '<rows/>');
    expect(xml.statusCode).toBe(415);

    // the first invoice goes unpaid past its due date: the project is locked and refuses with 402
    const clock = clockOf(t.app.ctx);
    const svc = makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity });
    clock.set(new Date());
    expect((await svc.sweep()).generated).toBe(1);
    clock.advance(20 * 86400_000);
    expect((await svc.sweep()).overdue).toBe(1);
    for (const lang of ['en', 'ja']) {
      const locked = await serve({ 'x-api-key': secret, 'accept-language': lang });
      expect(locked.statusCode).toBe(402);
      expect(locked.json().detail).toEqual({ response: lang === 'en' ? 'Project locked for unpaid invoice.' : '未払いの請求書があるため、プロジェクトはロックされています。', error: 'project_locked' });
    }

    // the owner's statistics: 33 requests; refusals by reason; nothing else
    const s = body(await call('GET', `/api/platform/projects/${id}/statistics`));
    expect(s.total).toBe(33);
    expect(s.refusals).toEqual({ key: 60, locked: 2, input: 2, rate_limit: 0, server: 0 });
    expect(s.refused).toBe(64);
    expect(s.series.reduce((a: number, x: { count: number }) => a + x.count, 0)).toBe(33);
    expect(s.series.reduce((a: number, x: { refused: number }) => a + x.refused, 0)).toBe(64);
    const csv = (await call('GET', `/api/platform/projects/${id}/statistics/download`)).body;
    expect(csv).toContain('\nrefused,key,60,,,\n');
    expect(csv).toContain('\nrefused,locked,2,,,\n');

    // the next period's invoice bills the answered 33 and their serving time, none of the 64 refusals
    const rows = await t.app.ctx.db.selectFrom('platform_request_stats').select(['status', 'count', 'total_ms']).where('project_id', '=', id).execute();
    expect(rows.reduce((a, r) => a + Number(r.count), 0)).toBe(97);
    const servedMs = rows.filter((r) => r.status === 200).reduce((a, r) => a + Number(r.total_ms), 0);
    const refusedMs = rows.filter((r) => r.status !== 200).reduce((a, r) => a + Number(r.total_ms), 0);
    expect(refusedMs).toBeGreaterThan(0);
    const project = await t.app.ctx.db.selectFrom('platform_projects').select('reviewed_at').where('id', '=', id).executeTakeFirstOrThrow();
    const anchor = new Date(new Date(project.reviewed_at!).getTime() + 9 * 3600_000).toISOString().slice(0, 10); // billing days are UTC+9
    clock.set(`${periodStart(anchor, 'monthly', 1)}T12:00:00Z`);
    expect((await svc.sweep()).generated).toBe(1);
    const invoices = body(await call('GET', '/api/billing/invoices')).items as { bill_from: string; lines: { item: string; quantity: number }[] }[];
    const second = invoices.find((i) => i.bill_from === periodStart(anchor, 'monthly', 1))!;
    expect(second.lines.find((l) => l.item === 'requests_over_plan')).toMatchObject({ quantity: 33 });
    expect(second.lines.find((l) => l.item === 'compute_hours')!.quantity).toBe(Math.round((servedMs / 3_600_000) * 1000) / 1000);
    const usage = await t.app.services.platform.usage(id, '2000-01-01T00', '9999-01-01T00');
    expect(usage.requests).toBe(33);
    expect(usage.ms).toBeCloseTo(servedMs, 6);
  }, 900_000);

  it('every refusal carries a stable code and its message in the caller\'s language; no refusal echoes unbounded input', async () => {
    // an invoice the empty wallet cannot pay: 409 with its code
    const inv = body(await call('GET', '/api/billing/invoices?state=overdue')).items[0];
    const short = await call('POST', `/api/billing/invoices/${inv.id}/pay-wallet`, undefined, alice, 'ja');
    expect(short.statusCode).toBe(409);
    expect(short.json().detail.error).toBe('wallet_short');
    expect(short.json().detail.response).toMatch(/^ウォレット残高/);
    // the owner has paid (the payment flow is billing.test's): the lock goes
    await t.app.ctx.db.deleteFrom('billing_locks').where('project_id', '=', id).execute();
    forgetLock(t.app.ctx.db, id);
    expect((await serve({ 'x-api-key': secret })).statusCode).toBe(200);

    const refusal = async (headers: Record<string, string>, payload: string | object, status: number, code: string, ja: RegExp) => {
      const res = await serve({ ...headers, 'accept-language': 'ja' }, payload);
      expect(res.statusCode, `${code}: ${res.body.slice(0, 300)}`).toBe(status);
      const d = res.json().detail;
      if (status === 422) {
        expect(d[0].type).toBe(code);
        expect(d[0].msg).toMatch(ja);
      } else expect(d).toMatchObject({ error: code, response: expect.stringMatching(ja) });
      expect(SERVE_REFUSALS[status as keyof typeof SERVE_REFUSALS].codes as readonly string[]).toContain(code); // documented
      return res;
    };
    await refusal({}, { rows: [ROW] }, 401, 'api_key_missing', /^APIキーが必要です/);
    await refusal({ 'x-api-key': 'mk_live_wrong' }, { rows: [ROW] }, 401, 'api_key_invalid', /^APIキーが無効/);
    await refusal({ 'x-api-key': secret }, 'null', 422, 'serve_bad_body', /^JSON/);
    await refusal({ 'x-api-key': secret }, '{"rows": [', 400, 'invalid_json', /JSON/);
    await refusal({ 'x-api-key': secret, 'content-type': 'application/xml' }, '<rows/>', 415, 'unsupported_media_type', /./);
    await refusal({ 'x-api-key': secret }, { rows: [{ ...ROW, AT: '27 kg' }] }, 422, 'inference_not_numeric', /「27 kg」/);
    const noApi = await t.app.inject({ method: 'POST', url: '/serve/no-such-api/predict', payload: { rows: [ROW] }, headers: { 'x-api-key': secret } });
    expect(noApi.json().detail.error).toBe('api_not_found');

    // a 5 MiB string in a numeric column: refused quoting its first 80 characters
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const big = await refusal({ 'x-api-key': secret }, { rows: [{ ...ROW, V: huge }] }, 422, 'inference_not_numeric', /「V」/);
    expect(big.body.length).toBeLessThan(1000);
    expect(big.json().detail[0].msg).toContain(`「${'x'.repeat(80)}…」`);
    expect(big.json().detail[0].loc).toEqual(['body', 'V']);
    // the serving process's own refusals are cut the same way (a CSV body is read there)
    const bigCsv = await refusal({ 'x-api-key': secret, 'content-type': 'text/csv' }, `AT,V,AP,RH\n8.34,${huge},1010.84,90.01\n`, 422, 'inference_not_numeric', /「V」/);
    expect(bigCsv.body.length).toBeLessThan(1000);
    expect(bigCsv.json().detail[0].msg).toContain(`「${'x'.repeat(80)}…」`);

    // a number sent as text is that number, on both paths: the same answer as the number itself
    const asNumber = body(await serve({ 'x-api-key': secret }, { rows: [ROW] })).predictions[0];
    const asText = await serve({ 'x-api-key': secret }, { rows: [{ AT: '8.34', V: ' 40.77 ', AP: '1.01084e3', RH: 90.01 }] });
    expect(asText.statusCode).toBe(200);
    expect(body(asText).predictions[0]).toEqual(asNumber);
    const csv = await serve({ 'x-api-key': secret, 'content-type': 'text/csv' }, 'AT,V,AP,RH\n"8.34",40.77,1010.84,90.01\n');
    expect(body(csv).predictions[0].predicted_EP).toBeCloseTo(asNumber.predicted_EP, 9);
  }, 300_000);
});

/** Issue 31 §1: per-address and per-key limits answer 429 with Retry-After before any work; they are counted as
 * refusals and never billed. Limits this small (one call, then one more after 100 s) leave nothing to timing. */
describe.each(DATABASES)('hosted API rate limits on %s', (kind) => {
  let t: TestApp;
  const projectId = crypto.randomUUID();
  const projectKey = `limit-${crypto.randomBytes(3).toString('hex')}`;
  const apiKey = `mk_live_${crypto.randomBytes(24).toString('base64url')}`;
  let auth: Record<string, string> = {};

  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false, config: { serveIpRps: 0.01, serveKeyRps: 0.01 } });
    const who = await registerAndLogin(t.app, 'limited');
    auth = who.auth;
    const org = (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', who.email).executeTakeFirstOrThrow()).organisation_id;
    const at = new Date().toISOString();
    await t.app.ctx.db
      .insertInto('platform_projects')
      .values({ id: projectId, organisation_id: org, name: 'Limited', key: projectKey, status: 'running', reason: null, model_project_id: 'p', model_project_name: 'P', model_key: 'm', model_type: 'regression', model_dir: `org/${org}/platform/${projectId}/model`, settings_json: '{}', subscription_price: 0, infrastructure_price: 0, created_by: null, created_at: at, updated_at: at, reviewed_at: at, reviewed_by: null })
      .execute();
    await t.app.ctx.db
      .insertInto('platform_credentials')
      .values({ id: crypto.randomUUID(), organisation_id: org, project_id: projectId, name: 'prod', kind: 'production', prefix: apiKey.slice(0, 16), key_hash: sha256(apiKey), created_by: null, created_at: at, last_used_at: null, revoked_at: null })
      .execute();
  }, 120_000);
  afterAll(async () => t?.close());

  // '5' is no valid body: a call the limits let through is refused 422 before predicting anything
  const serve = (remoteAddress: string, key: string | undefined, lang = 'en') =>
    t.app.inject({ method: 'POST', url: `/serve/${projectKey}/predict`, payload: '5', remoteAddress, headers: { 'content-type': 'application/json', 'accept-language': lang, ...(key ? { 'x-api-key': key } : {}) } });

  it('per address and per key: 429 with Retry-After and a code, counted as refusals, not billed', async () => {
    expect((await serve('10.0.0.1', apiKey)).statusCode).toBe(422); // through both limits
    const byAddress = await serve('10.0.0.1', 'mk_live_other', 'ja');
    expect(byAddress.statusCode).toBe(429);
    expect(Number(byAddress.headers['retry-after'])).toBe(100);
    expect(byAddress.json().detail).toEqual({ response: 'このアドレスからのリクエストが多すぎます（毎秒0.01件まで）。100秒後にもう一度お試しください。', error: 'rate_limited_address' });
    const byKey = await serve('10.0.0.2', apiKey);
    expect(byKey.statusCode).toBe(429);
    expect(byKey.json().detail.error).toBe('rate_limited_key');
    expect(Number(byKey.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await serve('10.0.0.3', 'mk_live_wrong')).statusCode).toBe(401); // another address, another key
    const s = (await t.app.inject({ method: 'GET', url: `/api/platform/projects/${projectId}/statistics`, headers: auth })).json().detail.response;
    expect(s).toMatchObject({ total: 0, refused: 4, refusals: { key: 1, locked: 0, input: 1, rate_limit: 2, server: 0 } });
    expect(await t.app.services.platform.usage(projectId, '2000-01-01T00', '9999-01-01T00')).toEqual({ requests: 0, ms: 0 });
  });
});
