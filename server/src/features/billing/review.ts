import crypto from 'node:crypto';
import { AppError } from '../../http/errors.js';
import { forgetLock } from './lock.js';
import { M } from './messages.js';
import type { BillingCore } from './core.js';
import * as repo from './repo.js';
import { transferReference, withState } from './terms.js';

/** What platform administrators confirm: reported transfers and top-ups. */
export function makeReview(core: BillingCore) {
  const { db, nowIso, ledger, view, clear, organisationNames } = core;

  // ---- platform administrators ----------------------------------------------------------------------

  async function pending() {
    const invoices = await repo.pendingInvoices(db);
    const topups = await repo.pendingTopups(db);
    const names = await organisationNames([...invoices, ...topups].map((r) => r.organisation_id));
    const name = (orgId: string) => names.get(orgId) ?? '';
    // Only rows whose organisation is known, as the join with organisations answered before.
    const known = <T extends { organisation_id: string }>(rows: T[]) => rows.filter((r) => names.has(r.organisation_id));
    return {
      invoices: known(invoices).map((i) => ({ ...view(i), organisation_name: name(i.organisation_id), transfer_reference: transferReference(i.organisation_id) })),
      topups: known(topups).map((t) => ({ id: t.id, amount: Number(t.amount), currency: t.currency, state: t.state, reported_at: t.reported_at, confirmed_at: t.confirmed_at, organisation_name: name(t.organisation_id), transfer_reference: transferReference(t.organisation_id) })),
    };
  }

  /** The transfer arrived: pending confirmation → cleared, its project unlocked at once. Or it did not: back. */
  async function decideInvoice(adminId: string, id: string, decision: 'confirm' | 'return') {
    const inv = await repo.invoiceById(db, id);
    if (!inv) throw new AppError(404, M.invoiceNotFound);
    if (inv.state !== 'pending_confirmation') throw new AppError(409, withState(M.notPending, inv.state));
    const at = nowIso();
    const done = await db.transaction().execute(async (tx) => {
      const change =
        decision === 'confirm'
          ? { state: 'cleared' as const, payment_date: at, amount_due: 0, updated_at: at }
          : { state: inv.overdue_at ? ('overdue' as const) : ('billed' as const), payment_method: null, reported_at: null, updated_at: at };
      if (!(await repo.moveInvoice(tx, id, 'pending_confirmation', change))) return false;
      if (decision === 'confirm') {
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: id, kind: 'payment_confirmed', amount: Number(inv.amount_due), currency: inv.currency, actor: adminId, unique_key: `payment_confirmed:${id}` });
        await clear(tx, inv, adminId);
      } else {
        await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: id, kind: 'transfer_returned', amount: 0, currency: inv.currency, actor: adminId, unique_key: `transfer_returned:${id}:${at}:${crypto.randomUUID()}` });
      }
      return true;
    });
    forgetLock(db, inv.project_id);
    const now = await repo.invoiceByIdAfter(db, id);
    if (!done) throw new AppError(409, withState(M.notPending, now.state));
    return view(now);
  }

  /** A top-up transfer arrived: the wallet is credited once. */
  async function decideTopup(adminId: string, id: string, decision: 'confirm' | 'return') {
    const t = await repo.topupById(db, id);
    if (!t) throw new AppError(404, M.topupNotFound);
    if (t.state !== 'pending_confirmation') throw new AppError(409, withState(M.notPending, t.state));
    const at = nowIso();
    const done = await db.transaction().execute(async (tx) => {
      if (!(await repo.decideTopup(tx, id, { state: decision === 'confirm' ? 'cleared' : 'rejected', confirmed_at: at, confirmed_by: adminId }))) return false;
      if (decision === 'confirm') {
        await repo.credit(tx, t.organisation_id, t.currency, Number(t.amount), at);
        await ledger(tx, { organisation_id: t.organisation_id, topup_id: id, kind: 'topup_confirmed', amount: Number(t.amount), currency: t.currency, actor: adminId, unique_key: `topup_confirmed:${id}` });
      } else {
        await ledger(tx, { organisation_id: t.organisation_id, topup_id: id, kind: 'topup_returned', amount: 0, currency: t.currency, actor: adminId, unique_key: `topup_returned:${id}` });
      }
      return true;
    });
    const now = await repo.topupByIdAfter(db, id);
    if (!done) throw new AppError(409, withState(M.notPending, now.state));
    return { id: now.id, amount: Number(now.amount), currency: now.currency, state: now.state, reported_at: now.reported_at, confirmed_at: now.confirmed_at };
  }

  return { pending, decideInvoice, decideTopup };
}
