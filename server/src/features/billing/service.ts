import crypto from 'node:crypto';
import os from 'node:os';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import type { LocalText } from '../../i18n/messages.js';
import '../account/db.js';
import type { Database } from '../../db/schema.js';
import { type Clock, clockOf } from './clock.js';
import type { BillingInvoiceTable, InvoiceState } from './db.js';
import './db.js';
import { forgetLock } from './lock.js';
import type { HostedProjects } from './hosted.js';
import { M, STATE_WORDS } from './messages.js';
import { billingSettings, type BankAccount, type BillingSettings } from './settings.js';

type Tx = Db; // a transaction has the same query interface

export interface Line {
  item: 'subscription' | 'infrastructure_base' | 'requests_over_plan' | 'compute_hours';
  quantity: number;
  unit_price: number;
  amount: number;
  period_from: string;
  period_to: string;
}

let ledgerSeq = 0;
/** Ledger ids sort in the order rows were written (real time, then a counter), whatever the billing clock says. */
const ledgerId = () => `${String(Date.now()).padStart(14, '0')}-${String(ledgerSeq++ % 1e8).padStart(8, '0')}-${crypto.randomBytes(4).toString('hex')}`;

/** Billing days are calendar days at the display offset (SPEC §9: default UTC+9), so periods match the dates people see. */
const OFFSET_MIN = (() => {
  const v = Number(process.env.MITATE_BILLING_UTC_OFFSET_MIN);
  return process.env.MITATE_BILLING_UTC_OFFSET_MIN && Number.isFinite(v) ? v : 540;
})();
const day = (d: Date) => new Date(d.getTime() + OFFSET_MIN * 60_000).toISOString().slice(0, 10);
const utc = (d: Date) => d.toISOString().slice(0, 10);
/** The UTC hour (as the request statistics store it) in which a billing day starts. */
const dayStartHour = (iso: string) => new Date(new Date(`${iso}T00:00:00Z`).getTime() - OFFSET_MIN * 60_000).toISOString().slice(0, 13);

/** The first day of the `k`-th billing period after `anchor` (a day of month past the month's end is its last day). */
export function periodStart(anchor: string, cycle: 'monthly' | 'yearly', k: number): string {
  const a = new Date(`${anchor.slice(0, 10)}T00:00:00Z`);
  const months = a.getUTCMonth() + k * (cycle === 'yearly' ? 12 : 1);
  const y = a.getUTCFullYear() + Math.floor(months / 12);
  const m = ((months % 12) + 12) % 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return utc(new Date(Date.UTC(y, m, Math.min(a.getUTCDate(), last))));
}
const dayBefore = (iso: string) => utc(new Date(new Date(`${iso}T00:00:00Z`).getTime() - 86400_000));

const dayAfter = (iso: string) => utc(new Date(new Date(`${iso}T00:00:00Z`).getTime() + 86400_000));

/** The organisation's reference for bank transfers: written as the transferor name so the payment is matched. */
export function transferReference(orgId: string): string {
  return `MITATE ${crypto.createHash('sha256').update(orgId).digest('hex').slice(0, 8).toUpperCase()}`;
}

const stateText = (s: string) => STATE_WORDS[s] ?? { en: s, ja: s };
function withState(m: LocalText, state: string): LocalText {
  const w = stateText(state);
  return { ...m, en: m.en.replace('{state}', w.en), ja: m.ja.replace('{state}', w.ja) };
}

/** Billable: approved once and not back in draft or review (approved, running, stopped). */
const BILLABLE = ['approved', 'running', 'stopped'] as const;

/** A hosted API's row, as billing reads it (the platform area's table). */
type BilledProject = Database['platform_projects'];

/**
 * `hosted`: the hosted APIs billed (the platform area's, handed in at start-up). `bank`: the platform bank account in
 * force (the installation area's: stored in the app, else MITATE_BANK_*); without it, the settings' (environment) account.
 */
