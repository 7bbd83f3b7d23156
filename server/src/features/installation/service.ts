import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import type { AccountService } from '../account/service.js';
import { type BankAccount } from '../billing/settings.js';
import { M } from './messages.js';
import * as repo from './repo.js';
import { adminReason, cleanBank, inForce, type AdminReason } from './rules.js';

const now = () => new Date().toISOString();

// Each stored setting's value_json, by key, as this service writes it (update, the first-account claim).
const FirstAdmin = z.object({ user_id: z.string() });
const StoredBank = z.object({
  bank_name: z.string(),
  bank_code: z.string(),
  branch_name: z.string(),
  branch_code: z.string(),
  account_type: z.enum(['individual', 'organisation']),
  account_number: z.string(),
  account_holder: z.string(),
});
const Review = z.boolean();

export interface SettingsChange {
  /** A bank account to store, or null to forget the stored one (the environment's is in force again). */
  bank_account?: BankAccount | null;
  platform_review?: boolean;
}

/** Checks a bank account before it is stored (Zengin formats: 4-digit bank, 3-digit branch, up to 8-digit account). */
function checkBank(b: BankAccount): void {
  if (!b.bank_name) throw new AppError(422, M.bankNameRequired, {}, 'bank_name');
  if (!/^\d{4}$/.test(b.bank_code)) throw new AppError(422, M.bankCodeFormat, {}, 'bank_code');
  if (!b.branch_name) throw new AppError(422, M.branchNameRequired, {}, 'branch_name');
  if (!/^\d{3}$/.test(b.branch_code)) throw new AppError(422, M.branchCodeFormat, {}, 'branch_code');
  if (!/^\d{1,8}$/.test(b.account_number)) throw new AppError(422, M.accountNumberFormat, {}, 'account_number');
  if (!b.account_holder) throw new AppError(422, M.accountHolderRequired, {}, 'account_holder');
}

/**
 * The installation: who its platform administrators are and the settings they change in the app (issue 33: a fresh
 * `npm start` must walk every flow). Environment variables give the defaults; a stored setting overrides them.
 * Platform administrators are read per call from the app's config, so a test can change them without a new app.
 */
export function makeInstallationService({ db, config }: Pick<AppContext, 'db' | 'config'>, account: AccountService) {
  const envAdmins = () => config.platformAdmins;

  /** The stored value of `key` read through its declaration, or undefined when none is stored. */
  async function stored<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined> {
    const row = await repo.one(db, key);
    return row ? storedJson(`installation setting ${key}`, schema, row.value_json) : undefined;
  }

  /** The first account's id once claimed (claimed on first need: the oldest active account; of two claims, one wins). */
  async function firstAccountId(): Promise<string | null> {
    if (!config.firstAccountAdmin || envAdmins().length) return null;
    let claimed = await stored('first_admin', FirstAdmin);
    if (!claimed) {
      const first = await account.users.firstAccount();
      if (!first) return null;
      await repo.claim(db, { key: 'first_admin', value_json: JSON.stringify({ user_id: first.id }), updated_at: now(), updated_by: null });
      claimed = await stored('first_admin', FirstAdmin);
    }
    return claimed?.user_id ?? null;
  }

  async function reasonOf(person: { userId: string; email: string }): Promise<AdminReason | null> {
    const envList = envAdmins();
    return adminReason(person, envList, envList.length ? null : await firstAccountId());
  }

  async function bank() {
    return inForce<BankAccount>(await stored('bank_account', StoredBank), config.billing.bank);
  }

  async function review() {
    const r = inForce(await stored('platform_review', Review), config.platformReview);
    return { value: r.value !== false, source: r.source };
  }

  async function view() {
    const [b, r, firstId] = await Promise.all([bank(), review(), firstAccountId()]);
    const first = firstId ? await account.users.byId(firstId) : undefined;
    return {
      bank_account: b.value,
      bank_account_source: b.source,
      platform_review: r.value,
      platform_review_source: r.source ?? 'environment',
      administrators: { environment: envAdmins(), first_account: first?.email ?? null },
    };
  }

  return {
    /** Why the person is a platform administrator, or null when they are not. */
    adminReason: reasonOf,
    isAdmin: async (person: { userId: string; email: string }) => (await reasonOf(person)) !== null,
    /** The platform's bank account for transfers (stored, else MITATE_BANK_*), or null when there is none. */
    bank: async () => (await bank()).value,
    /** Whether hosted APIs wait for a platform administrator's review (stored, else MITATE_PLATFORM_REVIEW). */
    reviewRequired: async () => (await review()).value,
    view,

    /** A platform administrator's change; checked whole before anything is written. */
    async update(actorId: string, change: SettingsChange) {
      const bankAccount = change.bank_account ? cleanBank(change.bank_account) : change.bank_account;
      if (bankAccount) checkBank(bankAccount);
      const at = now();
      await db.transaction().execute(async (tx) => {
        if (bankAccount) await repo.put(tx, { key: 'bank_account', value_json: JSON.stringify(bankAccount), updated_at: at, updated_by: actorId });
        else if (bankAccount === null) await repo.remove(tx, 'bank_account');
        if (change.platform_review !== undefined) await repo.put(tx, { key: 'platform_review', value_json: JSON.stringify(change.platform_review), updated_at: at, updated_by: actorId });
      });
      return view();
    },
  };
}

export type InstallationService = ReturnType<typeof makeInstallationService>;
