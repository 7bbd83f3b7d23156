import crypto from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { LocalText } from '../../i18n/messages.js';
import type { Database } from '../../db/schema.js';
import { STATE_WORDS } from './messages.js';

// Billing's small rules: billing days and periods, ledger ids, transfer references, invoice state words.

export type Tx = Db; // a transaction has the same query interface

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
export const ledgerId = () => `${String(Date.now()).padStart(14, '0')}-${String(ledgerSeq++ % 1e8).padStart(8, '0')}-${crypto.randomBytes(4).toString('hex')}`;

/** Billing days are calendar days at the display offset (settings.utcOffsetMin; SPEC §9: default UTC+9), so periods
 * match the dates people see. */
export const day = (d: Date, offsetMin: number) => new Date(d.getTime() + offsetMin * 60_000).toISOString().slice(0, 10);
const utc = (d: Date) => d.toISOString().slice(0, 10);
/** The UTC hour (as the request statistics store it) in which a billing day starts. */
export const dayStartHour = (iso: string, offsetMin: number) => new Date(new Date(`${iso}T00:00:00Z`).getTime() - offsetMin * 60_000).toISOString().slice(0, 13);

/** The first day of the `k`-th billing period after `anchor` (a day of month past the month's end is its last day). */
export function periodStart(anchor: string, cycle: 'monthly' | 'yearly', k: number): string {
  const a = new Date(`${anchor.slice(0, 10)}T00:00:00Z`);
  const months = a.getUTCMonth() + k * (cycle === 'yearly' ? 12 : 1);
  const y = a.getUTCFullYear() + Math.floor(months / 12);
  const m = ((months % 12) + 12) % 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return utc(new Date(Date.UTC(y, m, Math.min(a.getUTCDate(), last))));
}
export const dayBefore = (iso: string) => utc(new Date(new Date(`${iso}T00:00:00Z`).getTime() - 86400_000));

export const dayAfter = (iso: string) => utc(new Date(new Date(`${iso}T00:00:00Z`).getTime() + 86400_000));

/** The organisation's reference for bank transfers: written as the transferor name so the payment is matched. */
export function transferReference(orgId: string): string {
  return `MITATE ${crypto.createHash('sha256').update(orgId).digest('hex').slice(0, 8).toUpperCase()}`;
}

const stateText = (s: string) => STATE_WORDS[s] ?? { en: s, ja: s };
export function withState(m: LocalText, state: string): LocalText {
  const w = stateText(state);
  return { ...m, en: m.en.replace('{state}', w.en), ja: m.ja.replace('{state}', w.ja) };
}

/** Billable: approved once and not back in draft or review (approved, running, stopped). */
export const BILLABLE = ['approved', 'running', 'stopped'] as const;

/** A hosted API's row, as billing reads it (the platform area's table). */
export type BilledProject = Database['platform_projects'];
