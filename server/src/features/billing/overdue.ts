import { forgetLock } from './lock.js';
import type { BillingCore } from './core.js';

/** Overdue invoices lock their project; the sweep (scheduled: one server per hour) generates, then marks overdue. */
export function makeOverdue(core: BillingCore, generate: () => Promise<number>) {
  const { db, clock, server, nowIso, ledger } = core;

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
        forgetLock(db, inv.project_id);
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

  return { markOverdue, sweep, scheduledSweep };
}
