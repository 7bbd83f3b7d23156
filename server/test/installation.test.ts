import crypto from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { billingSettings } from '../src/features/billing/settings.js';
import { settingsFields } from '../src/features/platform/schemas.js';
import { DATABASES, makeTestApp, multipart, registerAndLogin, type TestApp } from './helpers.js';

type Who = Awaited<ReturnType<typeof registerAndLogin>>;
const BANK = { bank_name: 'Mitate Bank', bank_code: '0999', branch_name: 'Head Office', branch_code: '001', account_type: 'organisation', account_number: '1234567', account_holder: 'Mitate K.K.' };

/**
 * Issue 33: on a fresh `npm start` (no MITATE_PLATFORM_ADMINS, no MITATE_BANK_*) the first account is the platform
 * administrator, sets the bank account and the hosted-API review in the app, and approves its own identity.
 */
describe.each(DATABASES)('a fresh installation on %s', (kind) => {
  let t: TestApp;
  let first: Who;
  let second: Who;
  const saved = { ...process.env };
  const call = (method: string, url: string, who: Who, payload?: unknown, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  beforeAll(async () => {
    for (const k of Object.keys(process.env)) if (k === 'MITATE_PLATFORM_ADMINS' || k.startsWith('MITATE_BANK_') || k === 'MITATE_PLATFORM_REVIEW') delete process.env[k];
    t = await makeTestApp(kind, { startJobs: false, config: { firstAccountAdmin: true } });
    first = await registerAndLogin(t.app, 'founder', 'First Works');
    second = await registerAndLogin(t.app, 'later', 'Second Works');
  });
  afterAll(async () => {
    process.env = saved;
    await t.close();
  });

  it('makes the first account the platform administrator, and says so', async () => {
    const mine = body(await call('GET', '/account/api/profile', first));
    expect(mine).toMatchObject({ platform_admin: true, platform_admin_reason: 'first_account' });
    expect(body(await call('GET', '/api/platform/admin/me', first))).toEqual({ platform_admin: true, first_account: true, review_required: true });
    expect(body(await call('GET', '/account/api/profile', second))).toMatchObject({ platform_admin: false, platform_admin_reason: null });
    expect(body(await call('GET', '/api/platform/admin/me', second)).platform_admin).toBe(false);
    expect((await call('GET', '/api/installation/settings', second)).statusCode).toBe(403);
    expect((await call('GET', '/api/services/operations', second)).statusCode).toBe(403);
    expect((await call('GET', '/api/services/operations', first)).statusCode).toBe(200);
    const view = body(await call('GET', '/api/installation/settings', first));
    expect(view).toEqual({ bank_account: null, bank_account_source: null, platform_review: true, platform_review_source: 'environment', administrators: { environment: [], first_account: first.email } });
  });

  it('lets the administrator set the bank account in the app; bad input changes nothing', async () => {
    expect((await call('GET', '/api/billing/payment-info', second)).json().detail.response.bank_account).toBeNull();
    const bad = await call('PUT', '/api/installation/settings', first, { bank_account: { ...BANK, bank_code: '99' }, platform_review: false }, 'ja');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ loc: ['body', 'bank_code'], msg: '銀行コードは4桁の数字です。' });
    expect(body(await call('GET', '/api/installation/settings', first))).toMatchObject({ bank_account: null, platform_review: true });
    expect((await call('PUT', '/api/installation/settings', second, { bank_account: BANK })).statusCode).toBe(403);

    const saved = body(await call('PUT', '/api/installation/settings', first, { bank_account: { ...BANK, bank_name: '  Mitate Bank ' } }));
    expect(saved).toMatchObject({ bank_account: BANK, bank_account_source: 'settings', platform_review: true });
    expect(body(await call('GET', '/api/billing/payment-info', second)).bank_account).toEqual(BANK);
    // the change is in the administrator's audit log (written by an onResponse hook after the answer: waited for)
    await vi.waitFor(
      async () => {
        const log = body(await call('GET', '/api/audit?page=1&page_size=50', first));
        expect(log.items.some((e: { route: string; action: string }) => e.route === '/api/installation/settings' && e.action === 'change')).toBe(true);
      },
      { timeout: 60_000, interval: 100 },
    );
    // null forgets it: the environment's (none here) is in force again
    expect(body(await call('PUT', '/api/installation/settings', first, { bank_account: null }))).toMatchObject({ bank_account: null, bank_account_source: null });
    const config = t.app.ctx.config;
    config.billing = { ...config.billing, bank: billingSettings({ MITATE_BANK_NAME: 'Env Bank', MITATE_BANK_ACCOUNT_NUMBER: '7654321' }).bank };
    expect(body(await call('GET', '/api/installation/settings', first))).toMatchObject({ bank_account: { bank_name: 'Env Bank', account_number: '7654321' }, bank_account_source: 'environment' });
    config.billing = { ...config.billing, bank: null };
  });

  it('lets the first administrator approve its own identity documents', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 40, channels: 3, background: 'white' } }).jpeg().toBuffer();
    const front = multipart({}, { name: 'front.jpg', content: jpeg, field: 'front', type: 'image/jpeg' });
    // two files: build the body by hand from two parts
    const boundary = front.headers['content-type'].split('boundary=')[1];
    const part = (field: string) => Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${field}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`), jpeg, Buffer.from('\r\n')]);
    const payload = Buffer.concat([part('front'), part('back'), Buffer.from(`--${boundary}--\r\n`)]);
    const sent = await t.app.inject({ method: 'POST', url: '/account/api/identity', headers: { ...first.auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
    expect(sent.statusCode).toBeLessThan(300);
    const queue = body(await call('GET', '/account/api/admin/identity', first));
    const mineRow = queue.items.find((x: { email: string }) => x.email === first.email);
    expect(mineRow).toBeDefined();
    expect((await call('POST', `/account/api/admin/identity/${mineRow.id}/review`, second, { decision: 'approve' })).statusCode).toBe(403);
    expect(body(await call('POST', `/account/api/admin/identity/${mineRow.id}/review`, first, { decision: 'approve' })).state).toBe('done');
    expect(body(await call('GET', '/account/api/identity', first)).state).toBe('done');
  });

  it('approves a submitted API at once when the review is switched off (identity verified), else says what to do', async () => {
    expect(body(await call('PUT', '/api/installation/settings', first, { platform_review: false }))).toMatchObject({ platform_review: false, platform_review_source: 'settings' });
    expect(body(await call('GET', '/api/platform/admin/me', second)).review_required).toBe(false);
    const orgOf = async (w: Who) => (await t.app.ctx.db.selectFrom('users').select(['organisation_id', 'id']).where('email', '=', w.email).executeTakeFirstOrThrow());
    const draft = async (w: Who) => {
      const u = await orgOf(w);
      const id = crypto.randomUUID();
      const at = new Date().toISOString();
      await t.app.ctx.db
        .insertInto('platform_projects')
        .values({ id, organisation_id: u.organisation_id, name: 'API', key: `k-${id.slice(0, 8)}`, status: 'draft', reason: null, model_project_id: 'p', model_project_name: 'P', model_key: 'm', model_type: 'regression', model_dir: `org/${u.organisation_id}/platform/${id}/model`, settings_json: JSON.stringify(settingsFields.parse({ content_language: 'en-gb' })), subscription_price: 0, infrastructure_price: 0, created_by: u.id, created_at: at, updated_at: at, reviewed_at: null, reviewed_by: null })
        .execute();
      return id;
    };
    const mine = await draft(first);
    expect(body(await call('POST', `/api/platform/projects/${mine}/submit`, first))).toMatchObject({ status: 'approved', actions: ['start'] });
    // an organisation without a verified identity is told to verify it, and its project stays a draft
    const theirs = await draft(second);
    const refused = await call('POST', `/api/platform/projects/${theirs}/submit`, second, undefined, 'ja');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail.response).toMatch(/本人確認/);
    expect(body(await call('GET', `/api/platform/projects/${theirs}`, second)).status).toBe('draft');
    // switched on again: submission waits for the review
    await call('PUT', '/api/installation/settings', first, { platform_review: true });
    const next = await draft(first);
    expect(body(await call('POST', `/api/platform/projects/${next}/submit`, first)).status).toBe('under_review');
  });

  it('names only MITATE_PLATFORM_ADMINS once it is set', async () => {
    // the app's config holds the setting (read per call): changing it stands for a server started with it set
    t.app.ctx.config.platformAdmins = [second.email.toLowerCase()];
    try {
      expect(body(await call('GET', '/account/api/profile', first))).toMatchObject({ platform_admin: false });
      expect(body(await call('GET', '/account/api/profile', second))).toMatchObject({ platform_admin: true, platform_admin_reason: 'environment' });
    } finally {
      t.app.ctx.config.platformAdmins = [];
    }
  });
});
