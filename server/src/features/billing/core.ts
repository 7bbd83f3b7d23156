import crypto from 'node:crypto';
import os from 'node:os';
import { z } from 'zod';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import { type Clock, clockOf } from './clock.js';
import type { BillingInvoiceTable } from './db.js';
import type { IdentityService } from '../identity/service.js';
import type { HostedProjects } from './hosted.js';
import { M } from './messages.js';
import * as repo from './repo.js';
import { type BankAccount, type BillingSettings } from './settings.js';
import { InvoiceLine } from './schemas.js';
import { type Tx, ledgerId } from './terms.js';
import '../account/db.js';
import './db.js';

/** An invoice's lines_json: the lines invoicing wrote, read with the answer's own line declaration. */
const InvoiceLines = z.array(InvoiceLine);

/** What every part of billing shares: the database, the clock, the settings, the ledger, invoices read and cleared. */
export function makeBillingCore(ctx: AppContext, opts: BillingOptions) {
  const { db } = ctx;
  const clock = opts.clock ?? clockOf(ctx);
  const settings = opts.settings ?? ctx.config.billing;
  const bankAccount = opts.bank ?? (async () => settings.bank);
  const { prices } = opts.hosted;
  const server = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  const nowIso = () => clock.now().toISOString();
  const { hosted } = opts;

  async function ledger(tx: Tx, e: { organisation_id: string; invoice_id?: string | null; topup_id?: string | null; kind: string; amount: number; currency: string; actor: string | null; unique_key: string }) {
    await repo.record(tx, { id: ledgerId(), invoice_id: null, topup_id: null, ...e, at: nowIso() });
  }

  // ---- reading --------------------------------------------------------------------------------------------

  async function get(orgId: string, id: string): Promise<BillingInvoiceTable> {
    const row = await repo.invoice(db, orgId, id);
    if (!row) throw new AppError(404, M.invoiceNotFound);
    return row;
  }

  async function wallet(orgId: string) {
    const w = await repo.wallet(db, orgId);
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
      lines: storedJson('invoice lines', InvoiceLines, r.lines_json),
    };
  }

  /** SPEC §4: payment is blocked while the organisation's identity is not verified (not done or under review). */
  async function requireIdentity(auth: Pick<AuthContext, 'orgId' | 'userId'>) {
    const state = await identityState(auth.orgId);
    if (state === 'done') return;
    if (state === 'under_review') throw new AppError(409, M.idUnderReview);
    throw new AppError(409, M.verifyIdentity);
  }

  /** The identity area owns the verifications; billing asks it. */
  const identityState = (orgId: string) => opts.identity.orgState(orgId);

  /** Clears an invoice inside `tx`: its locks go, so its project is unlocked at once. */
  async function clear(tx: Tx, inv: BillingInvoiceTable, actor: string | null) {
    if (await repo.unlock(tx, inv.id)) await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'project_unlocked', amount: 0, currency: inv.currency, actor, unique_key: `project_unlocked:${inv.id}` });
  }

  return { db, clock, settings, bankAccount, prices, server, nowIso, hosted, organisationNames: opts.organisationNames, ledger, get, wallet, view, requireIdentity, identityState, clear };
}
export type BillingCore = ReturnType<typeof makeBillingCore>;

/**
 * `hosted`: the hosted APIs billed (the platform area's, handed in at start-up). `bank`: the platform bank account in
 * force (the installation area's: stored in the app, else MITATE_BANK_*); without it, the settings' (environment) account.
 */
export interface BillingOptions {
  hosted: HostedProjects;
  /** Names by id of the given organisations (the account area's table, read in one query for a list). */
  organisationNames: (ids: string[]) => Promise<Map<string, string>>;
  identity: Pick<IdentityService, 'orgState'>;
  clock?: Clock;
  settings?: BillingSettings;
  bank?: () => Promise<BankAccount | null>;
}
