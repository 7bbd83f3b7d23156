import type { Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { BillingInvoiceTable, BillingLedgerTable, BillingLockTable, BillingSweepTable, BillingTopupTable, InvoiceState } from './db.js';
import './db.js';

/**
 * Every statement on billing's tables: invoices, ledger, wallets, top-ups, locks, sweeps. Each takes the executor
 * first, so a caller may pass a transaction. Queries take the organisation, except those across organisations by
 * design: the sweep, serving's lock check and the platform administrators' review.
 */

// ---- invoices -------------------------------------------------------------------------------------------------

export const invoice = (q: Db, orgId: string, id: string) =>
  q.selectFrom('billing_invoices').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();

/** Across organisations: the platform administrators' review. */
export const invoiceById = (q: Db, id: string) => q.selectFrom('billing_invoices').selectAll().where('id', '=', id).executeTakeFirst();

/** The same, re-read after a decision: invoices are never deleted, so it is there. */
export const invoiceByIdAfter = (q: Db, id: string) => q.selectFrom('billing_invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Invoices of the organisation (one state or all), newest first, paged. */
export async function invoicePage(q: Db, orgId: string, p: { state: InvoiceState | 'all'; page: number; page_size: number }) {
  let s = q.selectFrom('billing_invoices').where('organisation_id', '=', orgId);
  if (p.state !== 'all') s = s.where('state', '=', p.state);
  const total = Number((await s.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
  const rows = await s.selectAll().orderBy('date', 'desc').orderBy('id').limit(p.page_size).offset((p.page - 1) * p.page_size).execute();
  return { rows, total };
}

/** The invoice of a project's period, if generated already. */
export const periodInvoice = (q: Db, projectId: string, billFrom: string) =>
  q.selectFrom('billing_invoices').select('id').where('project_id', '=', projectId).where('bill_from', '=', billFrom).executeTakeFirst();

export const insertInvoice = async (q: Db, row: BillingInvoiceTable) => {
  await q.insertInto('billing_invoices').values(row).execute();
};

/** A change guarded by the state read (one state or any of several), so two concurrent clicks move it once. */
export async function moveInvoice(q: Db, id: string, from: InvoiceState | readonly InvoiceState[], change: Updateable<BillingInvoiceTable>): Promise<boolean> {
  const s = q.updateTable('billing_invoices').set(change).where('id', '=', id);
  const res = await (typeof from === 'string' ? s.where('state', '=', from) : s.where('state', 'in', [...from])).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Across organisations: unpaid or unconfirmed invoices past their due date, not marked overdue yet. */
export const pastDue = (q: Db, now: string) =>
  q.selectFrom('billing_invoices').selectAll().where('state', 'in', ['billed', 'pending_confirmation']).where('overdue_at', 'is', null).where('due_date', '<', now).execute();

/** Marks an invoice overdue once, guarded by the state read; false when it moved or was marked meanwhile. */
export async function markOverdue(q: Db, id: string, state: InvoiceState, change: Updateable<BillingInvoiceTable>): Promise<boolean> {
  const res = await q.updateTable('billing_invoices').set(change).where('id', '=', id).where('state', '=', state).where('overdue_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Across organisations: transfers waiting for a platform administrator, oldest report first. */
export const pendingInvoices = (q: Db) => q.selectFrom('billing_invoices').selectAll().where('state', '=', 'pending_confirmation').orderBy('reported_at').execute();

// ---- ledger ---------------------------------------------------------------------------------------------------

/** Appends one event; its unique key refuses the same event twice. */
export const record = async (q: Db, row: BillingLedgerTable) => {
  await q.insertInto('billing_ledger').values(row).execute();
};

/** An invoice's events, in the order they were written. */
export const invoiceHistory = (q: Db, invoiceId: string) => q.selectFrom('billing_ledger').select(['kind', 'amount', 'currency', 'at']).where('invoice_id', '=', invoiceId).orderBy('id').execute();

/** The organisation's last 100 wallet movements, newest first. */
export const walletEntries = (q: Db, orgId: string) =>
  q
    .selectFrom('billing_ledger')
    .select(['kind', 'amount', 'currency', 'at', 'invoice_id', 'topup_id'])
    .where('organisation_id', '=', orgId)
    .where('kind', 'in', ['wallet_debit', 'topup_confirmed'])
    .orderBy('id', 'desc')
    .limit(100)
    .execute();

// ---- wallets --------------------------------------------------------------------------------------------------

export const wallet = (q: Db, orgId: string) => q.selectFrom('billing_wallets').selectAll().where('organisation_id', '=', orgId).executeTakeFirst();

/** Debits only when the balance covers the amount (one statement, so two debits at once cannot overdraw); false otherwise. */
export async function debit(q: Db, orgId: string, amount: number, at: string): Promise<boolean> {
  const res = await q
    .updateTable('billing_wallets')
    .set((eb) => ({ balance: eb('balance', '-', amount), updated_at: at }))
    .where('organisation_id', '=', orgId)
    .where('balance', '>=', amount)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Credits the organisation's wallet, opening it (empty, in `currency`) on its first top-up. */
export async function credit(q: Db, orgId: string, currency: string, amount: number, at: string) {
  await q.insertInto('billing_wallets').values({ organisation_id: orgId, currency, balance: 0, updated_at: at }).onConflict((oc) => oc.column('organisation_id').doNothing()).execute();
  await q
    .updateTable('billing_wallets')
    .set((eb) => ({ balance: eb('balance', '+', amount), updated_at: at }))
    .where('organisation_id', '=', orgId)
    .execute();
}

// ---- top-ups --------------------------------------------------------------------------------------------------

/** The organisation's last 100 top-ups, newest report first. */
export const topups = (q: Db, orgId: string) => q.selectFrom('billing_topups').selectAll().where('organisation_id', '=', orgId).orderBy('reported_at', 'desc').limit(100).execute();

export const insertTopup = async (q: Db, row: BillingTopupTable) => {
  await q.insertInto('billing_topups').values(row).execute();
};

/** Across organisations: the platform administrators' review. */
export const topupById = (q: Db, id: string) => q.selectFrom('billing_topups').selectAll().where('id', '=', id).executeTakeFirst();

/** The same, re-read after a decision: top-ups are never deleted, so it is there. */
export const topupByIdAfter = (q: Db, id: string) => q.selectFrom('billing_topups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Records a decision on a top-up still pending; false when it was decided already. */
export async function decideTopup(q: Db, id: string, change: Updateable<BillingTopupTable>): Promise<boolean> {
  const res = await q.updateTable('billing_topups').set(change).where('id', '=', id).where('state', '=', 'pending_confirmation').executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Across organisations: top-ups waiting for a platform administrator, oldest report first. */
export const pendingTopups = (q: Db) => q.selectFrom('billing_topups').selectAll().where('state', '=', 'pending_confirmation').orderBy('reported_at').execute();

// ---- locks ----------------------------------------------------------------------------------------------------

export const lock = async (q: Db, row: BillingLockTable) => {
  await q.insertInto('billing_locks').values(row).execute();
};

/** Removes the invoice's locks; answers how many there were. */
export async function unlock(q: Db, invoiceId: string): Promise<number> {
  const locks = await q.selectFrom('billing_locks').select('project_id').where('invoice_id', '=', invoiceId).execute();
  await q.deleteFrom('billing_locks').where('invoice_id', '=', invoiceId).execute();
  return locks.length;
}

/** Across organisations: serving's check, by project. */
export const locked = async (q: Db, projectId: string) => !!(await q.selectFrom('billing_locks').select('invoice_id').where('project_id', '=', projectId).executeTakeFirst());

/** The invoices locking one of the organisation's projects. */
export const projectLocks = (q: Db, orgId: string, projectId: string) =>
  q
    .selectFrom('billing_locks as l')
    .innerJoin('billing_invoices as i', 'i.id', 'l.invoice_id')
    .select(['i.id', 'i.number', 'i.state', 'l.locked_at'])
    .where('l.organisation_id', '=', orgId)
    .where('l.project_id', '=', projectId)
    .execute();

// ---- sweeps ---------------------------------------------------------------------------------------------------

/** Claims a sweep slot; throws when another server claimed it first (the slot is the key). */
export const claimSweep = async (q: Db, row: BillingSweepTable) => {
  await q.insertInto('billing_sweeps').values(row).execute();
};

export const finishSweep = async (q: Db, slot: string, at: string) => {
  await q.updateTable('billing_sweeps').set({ finished_at: at }).where('slot', '=', slot).execute();
};
