import { registerMigration } from '../../db/migrations.js';

/** SPEC §4 'Invoice': billed (created), pending confirmation, cleared (paid), overdue. */
export const INVOICE_STATES = ['billed', 'pending_confirmation', 'cleared', 'overdue'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];
export type PaymentMethod = 'bank_transfer' | 'wallet';

/** One invoice per platform project and billing period (unique: generating twice creates nothing new). */
export interface BillingInvoiceTable {
  id: string;
  number: string; // shown to people and written on the transfer, e.g. INV-202611-3F9A1C
  organisation_id: string;
  project_id: string;
  project_name: string;
  billing_cycle: 'monthly' | 'yearly';
  subscription_type: string;
  currency: string;
  bill_from: string; // ISO date of the period's first day (inclusive)
  bill_to: string; // ISO date of the period's last day (inclusive)
  date: string; // issue time (ISO)
  due_date: string; // ISO time
  payment_date: string | null; // when the payment was confirmed
  subscription_fee: number; // integer minor units
  infrastructure_fee: number;
  amount: number;
  amount_due: number;
  lines_json: string; // [{item, quantity, unit_price, amount}]
  state: InvoiceState;
  payment_method: PaymentMethod | null;
  reported_at: string | null; // 'transfer completed'
  overdue_at: string | null; // set once, when the due date passed unconfirmed: its project is locked until cleared
  created_at: string;
  updated_at: string;
}

/** Append-only: every change of money or state is one row; nothing here is ever updated or deleted. */
export interface BillingLedgerTable {
  id: string;
  organisation_id: string;
  invoice_id: string | null;
  topup_id: string | null;
  kind: string; // invoice_billed | transfer_reported | payment_confirmed | wallet_debit | topup_reported | topup_confirmed | overdue | project_locked | project_unlocked
  amount: number; // signed minor units (0 for pure state changes)
  currency: string;
  actor: string | null; // user id, or null for the sweep
  at: string;
  unique_key: string; // the same event can never be recorded twice
}

/** The prepaid balance of an organisation (the sum of its wallet ledger rows, kept for an atomic debit). */
export interface BillingWalletTable {
  organisation_id: string;
  currency: string;
  balance: number;
  updated_at: string;
}

/** A wallet top-up by bank transfer: reported by the organisation, confirmed by a platform administrator. */
export interface BillingTopupTable {
  id: string;
  organisation_id: string;
  amount: number;
  currency: string;
  state: 'pending_confirmation' | 'cleared' | 'rejected';
  reported_by: string | null;
  reported_at: string;
  confirmed_at: string | null;
  confirmed_by: string | null;
}

/** A platform project locked for an unpaid invoice (one row per locking invoice). */
export interface BillingLockTable {
  invoice_id: string;
  project_id: string;
  organisation_id: string;
  locked_at: string;
}

/** One row per sweep slot (hour): the server that inserts it runs that sweep, the others skip it. */
export interface BillingSweepTable {
  slot: string;
  server: string;
  started_at: string;
  finished_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    billing_invoices: BillingInvoiceTable;
    billing_ledger: BillingLedgerTable;
    billing_wallets: BillingWalletTable;
    billing_topups: BillingTopupTable;
    billing_locks: BillingLockTable;
    billing_sweeps: BillingSweepTable;
  }
}

registerMigration('0109_billing_invoices', {
  async up(db) {
    await db.schema
      .createTable('billing_invoices')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('number', 'text', (c) => c.notNull().unique())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('project_name', 'text', (c) => c.notNull())
      .addColumn('billing_cycle', 'text', (c) => c.notNull())
      .addColumn('subscription_type', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('bill_from', 'text', (c) => c.notNull())
      .addColumn('bill_to', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('due_date', 'text', (c) => c.notNull())
      .addColumn('payment_date', 'text')
      .addColumn('subscription_fee', 'bigint', (c) => c.notNull())
      .addColumn('infrastructure_fee', 'bigint', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('amount_due', 'bigint', (c) => c.notNull())
      .addColumn('lines_json', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('payment_method', 'text')
      .addColumn('reported_at', 'text')
      .addColumn('overdue_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('billing_invoices_period', ['project_id', 'bill_from'])
      .execute();
    await db.schema.createIndex('billing_invoices_org').on('billing_invoices').columns(['organisation_id', 'date']).execute();
    await db.schema
      .createTable('billing_ledger')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('invoice_id', 'text')
      .addColumn('topup_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('actor', 'text')
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('unique_key', 'text', (c) => c.notNull().unique())
      .execute();
    await db.schema.createIndex('billing_ledger_org').on('billing_ledger').columns(['organisation_id', 'at']).execute();
    await db.schema
      .createTable('billing_wallets')
      .addColumn('organisation_id', 'text', (c) => c.primaryKey())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('balance', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('billing_topups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('reported_by', 'text')
      .addColumn('reported_at', 'text', (c) => c.notNull())
      .addColumn('confirmed_at', 'text')
      .addColumn('confirmed_by', 'text')
      .execute();
    await db.schema
      .createTable('billing_locks')
      .addColumn('invoice_id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('locked_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('billing_locks_project').on('billing_locks').columns(['project_id']).execute();
    await db.schema
      .createTable('billing_sweeps')
      .addColumn('slot', 'text', (c) => c.primaryKey())
      .addColumn('server', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .execute();
  },
});
