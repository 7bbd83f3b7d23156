/** Settings of invoices and payments (environment, each with a default except the bank account). */
export interface BankAccount {
  bank_name: string;
  bank_code: string;
  branch_name: string;
  branch_code: string;
  account_type: 'individual' | 'organisation';
  account_number: string;
  account_holder: string;
}

export interface BillingSettings {
  /** Days from the invoice date to its due date. */
  dueDays: number;
  /** Price of one compute hour (serving time taken from the request statistics), minor units. */
  computeHourPrice: number;
  /** The platform's bank account for transfers; null when not configured (bank transfer then refused). */
  bank: BankAccount | null;
  /** Minutes between scheduled sweeps (60: hourly). */
  sweepMinutes: number;
  /** Largest wallet top-up, minor units. */
  maxTopup: number;
  /** MITATE_BILLING_UTC_OFFSET_MIN: billing days are calendar days at this offset from UTC (SPEC §9: default UTC+9, 540),
   * so periods match the dates people see. */
  utcOffsetMin: number;
}

const num = (v: string | undefined, d: number) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) && Number(v) >= 0 ? Number(v) : d);

export function billingSettings(env: NodeJS.ProcessEnv): BillingSettings {
  const bank: BankAccount = {
    bank_name: env.MITATE_BANK_NAME?.trim() ?? '',
    bank_code: env.MITATE_BANK_CODE?.trim() ?? '',
    branch_name: env.MITATE_BANK_BRANCH_NAME?.trim() ?? '',
    branch_code: env.MITATE_BANK_BRANCH_CODE?.trim() ?? '',
    account_type: env.MITATE_BANK_ACCOUNT_TYPE?.trim() === 'individual' ? 'individual' : 'organisation',
    account_number: env.MITATE_BANK_ACCOUNT_NUMBER?.trim() ?? '',
    account_holder: env.MITATE_BANK_ACCOUNT_HOLDER?.trim() ?? '',
  };
  return {
    dueDays: num(env.MITATE_INVOICE_DUE_DAYS, 14),
    computeHourPrice: Math.round(num(env.MITATE_COMPUTE_HOUR_PRICE, 60)),
    bank: bank.bank_name && bank.account_number ? bank : null,
    sweepMinutes: num(env.MITATE_BILLING_SWEEP_MINUTES, 60) || 60,
    maxTopup: Math.round(num(env.MITATE_WALLET_MAX_TOPUP, 100_000_000)),
    utcOffsetMin: env.MITATE_BILLING_UTC_OFFSET_MIN && Number.isFinite(Number(env.MITATE_BILLING_UTC_OFFSET_MIN)) ? Number(env.MITATE_BILLING_UTC_OFFSET_MIN) : 540,
  };
}
