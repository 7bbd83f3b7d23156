import type { AppContext } from '../../context.js';
import type { InvoiceState } from './db.js';
import { makeBillingCore, type BillingOptions } from './core.js';
import { makeInvoicing } from './invoicing.js';
import { makeOverdue } from './overdue.js';
import { makePayments } from './payments.js';
import * as repo from './repo.js';
import { makeReview } from './review.js';
import { transferReference } from './terms.js';

/** SPEC §4 and §7 'Billing': invoices of the hosted APIs, payments, the wallet and the administrators' confirmations. */
export function makeBillingService(ctx: AppContext, opts: BillingOptions) {
  const core = makeBillingCore(ctx, opts);
  const { db, clock, settings, bankAccount, prices, get, wallet, view, identityState, organisationNames } = core;
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
      const { rows, total } = await repo.invoicePage(db, orgId, q);
      return { items: rows.map(view), total };
    },
    async detail(orgId: string, id: string) {
      const inv = await get(orgId, id);
      const history = await repo.invoiceHistory(db, id);
      const organisationName = (await organisationNames([orgId])).get(orgId);
      return { ...view(inv), organisation_name: organisationName ?? '', transfer_reference: transferReference(orgId), history: history.map((h) => ({ ...h, amount: Number(h.amount) })) };
    },
    async lockOf(orgId: string, projectId: string) {
      await opts.hosted.get({ orgId }, projectId); // 404 for another organisation's project: not ours to describe
      const rows = await repo.projectLocks(db, orgId, projectId);
      return { locked: rows.length > 0, invoices: rows };
    },
    ...makePayments(core),
    ...makeReview(core),
  };
}
export type BillingService = ReturnType<typeof makeBillingService>;