export function makeBillingService(ctx: AppContext, opts: { hosted: HostedProjects; clock?: Clock; settings?: BillingSettings; bank?: () => Promise<BankAccount | null> }) {
  const { db } = ctx;
  const clock = opts.clock ?? clockOf(ctx);
  const settings = opts.settings ?? billingSettings();
  const bankAccount = opts.bank ?? (async () => settings.bank);
  const { prices } = opts.hosted;
  const server = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  const nowIso = () => clock.now().toISOString();

  async function ledger(tx: Tx, e: { organisation_id: string; invoice_id?: string | null; topup_id?: string | null; kind: string; amount: number; currency: string; actor: string | null; unique_key: string }) {
    await tx
      .insertInto('billing_ledger')
      .values({ id: ledgerId(), invoice_id: null, topup_id: null, ...e, at: nowIso() })
      .execute();
  }

  // ---- generation -----------------------------------------------------------------------------------------

  /** Billed usage of a project in [from, to] (inclusive days): answered predictions only (platform's rule). */
  const usage = (projectId: string, from: string, to: string) => opts.hosted.usage(projectId, dayStartHour(from), dayStartHour(dayAfter(to)));

  /** The invoice of one period: billed in advance (subscription and base infrastructure of this period) plus the
   * metered usage of the period before (requests beyond the plan, compute hours). */
  async function linesFor(p: BilledProject, from: string, to: string, prev: { from: string; to: string } | null): Promise<Line[]> {
    const s = JSON.parse(p.settings_json) as { subscription_type?: string; billing_cycle?: string; expected_requests_per_month?: number };
    const months = s.billing_cycle === 'yearly' ? 12 : 1;
    const lines: Line[] = [
      { item: 'subscription', quantity: 1, unit_price: Number(p.subscription_price), amount: Number(p.subscription_price), period_from: from, period_to: to },
      { item: 'infrastructure_base', quantity: 1, unit_price: Number(p.infrastructure_price), amount: Number(p.infrastructure_price), period_from: from, period_to: to },
    ];
    if (prev) {
      const u = await usage(p.id, prev.from, prev.to);
      const included = Math.max(0, Number(s.expected_requests_per_month ?? 0)) * months;
      const over = Math.max(0, u.requests - included);
      if (over > 0) {
        const unit = prices.infrastructure.per_million_requests;
        lines.push({ item: 'requests_over_plan', quantity: over, unit_price: unit, amount: Math.round((over * unit) / 1_000_000), period_from: prev.from, period_to: prev.to });
      }
      const hours = Math.round((u.ms / 3_600_000) * 1000) / 1000;
      if (u.ms > 0) lines.push({ item: 'compute_hours', quantity: hours, unit_price: settings.computeHourPrice, amount: Math.round((u.ms / 3_600_000) * settings.computeHourPrice), period_from: prev.from, period_to: prev.to });
    }
    return lines;
  }

  async function generateFor(p: BilledProject): Promise<number> {
    const cycle = (JSON.parse(p.settings_json) as { billing_cycle?: string }).billing_cycle === 'yearly' ? 'yearly' : 'monthly';
    const anchor = day(new Date(p.reviewed_at ?? p.created_at));
    const today = day(clock.now());
    let created = 0;
    for (let k = 0; k < 1200; k++) {
      const from = periodStart(anchor, cycle, k);
      if (from > today) break;
      const to = dayBefore(periodStart(anchor, cycle, k + 1));
      const exists = await db.selectFrom('billing_invoices').select('id').where('project_id', '=', p.id).where('bill_from', '=', from).executeTakeFirst();
      if (exists) continue;
      const prev = k > 0 ? { from: periodStart(anchor, cycle, k - 1), to: dayBefore(from) } : null;
      const lines = await linesFor(p, from, to, prev);
      const subscription_fee = lines.filter((l) => l.item === 'subscription').reduce((a, l) => a + l.amount, 0);
      const infrastructure_fee = lines.filter((l) => l.item !== 'subscription').reduce((a, l) => a + l.amount, 0);
      const amount = subscription_fee + infrastructure_fee;
      const id = crypto.randomUUID();
      const at = clock.now();
      const row: BillingInvoiceTable = {
        id,
        number: `INV-${from.slice(0, 7).replace('-', '')}-${id.replace(/-/g, '').slice(0, 6).toUpperCase()}`,
        organisation_id: p.organisation_id,
        project_id: p.id,
        project_name: p.name,
        billing_cycle: cycle,
        subscription_type: (JSON.parse(p.settings_json) as { subscription_type?: string }).subscription_type ?? 'free',
        currency: prices.currency,
        bill_from: from,
        bill_to: to,
        date: at.toISOString(),
        due_date: new Date(at.getTime() + settings.dueDays * 86400_000).toISOString(),
        payment_date: amount === 0 ? at.toISOString() : null,
        subscription_fee,
        infrastructure_fee,
        amount,
        amount_due: amount,
        lines_json: JSON.stringify(lines),
        state: amount === 0 ? 'cleared' : 'billed',
        payment_method: null,
        reported_at: null,
        overdue_at: null,
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      };
      if (amount === 0) row.amount_due = 0;
      try {
        await db.transaction().execute(async (tx) => {
          await tx.insertInto('billing_invoices').values(row).execute();
          await ledger(tx, { organisation_id: p.organisation_id, invoice_id: id, kind: 'invoice_billed', amount, currency: row.currency, actor: null, unique_key: `invoice_billed:${p.id}:${from}` });
        });
        created++;
      } catch (e) {
        // Another server generated the same period at the same moment: the unique period keeps one.
        const again = await db.selectFrom('billing_invoices').select('id').where('project_id', '=', p.id).where('bill_from', '=', from).executeTakeFirst();
        if (!again) throw e;
      }
    }
    return created;
  }

  /** Invoices of every billable project up to today; generating twice creates nothing new. */
  async function generate(orgId?: string): Promise<number> {
    let q = db.selectFrom('platform_projects').selectAll().where('status', 'in', [...BILLABLE]).where('reviewed_at', 'is not', null);
    if (orgId) q = q.where('organisation_id', '=', orgId);
    let n = 0;
    for (const p of await q.execute()) n += await generateFor(p);
    return n;
  }

  /** Unpaid (or unconfirmed) invoices past their due date become overdue and lock their project. */
  async function markOverdue(): Promise<number> {
    const now = nowIso();
    const due = await db
      .selectFrom('billing_invoices')
      .selectAll()
      .where('state', 'in', ['billed', 'pending_confirmation'])
      .where('overdue_at', 'is', null)
      .where('due_date', '<', now)
      .execute();
    let n = 0;
    for (const inv of due) {
      const moved = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('billing_invoices')
          .set({ overdue_at: now, updated_at: now, ...(inv.state === 'billed' ? { state: 'overdue' as const } : {}) })
          .where('id', '=', inv.id)
          .where('state', '=', inv.state)
          .where('overdue_at', 'is', null)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return false;
        await tx.insertInto('billing_locks').values({ invoice_id: inv.id, project_id: inv.project_id, organisation_id: inv.organisation_id, locked_at: now }).execute();
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'overdue', amount: 0, currency: inv.currency, actor: null, unique_key: `overdue:${inv.id}` });
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'project_locked', amount: 0, currency: inv.currency, actor: null, unique_key: `project_locked:${inv.id}` });
        return true;
      });
      if (moved) {
        forgetLock(inv.project_id);
        n++;
      }
    }
    return n;
  }

  async function sweep() {
    const generated = await generate();
    const overdue = await markOverdue();
    return { generated, overdue };
  }

  /**
   * The scheduled sweep: with several servers, the one that inserts this hour's row runs it, the others skip.
   * Each step is safe to repeat anyway (unique periods, state-guarded updates).
   */
  async function scheduledSweep(): Promise<{ ran: boolean; generated: number; overdue: number }> {
    const slot = clock.now().toISOString().slice(0, 13);
    try {
      await db.insertInto('billing_sweeps').values({ slot, server, started_at: new Date().toISOString(), finished_at: null }).execute();
    } catch {
      return { ran: false, generated: 0, overdue: 0 };
    }
    const r = await sweep();
    await db.updateTable('billing_sweeps').set({ finished_at: new Date().toISOString() }).where('slot', '=', slot).execute();
    return { ran: true, ...r };
  }

  // ---- reading --------------------------------------------------------------------------------------------

  async function get(orgId: string, id: string): Promise<BillingInvoiceTable> {
    const row = await db.selectFrom('billing_invoices').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError(404, M.invoiceNotFound);
    return row;
  }

  async function wallet(orgId: string) {
    const w = await db.selectFrom('billing_wallets').selectAll().where('organisation_id', '=', orgId).executeTakeFirst();
    return { balance: Number(w?.balance ?? 0), currency: w?.currency ?? prices.currency };
  }

  function view(r: BillingInvoiceTable) {
    return {
      id: r.id,
      number: r.number,
      name: r.number, // what the breadcrumbs call it
      project_id: r.project_id,
      project_name: r.project_name,
      billing_cycle: r.billing_cycle,
      subscription_type: r.subscription_type,
      currency: r.currency,
      bill_from: r.bill_from,
      bill_to: r.bill_to,
      date: r.date,
      due_date: r.due_date,
      payment_date: r.payment_date,
      subscription_fee: Number(r.subscription_fee),
      infrastructure_fee: Number(r.infrastructure_fee),
      amount: Number(r.amount),
      amount_due: Number(r.amount_due),
      state: r.state,
      payment_method: r.payment_method,
      reported_at: r.reported_at,
      overdue: !!r.overdue_at && r.state !== 'cleared',
      lines: JSON.parse(r.lines_json) as Line[],
    };
  }

  /** SPEC §4: payment is blocked while the organisation's identity is not verified (not done or under review). */
  async function requireIdentity(auth: Pick<AuthContext, 'orgId' | 'userId'>) {
    const rows = await db.selectFrom('identity_verifications').select(['state', 'user_id']).where('organisation_id', '=', auth.orgId).execute();
    if (rows.some((r) => r.state === 'done')) return;
    if (rows.some((r) => r.state === 'under_review')) throw new AppError(409, M.idUnderReview);
    throw new AppError(409, M.verifyIdentity);
  }

  async function identityState(orgId: string): Promise<'done' | 'under_review' | 'not_done'> {
    const rows = await db.selectFrom('identity_verifications').select('state').where('organisation_id', '=', orgId).execute();
    if (rows.some((r) => r.state === 'done')) return 'done';
    if (rows.some((r) => r.state === 'under_review')) return 'under_review';
    return 'not_done';
  }

  /** Clears an invoice inside `tx`: its locks go, so its project is unlocked at once. */
  async function clear(tx: Tx, inv: BillingInvoiceTable, actor: string | null) {
    const locks = await tx.selectFrom('billing_locks').select('project_id').where('invoice_id', '=', inv.id).execute();
    await tx.deleteFrom('billing_locks').where('invoice_id', '=', inv.id).execute();
    if (locks.length) await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'project_unlocked', amount: 0, currency: inv.currency, actor, unique_key: `project_unlocked:${inv.id}` });
  }

  return {
    clock,
    settings,
    bankAccount,
    prices,
    generate,
    markOverdue,
    sweep,
    scheduledSweep,
    get,
    view,
    wallet,
    identityState,

    async list(orgId: string, q: { state: InvoiceState | 'all'; page: number; page_size: number }) {
      let s = db.selectFrom('billing_invoices').where('organisation_id', '=', orgId);
      if (q.state !== 'all') s = s.where('state', '=', q.state);
      const total = Number((await s.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
      const rows = await s.selectAll().orderBy('date', 'desc').orderBy('id').limit(q.page_size).offset((q.page - 1) * q.page_size).execute();
      return { items: rows.map(view), total };
    },

    async detail(orgId: string, id: string) {
      const inv = await get(orgId, id);
      const history = await db.selectFrom('billing_ledger').select(['kind', 'amount', 'currency', 'at']).where('invoice_id', '=', id).orderBy('id').execute();
      const org = await db.selectFrom('organisations').select('name').where('id', '=', orgId).executeTakeFirst();
      return { ...view(inv), organisation_name: org?.name ?? '', transfer_reference: transferReference(orgId), history: history.map((h) => ({ ...h, amount: Number(h.amount) })) };
    },

    /** What the payment steps show: the transfer reference, the platform's bank account, the wallet, the identity state. */
    async paymentInfo(orgId: string) {
      return { transfer_reference: transferReference(orgId), bank_account: await bankAccount(), wallet: await wallet(orgId), identity: await identityState(orgId) };
    },

    /** 'Transfer completed': billed or overdue → pending confirmation (once, even when sent twice at once). */
    async transferCompleted(auth: AuthContext, id: string) {
      const inv = await get(auth.orgId, id); // another organisation's invoice: 404 before anything else
      await requireIdentity(auth);
      if (!(await bankAccount())) throw new AppError(409, M.bankNotConfigured);
      if (inv.state !== 'billed' && inv.state !== 'overdue') throw new AppError(409, withState(M.notPayable, inv.state));
      const at = nowIso();
      const ok = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('billing_invoices')
          .set({ state: 'pending_confirmation', payment_method: 'bank_transfer', reported_at: at, updated_at: at })
          .where('id', '=', inv.id)
          .where('state', 'in', ['billed', 'overdue'])
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return false;
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'transfer_reported', amount: Number(inv.amount_due), currency: inv.currency, actor: auth.userId, unique_key: `transfer_reported:${inv.id}:${at}:${crypto.randomUUID()}` });
        return true;
      });
      const now = await get(auth.orgId, id);
      if (!ok) throw new AppError(409, withState(M.notPayable, now.state));
      return view(now);
    },

    /** Pays from the wallet at once when the balance covers the amount due (one debit, even when sent twice at once). */
    async payByWallet(auth: AuthContext, id: string) {
      const inv = await get(auth.orgId, id); // another organisation's invoice: 404 before anything else
      await requireIdentity(auth);
      if (inv.state !== 'billed' && inv.state !== 'overdue') throw new AppError(409, withState(M.notPayable, inv.state));
      const due = Number(inv.amount_due);
      const at = nowIso();
      const outcome = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('billing_invoices')
          .set({ state: 'cleared', payment_method: 'wallet', payment_date: at, amount_due: 0, updated_at: at })
          .where('id', '=', inv.id)
          .where('state', 'in', ['billed', 'overdue'])
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return 'taken' as const;
        const debit = await tx
          .updateTable('billing_wallets')
          .set((eb) => ({ balance: eb('balance', '-', due), updated_at: at }))
          .where('organisation_id', '=', inv.organisation_id)
          .where('balance', '>=', due)
          .executeTakeFirst();
        if (Number(debit.numUpdatedRows) !== 1) throw new WalletShort();
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'wallet_debit', amount: -due, currency: inv.currency, actor: auth.userId, unique_key: `wallet_debit:${inv.id}` });
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'payment_confirmed', amount: due, currency: inv.currency, actor: auth.userId, unique_key: `payment_confirmed:${inv.id}` });
        await clear(tx, inv, auth.userId);
        return 'paid' as const;
      }).catch(async (e) => {
        if (!(e instanceof WalletShort)) throw e;
        const w = await wallet(auth.orgId);
        throw new AppError(409, M.walletShort, { balance: w.balance, due });
      });
      forgetLock(inv.project_id);
      const now = await get(auth.orgId, id);
      if (outcome !== 'paid') throw new AppError(409, withState(M.notPayable, now.state));
      return view(now);
    },

    async walletView(orgId: string) {
      const topups = await db.selectFrom('billing_topups').selectAll().where('organisation_id', '=', orgId).orderBy('reported_at', 'desc').limit(100).execute();
      const entries = await db
        .selectFrom('billing_ledger')
        .select(['kind', 'amount', 'currency', 'at', 'invoice_id', 'topup_id'])
        .where('organisation_id', '=', orgId)
        .where('kind', 'in', ['wallet_debit', 'topup_confirmed'])
        .orderBy('id', 'desc')
        .limit(100)
        .execute();
      return {
        ...(await wallet(orgId)),
        transfer_reference: transferReference(orgId),
        bank_account: await bankAccount(),
        identity: await identityState(orgId),
        topups: topups.map((t) => ({ id: t.id, amount: Number(t.amount), currency: t.currency, state: t.state, reported_at: t.reported_at, confirmed_at: t.confirmed_at })),
        entries: entries.map((e) => ({ ...e, amount: Number(e.amount) })),
      };
    },

    /** A top-up by bank transfer, reported as sent: waits for a platform administrator's confirmation. */
    async reportTopup(auth: AuthContext, amount: number) {
      await requireIdentity(auth);
      if (!(await bankAccount())) throw new AppError(409, M.bankNotConfigured);
      if (!Number.isInteger(amount) || amount < 1 || amount > settings.maxTopup) throw new AppError(422, M.topupAmount, { max: settings.maxTopup }, 'amount');
      const id = crypto.randomUUID();
      const at = nowIso();
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('billing_topups').values({ id, organisation_id: auth.orgId, amount, currency: prices.currency, state: 'pending_confirmation', reported_by: auth.userId, reported_at: at, confirmed_at: null, confirmed_by: null }).execute();
        await ledger(tx, { organisation_id: auth.orgId, topup_id: id, kind: 'topup_reported', amount, currency: prices.currency, actor: auth.userId, unique_key: `topup_reported:${id}` });
      });
      return { id, amount, currency: prices.currency, state: 'pending_confirmation' as const, reported_at: at, confirmed_at: null };
    },

    async lockOf(orgId: string, projectId: string) {
      await opts.hosted.get({ orgId }, projectId); // 404 for another organisation's project: not ours to describe
      const rows = await db
        .selectFrom('billing_locks as l')
        .innerJoin('billing_invoices as i', 'i.id', 'l.invoice_id')
        .select(['i.id', 'i.number', 'i.state', 'l.locked_at'])
        .where('l.organisation_id', '=', orgId)
        .where('l.project_id', '=', projectId)
        .execute();
      return { locked: rows.length > 0, invoices: rows };
    },

    // ---- platform administrators ----------------------------------------------------------------------

    async pending() {
      const invoices = await db
        .selectFrom('billing_invoices as i')
        .innerJoin('organisations as o', 'o.id', 'i.organisation_id')
        .selectAll('i')
        .select('o.name as organisation_name')
        .where('i.state', '=', 'pending_confirmation')
        .orderBy('i.reported_at')
        .execute();
      const topups = await db
        .selectFrom('billing_topups as t')
        .innerJoin('organisations as o', 'o.id', 't.organisation_id')
        .selectAll('t')
        .select('o.name as organisation_name')
        .where('t.state', '=', 'pending_confirmation')
        .orderBy('t.reported_at')
        .execute();
      return {
        invoices: invoices.map((i) => ({ ...view(i), organisation_name: i.organisation_name, transfer_reference: transferReference(i.organisation_id) })),
        topups: topups.map((t) => ({ id: t.id, amount: Number(t.amount), currency: t.currency, state: t.state, reported_at: t.reported_at, confirmed_at: t.confirmed_at, organisation_name: t.organisation_name, transfer_reference: transferReference(t.organisation_id) })),
      };
    },

    /** The transfer arrived: pending confirmation → cleared, its project unlocked at once. Or it did not: back. */
    async decideInvoice(adminId: string, id: string, decision: 'confirm' | 'return') {
      const inv = await db.selectFrom('billing_invoices').selectAll().where('id', '=', id).executeTakeFirst();
      if (!inv) throw new AppError(404, M.invoiceNotFound);
      if (inv.state !== 'pending_confirmation') throw new AppError(409, withState(M.notPending, inv.state));
      const at = nowIso();
      const done = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('billing_invoices')
          .set(
            decision === 'confirm'
              ? { state: 'cleared', payment_date: at, amount_due: 0, updated_at: at }
              : { state: inv.overdue_at ? 'overdue' : 'billed', payment_method: null, reported_at: null, updated_at: at },
          )
          .where('id', '=', id)
          .where('state', '=', 'pending_confirmation')
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return false;
        if (decision === 'confirm') {
          await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: id, kind: 'payment_confirmed', amount: Number(inv.amount_due), currency: inv.currency, actor: adminId, unique_key: `payment_confirmed:${id}` });
          await clear(tx, inv, adminId);
        } else {
          await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: id, kind: 'transfer_returned', amount: 0, currency: inv.currency, actor: adminId, unique_key: `transfer_returned:${id}:${at}:${crypto.randomUUID()}` });
        }
        return true;
      });
      forgetLock(inv.project_id);
      const now = await db.selectFrom('billing_invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      if (!done) throw new AppError(409, withState(M.notPending, now.state));
      return view(now);
    },

    /** A top-up transfer arrived: the wallet is credited once. */
    async decideTopup(adminId: string, id: string, decision: 'confirm' | 'return') {
      const t = await db.selectFrom('billing_topups').selectAll().where('id', '=', id).executeTakeFirst();
      if (!t) throw new AppError(404, M.topupNotFound);
      if (t.state !== 'pending_confirmation') throw new AppError(409, withState(M.notPending, t.state));
      const at = nowIso();
      const done = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('billing_topups')
          .set({ state: decision === 'confirm' ? 'cleared' : 'rejected', confirmed_at: at, confirmed_by: adminId })
          .where('id', '=', id)
          .where('state', '=', 'pending_confirmation')
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return false;
        if (decision === 'confirm') {
          await tx.insertInto('billing_wallets').values({ organisation_id: t.organisation_id, currency: t.currency, balance: 0, updated_at: at }).onConflict((oc) => oc.column('organisation_id').doNothing()).execute();
          await tx
            .updateTable('billing_wallets')
            .set((eb) => ({ balance: eb('balance', '+', Number(t.amount)), updated_at: at }))
            .where('organisation_id', '=', t.organisation_id)
            .execute();
          await ledger(tx, { organisation_id: t.organisation_id, topup_id: id, kind: 'topup_confirmed', amount: Number(t.amount), currency: t.currency, actor: adminId, unique_key: `topup_confirmed:${id}` });
        } else {
          await ledger(tx, { organisation_id: t.organisation_id, topup_id: id, kind: 'topup_returned', amount: 0, currency: t.currency, actor: adminId, unique_key: `topup_returned:${id}` });
        }
        return true;
      });
      const now = await db.selectFrom('billing_topups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      if (!done) throw new AppError(409, withState(M.notPending, now.state));
      return { id: now.id, amount: Number(now.amount), currency: now.currency, state: now.state, reported_at: now.reported_at, confirmed_at: now.confirmed_at };
    },
  };
}

class WalletShort extends Error {}

export type BillingService = ReturnType<typeof makeBillingService>;
