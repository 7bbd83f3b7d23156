import crypto from 'node:crypto';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { forgetLock } from './lock.js';
import { M } from './messages.js';
import type { BillingCore } from './core.js';
import type { InvoiceState } from './db.js';
import * as repo from './repo.js';
import { transferReference, withState } from './terms.js';

/** An organisation's payments: bank transfer, wallet, top-ups. */
export function makePayments(core: BillingCore) {
  const { db, settings, bankAccount, prices, nowIso, ledger, get, wallet, view, requireIdentity, identityState, clear } = core;

  /** What the payment steps show: the transfer reference, the platform's bank account, the wallet, the identity state. */
  async function paymentInfo(orgId: string) {
    return { transfer_reference: transferReference(orgId), bank_account: await bankAccount(), wallet: await wallet(orgId), identity: await identityState(orgId) };
  }

  /** 'Transfer completed': billed or overdue → pending confirmation (once, even when sent twice at once). */
  async function transferCompleted(auth: AuthContext, id: string) {
    const inv = await get(auth.orgId, id); // another organisation's invoice: 404 before anything else
    await requireIdentity(auth);
    if (!(await bankAccount())) throw new AppError(409, M.bankNotConfigured);
    if (inv.state !== 'billed' && inv.state !== 'overdue') throw new AppError(409, withState(M.notPayable, inv.state));
    const at = nowIso();
    const ok = await db.transaction().execute(async (tx) => {
      if (!(await repo.moveInvoice(tx, inv.id, PAYABLE, { state: 'pending_confirmation', payment_method: 'bank_transfer', reported_at: at, updated_at: at }))) return false;
      await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'transfer_reported', amount: Number(inv.amount_due), currency: inv.currency, actor: auth.userId, unique_key: `transfer_reported:${inv.id}:${at}:${crypto.randomUUID()}` });
      return true;
    });
    const now = await get(auth.orgId, id);
    if (!ok) throw new AppError(409, withState(M.notPayable, now.state));
    return view(now);
  }

  /** Pays from the wallet at once when the balance covers the amount due (one debit, even when sent twice at once). */
  async function payByWallet(auth: AuthContext, id: string) {
    const inv = await get(auth.orgId, id); // another organisation's invoice: 404 before anything else
    await requireIdentity(auth);
    if (inv.state !== 'billed' && inv.state !== 'overdue') throw new AppError(409, withState(M.notPayable, inv.state));
    const due = Number(inv.amount_due);
    const at = nowIso();
    const outcome = await db.transaction().execute(async (tx) => {
      if (!(await repo.moveInvoice(tx, inv.id, PAYABLE, { state: 'cleared', payment_method: 'wallet', payment_date: at, amount_due: 0, updated_at: at }))) return 'taken' as const;
      if (!(await repo.debit(tx, inv.organisation_id, due, at))) throw new WalletShort();
      await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'wallet_debit', amount: -due, currency: inv.currency, actor: auth.userId, unique_key: `wallet_debit:${inv.id}` });
      await ledger(tx, { organisation_id: inv.organisation_id, invoice_id: inv.id, kind: 'payment_confirmed', amount: due, currency: inv.currency, actor: auth.userId, unique_key: `payment_confirmed:${inv.id}` });
      await clear(tx, inv, auth.userId);
      return 'paid' as const;
    }).catch(async (e) => {
      if (!(e instanceof WalletShort)) throw e;
      const w = await wallet(auth.orgId);
      throw new AppError(409, M.walletShort, { balance: w.balance, due });
    });
    forgetLock(db, inv.project_id);
    const now = await get(auth.orgId, id);
    if (outcome !== 'paid') throw new AppError(409, withState(M.notPayable, now.state));
    return view(now);
  }

  async function walletView(orgId: string) {
    const topups = await repo.topups(db, orgId);
    const entries = await repo.walletEntries(db, orgId);
    return {
      ...(await wallet(orgId)),
      transfer_reference: transferReference(orgId),
      bank_account: await bankAccount(),
      identity: await identityState(orgId),
      topups: topups.map((t) => ({ id: t.id, amount: Number(t.amount), currency: t.currency, state: t.state, reported_at: t.reported_at, confirmed_at: t.confirmed_at })),
      entries: entries.map((e) => ({ ...e, amount: Number(e.amount) })),
    };
  }

  /** A top-up by bank transfer, reported as sent: waits for a platform administrator's confirmation. */
  async function reportTopup(auth: AuthContext, amount: number) {
    await requireIdentity(auth);
    if (!(await bankAccount())) throw new AppError(409, M.bankNotConfigured);
    if (!Number.isInteger(amount) || amount < 1 || amount > settings.maxTopup) throw new AppError(422, M.topupAmount, { max: settings.maxTopup }, 'amount');
    const id = crypto.randomUUID();
    const at = nowIso();
    await db.transaction().execute(async (tx) => {
      await repo.insertTopup(tx, { id, organisation_id: auth.orgId, amount, currency: prices.currency, state: 'pending_confirmation', reported_by: auth.userId, reported_at: at, confirmed_at: null, confirmed_by: null });
      await ledger(tx, { organisation_id: auth.orgId, topup_id: id, kind: 'topup_reported', amount, currency: prices.currency, actor: auth.userId, unique_key: `topup_reported:${id}` });
    });
    return { id, amount, currency: prices.currency, state: 'pending_confirmation' as const, reported_at: at, confirmed_at: null };
  }

  return { paymentInfo, transferCompleted, payByWallet, walletView, reportTopup };
}

/** The states an organisation may pay from. */
const PAYABLE: readonly InvoiceState[] = ['billed', 'overdue'];

/** The wallet held less than the amount due: the debit's transaction is undone and the payment refused. */
class WalletShort extends Error {}
