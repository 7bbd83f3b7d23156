import { forgetLock } from './lock.js';
import type { BillingCore } from './core.js';
import * as repo from './repo.js';

/** Overdue invoices lock their project; the sweep (scheduled: one server per hour) generates, then marks overdue. */
export function makeOverdue(core: BillingCore, generate: () => Promise<number>) {
  const { db, clock, server, nowIso, ledger } = core;

  /** Unpaid (or unconfirmed) invoices past their due date become overdue and lock their project. */
  async function markOverdue(): Promise<number> {
    const now = nowIso();
    const due = await repo.pastDue(db, now);
    let n = 0;
    for (const inv of due) {
      const moved = await db.transaction().execute(async (tx) => {
        // A billed invoice becomes overdue; one pending confirmation stays pending, marked overdue all the same.
        if (!(await repo.markOverdue(tx, inv.id, inv.state, { overdue_at: now, updated_at: now, ...(inv.state === 'billed' ? { state: 'overdue' as const } : {}) }))) return false;
        await repo.lock(tx, { invoice_id: inv.id, project_id: inv.project_id, organisation_id: inv.organisation_id, locked_at: now });
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
      await repo.claimSweep(db, { slot, server, started_at: new Date().toISOString(), finished_at: null });
    } catch {
      return { ran: false, generated: 0, overdue: 0 };
    }
    const r = await sweep();
    await repo.finishSweep(db, slot, new Date().toISOString());
    return { ran: true, ...r };
  }

  return { markOverdue, sweep, scheduledSweep };
}
