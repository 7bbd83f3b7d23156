import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { sha256 } from '../src/auth/tokens.js';
import { clockOf } from '../src/features/billing/clock.js';
import { projectLocked } from '../src/features/billing/lock.js';
import { makeBillingService } from '../src/features/billing/service.js';
import { periodStart, transferReference } from '../src/features/billing/terms.js';
import { pdfPages } from './pdf-text.js';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';
import { hostedForBilling } from '../src/services.js';

const ADMIN = `billing.admin.${crypto.randomBytes(3).toString('hex')}@example.com`;
const BANK = {
  MITATE_BANK_NAME: 'Mitate Bank',
  MITATE_BANK_CODE: '0999',
  MITATE_BANK_BRANCH_NAME: 'Head Office',
  MITATE_BANK_BRANCH_CODE: '001',
  MITATE_BANK_ACCOUNT_TYPE: 'organisation',
  MITATE_BANK_ACCOUNT_NUMBER: '1234567',
  MITATE_BANK_ACCOUNT_HOLDER: 'Mitate K.K.',
};
const SETTINGS = { subscription_type: 'standard', billing_cycle: 'monthly', expected_requests_per_month: 1000, cpu_cores: 1, memory_gb: 1, gpu_gb: 0, auto_scaling: false, content_language: 'ja' };

type Who = Awaited<ReturnType<typeof registerAndLogin>>;

