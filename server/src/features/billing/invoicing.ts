import crypto from 'node:crypto';
import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { BillingInvoiceTable } from './db.js';
import type { BillingCore } from './core.js';
import * as repo from './repo.js';
import { type Line, day, dayStartHour, periodStart, dayBefore, dayAfter, type BilledProject, BILLABLE } from './terms.js';

/** The few fields of a hosted API's settings (the platform area's settings_json) that billing reads; a field an
 * older draft may lack is optional, and the platform area declares the rest. */
const BilledSettings = z.object({
  subscription_type: z.string().optional(),
  billing_cycle: z.string().optional(),
  expected_requests_per_month: z.number().nullable().optional(),
});
type BilledSettings = z.output<typeof BilledSettings>;
const billedSettings = (p: BilledProject): BilledSettings => storedJson('hosted API settings', BilledSettings, p.settings_json);

/** Invoices of each billing period of every billable project: billed in advance, usage metered. */
export function makeInvoicing(core: BillingCore) {
  const { db, clock, settings, prices, ledger, hosted } = core;

  // ---- generation -----------------------------------------------------------------------------------------

  /** Billed usage of a project in [from, to] (inclusive days): answered predictions only (platform's rule). */
  const usage = (projectId: string, from: string, to: string) => hosted.usage(projectId, dayStartHour(from, settings.utcOffsetMin), dayStartHour(dayAfter(to), settings.utcOffsetMin));

  /** The invoice of one period: billed in advance (subscription and base infrastructure of this period) plus the
   * metered usage of the period before (requests beyond the plan, compute hours). */
  async function linesFor(p: BilledProject, s: BilledSettings, from: string, to: string, prev: { from: string; to: string } | null): Promise<Line[]> {
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
    const plan = billedSettings(p);
    const cycle = plan.billing_cycle === 'yearly' ? 'yearly' : 'monthly';
    const anchor = day(new Date(p.reviewed_at ?? p.created_at), settings.utcOffsetMin);
    const today = day(clock.now(), settings.utcOffsetMin);
    let created = 0;
    for (let k = 0; k < 1200; k++) {
      const from = periodStart(anchor, cycle, k);
      if (from > today) break;
      const to = dayBefore(periodStart(anchor, cycle, k + 1));
      const exists = await repo.periodInvoice(db, p.id, from);
      if (exists) continue;
      const prev = k > 0 ? { from: periodStart(anchor, cycle, k - 1), to: dayBefore(from) } : null;
      const lines = await linesFor(p, plan, from, to, prev);
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
        subscription_type: plan.subscription_type ?? 'free',
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
          await repo.insertInvoice(tx, row);
          await ledger(tx, { organisation_id: p.organisation_id, invoice_id: id, kind: 'invoice_billed', amount, currency: row.currency, actor: null, unique_key: `invoice_billed:${p.id}:${from}` });
        });
        created++;
      } catch (e) {
        // Another server generated the same period at the same moment: the unique period keeps one.
        const again = await repo.periodInvoice(db, p.id, from);
        if (!again) throw e;
      }
    }
    return created;
  }

  /** Invoices of every billable project up to today; generating twice creates nothing new. */
  async function generate(orgId?: string): Promise<number> {
    let n = 0;
    for (const p of await hosted.reviewedIn(BILLABLE, orgId)) n += await generateFor(p);
    return n;
  }

  return { generate };
}
