import type { AppContext } from '../../context.js';
import type { InvoiceState } from './db.js';
import { makeBillingCore, type BillingOptions } from './core.js';
import { makeInvoicing } from './invoicing.js';
import { makeOverdue } from './overdue.js';
import { makePayments } from './payments.js';
import { makeReview } from './review.js';
import { transferReference } from './terms.js';

/** SPEC §4 and §7 'Billing': invoices of the hosted APIs, payments, the wallet and the administrators' confirmations. */
export function makeBillingService(ctx: AppContext, opts: BillingOptions) {
  const core = makeBillingCore(ctx, opts);
  const { db, clock, settings, bankAccount, prices, get, wallet, view, identityState } = core;
  const { generate } = makeInvoicing(core);
  const { markOverdue, sweep, scheduledSweep } = makeOverdue(core, generate);

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
    ...makePayments(core),
    ...makeReview(core),
  };
}
export type BillingService = ReturnType<typeof makeBillingService>;