/** Invoices and payments (issue 14): generation, every transition, locking, payments, tenancy, concurrency. */
describe.each(DATABASES)('invoices and payments on %s', (kind) => {
  let t: TestApp;
  let alice: Who;
  let bob: Who;
  let carol: Who;
  let admin: Who;
  let viewer: { auth: Record<string, string> };
  let aliceOrg = '';
  const projectId = crypto.randomUUID();
  const projectKey = `billing-${crypto.randomBytes(3).toString('hex')}`;
  const apiKey = `mk_live_${crypto.randomBytes(24).toString('base64url')}`;

  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  // '5' is no valid body: an unlocked project answers 422 before predicting anything, a locked one 402 first.
  const serve = (lang = 'en') =>
    t.app.inject({ method: 'POST', url: `/serve/${projectKey}/predict`, payload: '5', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'accept-language': lang } });
  const orgOf = async (email: string) => (await t.app.ctx.db.selectFrom('users').select('organisation_id').where('email', '=', email).executeTakeFirstOrThrow()).organisation_id;
  const identity = async (email: string, state: 'done' | 'under_review') =>
    t.app.ctx.db
      .insertInto('identity_verifications')
      .values({
        id: crypto.randomUUID(),
        organisation_id: await orgOf(email),
        user_id: (await t.app.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id,
        state,
        front_key: 'x',
        back_key: 'y',
        reason: null,
        submitted_at: new Date().toISOString(),
        reviewed_at: null,
        reviewed_by: null,
      })
      .execute();
  const ledgerCount = async (kindName: string, invoiceId?: string) => {
    let q = t.app.ctx.db.selectFrom('billing_ledger').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', kindName);
    if (invoiceId) q = q.where('invoice_id', '=', invoiceId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  const sweep = () => makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity }).sweep();
  const clock = () => clockOf(t.app.ctx);

  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = ADMIN;
    process.env.MITATE_BILLING_SWEEP = '0'; // the tests run the sweep themselves, with the clock where they want it
    Object.assign(process.env, BANK);
    t = await makeTestApp(kind, { startJobs: false }); // no engine job here: no worker to start
    alice = await registerAndLogin(t.app, 'payer', 'Kobe Power');
    bob = await registerAndLogin(t.app, 'other', 'Other Org');
    carol = await registerAndLogin(t.app, 'unverified', 'Unverified Org');
    const reg = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: ADMIN, password: STRONG_PASSWORD, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Platform' } });
    expect(reg.statusCode).toBe(201);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: ADMIN, password: STRONG_PASSWORD } });
    admin = { email: ADMIN, tokens: login.json().detail.response, auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    aliceOrg = await orgOf(alice.email);
    const v = await registerAndLogin(t.app, 'viewer', 'Elsewhere');
    await t.app.ctx.db.updateTable('users').set({ organisation_id: aliceOrg, role: 'viewer' }).where('email', '=', v.email).execute();
    const vl = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: v.email, password: STRONG_PASSWORD } });
    viewer = { auth: { authorization: `Bearer ${vl.json().detail.response.access_token}` } };
    await identity(alice.email, 'done');
    await identity(bob.email, 'done');
    // A running hosted API of alice's organisation, approved on 10 January 2026, with one production key.
    const at = '2026-01-10T09:00:00.000Z';
    await t.app.ctx.db
      .insertInto('platform_projects')
      .values({
        id: projectId,
        organisation_id: aliceOrg,
        name: '発電量API',
        key: projectKey,
        status: 'running',
        reason: null,
        model_project_id: 'p',
        model_project_name: 'Power',
        model_key: 'm',
        model_type: 'regression',
        model_dir: `org/${aliceOrg}/platform/${projectId}/model`,
        settings_json: JSON.stringify(SETTINGS),
        subscription_price: 9800,
        infrastructure_price: 6100,
        created_by: null,
        created_at: at,
        updated_at: at,
        reviewed_at: at,
        reviewed_by: null,
      })
      .execute();
    await t.app.ctx.db
      .insertInto('platform_credentials')
      .values({ id: crypto.randomUUID(), organisation_id: aliceOrg, project_id: projectId, name: 'prod', kind: 'production', prefix: apiKey.slice(0, 16), key_hash: sha256(apiKey), created_by: null, created_at: at, last_used_at: null, revoked_at: null })
      .execute();
  }, 900_000);
  afterAll(async () => {
    await t?.close();
    for (const k of Object.keys(BANK)) delete process.env[k];
    delete process.env.MITATE_BILLING_SWEEP;
  });

  it('periods follow the approval day (month ends clamp), yearly cycles twelve months', () => {
    expect(periodStart('2026-01-10', 'monthly', 0)).toBe('2026-01-10');
    expect(periodStart('2026-01-10', 'monthly', 1)).toBe('2026-02-10');
    expect(periodStart('2026-01-31', 'monthly', 1)).toBe('2026-02-28');
    expect(periodStart('2026-01-31', 'monthly', 12)).toBe('2027-01-31');
    expect(periodStart('2026-03-05', 'yearly', 1)).toBe('2027-03-05');
  });

  let first = '';
  it('generates the invoice of the current period once (idempotent), in integer minor units, with its line items', async () => {
    clock().set('2026-01-10T12:00:00Z');
    expect((await sweep()).generated).toBe(1);
    expect((await sweep()).generated).toBe(0);
    expect((await makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity }).generate()).valueOf()).toBe(0);
    const list = body(await call('GET', '/api/billing/invoices'));
    expect(list.total).toBe(1);
    const inv = list.items[0];
    first = inv.id;
    expect(inv).toMatchObject({ state: 'billed', bill_from: '2026-01-10', bill_to: '2026-02-09', subscription_fee: 9800, infrastructure_fee: 6100, amount: 15900, amount_due: 15900, currency: 'JPY', payment_date: null, overdue: false });
    expect(inv.due_date).toBe('2026-01-24T12:00:00.000Z');
    expect(inv.lines.map((l: { item: string }) => l.item)).toEqual(['subscription', 'infrastructure_base']);
    expect(await ledgerCount('invoice_billed', first)).toBe(1);
  });

  it('the list filters by state (all, billed, pending confirmation, cleared, overdue); a bad state is 422', async () => {
    expect(body(await call('GET', '/api/billing/invoices?state=billed')).total).toBe(1);
    for (const s of ['pending_confirmation', 'cleared', 'overdue']) expect(body(await call('GET', `/api/billing/invoices?state=${s}`)).total).toBe(0);
    expect((await call('GET', '/api/billing/invoices?state=paid')).statusCode).toBe(422);
  });

  it("another organisation's invoice is 404 for every call; its list is empty; viewers never pay (403)", async () => {
    expect(body(await call('GET', '/api/billing/invoices', undefined, bob)).total).toBe(0);
    expect((await call('GET', `/api/billing/invoices/${first}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/billing/invoices/${first}/transfer-completed`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/billing/invoices/${first}/pay-wallet`, undefined, bob)).statusCode).toBe(404);
    expect((await call('GET', `/api/billing/projects/${projectId}/lock`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/billing/invoices/${first}/transfer-completed`, undefined, viewer)).statusCode).toBe(403);
    expect((await call('GET', `/api/billing/invoices/${first}`, undefined, viewer)).statusCode).toBe(200);
    expect((await call('GET', '/api/billing/admin/pending')).statusCode).toBe(403);
    expect((await call('POST', `/api/billing/admin/invoices/${first}/decision`, { decision: 'confirm' })).statusCode).toBe(403);
  });

  it('payment is blocked while identity verification is not done or under review (SPEC §8 texts, both languages)', async () => {
    const svc = makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity });
    const carolOrg = await orgOf(carol.email);
    const res = await call('POST', '/api/billing/wallet/topups', { amount: 1000 }, carol);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail.response).toBe('Verify identity before paying.');
    expect((await call('POST', '/api/billing/wallet/topups', { amount: 1000 }, carol, 'ja')).json().detail.response).toBe('お支払いの前に本人確認を行ってください。');
    await identity(carol.email, 'under_review');
    expect((await call('POST', '/api/billing/wallet/topups', { amount: 1000 }, carol)).json().detail.response).toBe('ID under review.');
    expect(await svc.identityState(carolOrg)).toBe('under_review');
    expect(body(await call('GET', '/api/billing/payment-info', undefined, carol)).identity).toBe('under_review');
  });

  it('clock: billed → overdue → project locked (402) → transfer completed → pending → confirmed → cleared → unlocked', async () => {
    expect((await serve()).statusCode).toBe(422); // not locked yet
    clock().set('2026-01-24T11:59:00Z');
    expect((await sweep()).overdue).toBe(0);
    clock().set('2026-01-24T12:01:00Z');
    expect((await sweep()).overdue).toBe(1);
    expect((await sweep()).overdue).toBe(0);
    const inv = body(await call('GET', `/api/billing/invoices/${first}`));
    expect(inv).toMatchObject({ state: 'overdue', overdue: true });
    expect(body(await call('GET', '/api/billing/invoices?state=overdue')).total).toBe(1);
    const locked = await serve();
    expect(locked.statusCode).toBe(402);
    expect(locked.json().detail.response).toBe('Project locked for unpaid invoice.');
    expect((await serve('ja')).json().detail.response).toBe('未払いの請求書があるため、プロジェクトはロックされています。');
    expect(body(await call('GET', `/api/billing/projects/${projectId}/lock`))).toMatchObject({ locked: true, invoices: [{ id: first }] });

    // 'transfer completed' sent twice at once: one moves it, the other is refused; one ledger row
    const [a, b] = await Promise.all([call('POST', `/api/billing/invoices/${first}/transfer-completed`), call('POST', `/api/billing/invoices/${first}/transfer-completed`)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    expect(await ledgerCount('transfer_reported', first)).toBe(1);
    expect(body(await call('GET', `/api/billing/invoices/${first}`))).toMatchObject({ state: 'pending_confirmation', payment_method: 'bank_transfer' });
    expect((await serve()).statusCode).toBe(402); // still locked until confirmed

    // the administrator sees it with the organisation's transfer reference, returns it once, then confirms
    const pending = body(await call('GET', '/api/billing/admin/pending', undefined, admin));
    expect(pending.invoices.map((i: { id: string }) => i.id)).toContain(first);
    expect(pending.invoices.find((i: { id: string }) => i.id === first).transfer_reference).toBe(transferReference(aliceOrg));
    expect(body(await call('POST', `/api/billing/admin/invoices/${first}/decision`, { decision: 'return' }, admin)).state).toBe('overdue');
    expect((await call('POST', `/api/billing/admin/invoices/${first}/decision`, { decision: 'confirm' }, admin)).statusCode).toBe(409);
    expect((await call('POST', `/api/billing/invoices/${first}/transfer-completed`)).statusCode).toBe(200);
    const [c1, c2] = await Promise.all([
      call('POST', `/api/billing/admin/invoices/${first}/decision`, { decision: 'confirm' }, admin),
      call('POST', `/api/billing/admin/invoices/${first}/decision`, { decision: 'confirm' }, admin),
    ]);
    expect([c1.statusCode, c2.statusCode].sort()).toEqual([200, 409]);
    expect(await ledgerCount('payment_confirmed', first)).toBe(1);
    const cleared = body(await call('GET', `/api/billing/invoices/${first}`));
    expect(cleared).toMatchObject({ state: 'cleared', amount_due: 0, overdue: false, payment_date: '2026-01-24T12:01:00.000Z' });
    expect(cleared.history.map((h: { kind: string }) => h.kind)).toEqual(['invoice_billed', 'overdue', 'project_locked', 'transfer_reported', 'transfer_returned', 'transfer_reported', 'payment_confirmed', 'project_unlocked']);
    // unlocked at once
    expect(await projectLocked(t.app.ctx.db, projectId)).toBe(false);
    expect((await serve()).statusCode).toBe(422);
    expect(body(await call('GET', `/api/billing/projects/${projectId}/lock`)).locked).toBe(false);
    // a cleared invoice cannot be paid again
    expect((await call('POST', `/api/billing/invoices/${first}/transfer-completed`)).statusCode).toBe(409);
    expect((await call('POST', `/api/billing/invoices/${first}/pay-wallet`)).statusCode).toBe(409);
  });

  it('the next period bills the metered usage of the period before (requests over the plan, compute hours)', async () => {
    await t.app.ctx.db
      .insertInto('platform_request_stats')
      .values({ id: crypto.randomUUID(), organisation_id: aliceOrg, project_id: projectId, hour: '2026-01-20T10', path: `/serve/${projectKey}/predict`, status: 200, device: 'desktop', browser: 'x', os: 'y', count: 2_001_000, total_ms: 7_200_000 })
      .execute();
    clock().set('2026-02-10T00:30:00Z');
    expect((await sweep()).generated).toBe(1);
    const second = body(await call('GET', '/api/billing/invoices?state=billed')).items[0];
    expect(second.bill_from).toBe('2026-02-10');
    const over = second.lines.find((l: { item: string }) => l.item === 'requests_over_plan');
    expect(over).toMatchObject({ quantity: 2_000_000, unit_price: 1500, amount: 3000, period_from: '2026-01-10', period_to: '2026-02-09' });
    expect(second.lines.find((l: { item: string }) => l.item === 'compute_hours')).toMatchObject({ quantity: 2, amount: 2 * t.app.ctx.config.billing.computeHourPrice });
    expect(second.infrastructure_fee).toBe(6100 + 3000 + 2 * t.app.ctx.config.billing.computeHourPrice);
    expect(second.amount).toBe(second.subscription_fee + second.infrastructure_fee);
  });

  it('wallet: a top-up by transfer is confirmed once; the wallet pays at once when enough; a double debit never happens', async () => {
    const inv = body(await call('GET', '/api/billing/invoices?state=billed')).items[0];
    const short = await call('POST', `/api/billing/invoices/${inv.id}/pay-wallet`);
    expect(short.statusCode).toBe(409);
    expect(short.json().detail.response).toMatch(/wallet balance \(0\)/);
    expect((await call('POST', '/api/billing/wallet/topups', { amount: 0 })).statusCode).toBe(422);
    expect((await call('POST', '/api/billing/wallet/topups', { amount: 12.5 })).statusCode).toBe(422);
    const top = await call('POST', '/api/billing/wallet/topups', { amount: inv.amount_due + 500 });
    expect(top.statusCode).toBe(201);
    const topup = body(top);
    expect(body(await call('GET', '/api/billing/wallet')).balance).toBe(0); // not before confirmation
    expect((await call('POST', `/api/billing/admin/topups/${topup.id}/decision`, { decision: 'confirm' })).statusCode).toBe(403);
    const [d1, d2] = await Promise.all([
      call('POST', `/api/billing/admin/topups/${topup.id}/decision`, { decision: 'confirm' }, admin),
      call('POST', `/api/billing/admin/topups/${topup.id}/decision`, { decision: 'confirm' }, admin),
    ]);
    expect([d1.statusCode, d2.statusCode].sort()).toEqual([200, 409]);
    expect(body(await call('GET', '/api/billing/wallet')).balance).toBe(inv.amount_due + 500);

    const [p1, p2] = await Promise.all([call('POST', `/api/billing/invoices/${inv.id}/pay-wallet`), call('POST', `/api/billing/invoices/${inv.id}/pay-wallet`)]);
    expect([p1.statusCode, p2.statusCode].sort()).toEqual([200, 409]);
    expect(await ledgerCount('wallet_debit', inv.id)).toBe(1);
    const w = body(await call('GET', '/api/billing/wallet'));
    expect(w.balance).toBe(500);
    expect(w.entries.map((e: { kind: string }) => e.kind)).toEqual(['wallet_debit', 'topup_confirmed']);
    expect(body(await call('GET', `/api/billing/invoices/${inv.id}`))).toMatchObject({ state: 'cleared', payment_method: 'wallet', amount_due: 0 });
    // the ledger sums to what happened: billed 2 invoices, confirmed 2 payments
    const rows = await t.app.ctx.db.selectFrom('billing_ledger').select(['kind', 'amount']).where('organisation_id', '=', aliceOrg).execute();
    const sum = (k: string) => rows.filter((r) => r.kind === k).reduce((a, r) => a + Number(r.amount), 0);
    expect(sum('invoice_billed')).toBe(sum('payment_confirmed'));
    expect(sum('topup_confirmed') + sum('wallet_debit')).toBe(500);
  });

  it('two invoices paid from a wallet holding enough for one: exactly one is paid', async () => {
    // two more periods; the wallet holds 500 + one invoice's amount
    clock().set('2026-04-10T01:00:00Z');
    expect((await sweep()).generated).toBe(2);
    const billed = body(await call('GET', '/api/billing/invoices?state=billed')).items;
    expect(billed).toHaveLength(2);
    const need = Math.max(...billed.map((i: { amount_due: number }) => i.amount_due));
    const top = body(await call('POST', '/api/billing/wallet/topups', { amount: need }));
    await call('POST', `/api/billing/admin/topups/${top.id}/decision`, { decision: 'confirm' }, admin);
    const balance = body(await call('GET', '/api/billing/wallet')).balance;
    expect(balance).toBeLessThan(billed[0].amount_due + billed[1].amount_due);
    const res = await Promise.all(billed.map((i: { id: string }) => call('POST', `/api/billing/invoices/${i.id}/pay-wallet`)));
    expect(res.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const paid = billed[res.findIndex((r) => r.statusCode === 200)];
    expect(body(await call('GET', '/api/billing/wallet')).balance).toBe(balance - paid.amount_due);
  });

  it('the scheduled sweep runs on one server only per hour (a unique row decides)', async () => {
    clock().set('2026-04-10T05:10:00Z');
    const a = makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity });
    const b = makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity });
    const runs = await Promise.all([a.scheduledSweep(), b.scheduledSweep(), a.scheduledSweep()]);
    expect(runs.filter((r) => r.ran)).toHaveLength(1);
    clock().set('2026-04-10T06:00:00Z');
    expect((await b.scheduledSweep()).ran).toBe(true);
  });

  it('the invoice PDF is a real PDF of the page\'s data, Japanese text read back with pdftotext; another organisation 404', async () => {
    const inv = body(await call('GET', '/api/billing/invoices?state=billed')).items[0];
    const ja = await call('GET', `/api/billing/invoices/${inv.id}/pdf?lang=ja`);
    expect(ja.statusCode).toBe(200);
    expect(ja.headers['content-type']).toBe('application/pdf');
    expect(ja.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfPages(ja.rawPayload).join('\n');
    for (const s of ['請求書', inv.number, '発電量API', 'Kobe Power', '明細', 'サブスクリプション', 'インフラ（基本）', '合計', 'お振込先', 'Mitate Bank', transferReference(aliceOrg), '2026-04-10']) expect(text).toContain(s);
    expect(text).toContain(`￥${inv.amount.toLocaleString('en')}`);
    const en = pdfPages((await call('GET', `/api/billing/invoices/${inv.id}/pdf`, undefined, alice, 'en')).rawPayload).join('\n');
    for (const s of ['Invoice', 'Line items', 'Subscription', 'Total', 'Amount due', 'Bank transfer']) expect(en).toContain(s);
    expect((await call('GET', `/api/billing/invoices/${inv.id}/pdf`, undefined, bob)).statusCode).toBe(404);
  });

  it('payment info: the platform bank account from the settings and the transfer reference; none configured → transfer refused', async () => {
    const info = body(await call('GET', '/api/billing/payment-info'));
    expect(info.bank_account).toMatchObject({ bank_name: 'Mitate Bank', bank_code: '0999', branch_name: 'Head Office', branch_code: '001', account_type: 'organisation', account_number: '1234567' });
    expect(info.transfer_reference).toMatch(/^MITATE [0-9A-F]{8}$/);
    const svc = makeBillingService(t.app.ctx, { hosted: hostedForBilling(t.app.services.platform), organisationNames: t.app.services.account.users.organisationNames, identity: t.app.services.identity, settings: { ...t.app.ctx.config.billing, bank: null } });
    const billed = body(await call('GET', '/api/billing/invoices?state=billed')).items[0];
    const orgUser = await t.app.ctx.db.selectFrom('users').select(['id', 'organisation_id', 'role', 'email']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    await expect(svc.transferCompleted({ userId: orgUser.id, orgId: orgUser.organisation_id, role: orgUser.role, email: orgUser.email }, billed.id)).rejects.toMatchObject({ status: 409 });
  });

  it('billing days are calendar days at UTC+9: an API approved at 20:00 UTC on 31 January starts its period on 1 February', async () => {
    const bobOrg = await orgOf(bob.email);
    const id = crypto.randomUUID();
    const at = '2026-01-31T20:00:00.000Z';
    await t.app.ctx.db
      .insertInto('platform_projects')
      .values({ id, organisation_id: bobOrg, name: 'Night API', key: `night-${crypto.randomBytes(3).toString('hex')}`, status: 'stopped', reason: null, model_project_id: 'p', model_project_name: 'P', model_key: 'm', model_type: 'regression', model_dir: 'x', settings_json: JSON.stringify(SETTINGS), subscription_price: 100, infrastructure_price: 200, created_by: null, created_at: at, updated_at: at, reviewed_at: at, reviewed_by: null })
      .execute();
    clock().set('2026-01-31T21:00:00Z');
    await sweep();
    const inv = body(await call('GET', '/api/billing/invoices', undefined, bob)).items;
    expect(inv).toHaveLength(1);
    expect(inv[0]).toMatchObject({ bill_from: '2026-02-01', bill_to: '2026-02-28', amount: 300 });
  });
});
