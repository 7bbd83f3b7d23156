import type { BankAccount } from '../billing/settings.js';

/** Pure rules of the installation settings (no database, no environment). */

/** Why someone is a platform administrator: named in MITATE_PLATFORM_ADMINS, or the installation's first account. */
export type AdminReason = 'environment' | 'first_account';

/**
 * The environment's list wins: when it names anyone, only those are administrators. With it empty (a fresh
 * `npm start`) and the first-account rule on, the first account is, so every flow has someone to approve it.
 */
export function adminReason(
  person: { userId: string; email: string },
  envAdmins: string[],
  firstAccountId: string | null,
): AdminReason | null {
  if (envAdmins.includes(person.email.toLowerCase())) return 'environment';
  if (!envAdmins.length && firstAccountId !== null && firstAccountId === person.userId) return 'first_account';
  return null;
}

/** A stored value wins over the environment's; `source` says which one is in force. */
export function inForce<T>(stored: T | undefined, env: T | null): { value: T | null; source: 'settings' | 'environment' | null } {
  if (stored !== undefined) return { value: stored, source: 'settings' };
  return env === null ? { value: null, source: null } : { value: env, source: 'environment' };
}

/** A bank account with every field trimmed (what is stored and shown). */
export function cleanBank(b: BankAccount): BankAccount {
  return {
    bank_name: b.bank_name.trim(),
    bank_code: b.bank_code.trim(),
    branch_name: b.branch_name.trim(),
    branch_code: b.branch_code.trim(),
    account_type: b.account_type,
    account_number: b.account_number.trim(),
    account_holder: b.account_holder.trim(),
  };
}
