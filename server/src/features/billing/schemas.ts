import { z } from 'zod';
import { page, storedEnum } from '../../http/responses.js';
import { INVOICE_STATES } from './db.js';

export const idParams = z.object({ id: z.string().max(64) });
export const listQuery = z.object({
  state: z.enum(['all', ...INVOICE_STATES]).default('all'),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});
export const pdfQuery = z.object({ lang: z.enum(['en', 'ja']).optional() });
export const clockBody = z.object({ advance_hours: z.number().min(0).max(24 * 400) });
export const ClockView = z.object({ now: z.string() });
export const decisionBody = z.object({ decision: z.enum(['confirm', 'return']) });
export const topupBody = z.object({ amount: z.coerce.number() });

const money = z.number().int().describe('integer minor units of `currency`');

export const InvoiceLine = z
  .object({
    item: storedEnum(['subscription', 'infrastructure_base', 'requests_over_plan', 'compute_hours'] as const),
    quantity: z.number(),
    unit_price: z.number().describe('minor units; per million requests for requests_over_plan, per hour for compute_hours'),
    amount: money,
    period_from: z.string(),
    period_to: z.string(),
  })
  .meta({ id: 'InvoiceLine' });

export const Invoice = z
  .object({
    id: z.string(),
    number: z.string(),
    name: z.string().describe('the invoice number again, as pages name things'),
    project_id: z.string(),
    project_name: z.string(),
    billing_cycle: storedEnum(['monthly', 'yearly'] as const),
    subscription_type: z.string(),
    currency: z.string(),
    bill_from: z.string(),
    bill_to: z.string(),
    date: z.string(),
    due_date: z.string(),
    payment_date: z.string().nullable(),
    subscription_fee: money,
    infrastructure_fee: money,
    amount: money,
    amount_due: money,
    state: storedEnum(INVOICE_STATES),
    payment_method: storedEnum(['bank_transfer', 'wallet'] as const).nullable(),
    reported_at: z.string().nullable(),
    overdue: z.boolean().describe('past its due date without a confirmed payment: its project is locked'),
    lines: z.array(InvoiceLine),
  })
  .meta({ id: 'Invoice' });

export const InvoicePage = page(Invoice).meta({ id: 'InvoicePage' });

export const InvoiceDetail = Invoice.extend({
  organisation_name: z.string(),
  transfer_reference: z.string(),
  history: z.array(z.object({ kind: z.string(), amount: money, currency: z.string(), at: z.string() })),
}).meta({ id: 'InvoiceDetail' });

export const BankAccount = z
  .object({
    bank_name: z.string(),
    bank_code: z.string(),
    branch_name: z.string(),
    branch_code: z.string(),
    account_type: storedEnum(['individual', 'organisation'] as const),
    account_number: z.string(),
    account_holder: z.string(),
  })
  .meta({ id: 'BankAccount' });

const identity = storedEnum(['done', 'under_review', 'not_done'] as const);
const WalletBalance = z.object({ balance: money, currency: z.string() });

export const PaymentInfo = z
  .object({ transfer_reference: z.string(), bank_account: BankAccount.nullable(), wallet: WalletBalance, identity })
  .meta({ id: 'PaymentInfo' });

export const Topup = z
  .object({
    id: z.string(),
    amount: money,
    currency: z.string(),
    state: storedEnum(['pending_confirmation', 'cleared', 'rejected'] as const),
    reported_at: z.string(),
    confirmed_at: z.string().nullable(),
  })
  .meta({ id: 'Topup' });

export const Wallet = WalletBalance.extend({
  transfer_reference: z.string(),
  bank_account: BankAccount.nullable(),
  identity,
  topups: z.array(Topup),
  entries: z.array(z.object({ kind: z.string(), amount: money, currency: z.string(), at: z.string(), invoice_id: z.string().nullable(), topup_id: z.string().nullable() })),
}).meta({ id: 'Wallet' });

export const ProjectLock = z
  .object({ locked: z.boolean(), invoices: z.array(z.object({ id: z.string(), number: z.string(), state: z.string(), locked_at: z.string() })) })
  .meta({ id: 'ProjectLock' });

export const PendingPayments = z
  .object({
    invoices: z.array(Invoice.extend({ organisation_name: z.string(), transfer_reference: z.string() })),
    topups: z.array(Topup.extend({ organisation_name: z.string(), transfer_reference: z.string() })),
  })
  .meta({ id: 'PendingPayments' });

export const SweepResult = z.object({ generated: z.number().int(), overdue: z.number().int() }).meta({ id: 'BillingSweep' });
