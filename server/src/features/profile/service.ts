import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { AccountService } from '../account/service.js';
import { ORGANISATION_FIELDS, REQUIRED_FOR_COMPLETION, setupProblems, type SetupField, type SetupValues } from './rules.js';
import type { IdentityService } from '../identity/service.js';
import type { InstallationService } from '../installation/service.js';
import * as repo from './repo.js';

type Auth = { userId: string; orgId: string; role: string; email: string };

/** Where each setup field is stored: the users row (account), member_profiles, organisation_details. */
const USER_COLS = ['first_name', 'last_name', 'department', 'office_location'] as const;
const MEMBER_COLS = ['middle_name', 'birth_date', 'gender', 'phone', 'country_code', 'state_or_province', 'city', 'postal_code', 'address', 'account_name'] as const;
const ORG_COLS: Record<string, string> = {
  vat_number: 'vat_number',
  registration_number: 'registration_number',
  ceo: 'ceo',
  organisation_email: 'email',
  organisation_phone: 'phone',
  website: 'website',
  organisation_size: 'size',
  industry: 'industry',
};
const { DEFAULT_SETTINGS } = repo;

export const touchesOrganisation = (v: SetupValues) => ORGANISATION_FIELDS.some((f) => f in v);
const clean = (x: string | null | undefined) => (typeof x === 'string' ? x.trim() || null : null);
const pick = (v: SetupValues, cols: readonly string[], to: (c: string) => string = (c) => c) => {
  const out: Record<string, string | null> = {};
  for (const c of cols) if (c in v) out[to(c)] = clean(v[c as SetupField]);
  return out;
};

/** The signed-in person's whole profile (SPEC §3 Profile, Member, Account, Organisation) and their settings (§9). */
export function makeProfileService({ db }: Pick<AppContext, 'db'>, account: AccountService, identity: IdentityService, installation: InstallationService) {

  async function load(auth: { userId: string; orgId: string }) {
    const user = await account.users.withOrganisation(auth.orgId, auth.userId);
    if (!user) throw new AppError(404, 'not_found');
    const member = await repo.memberProfile(db, auth.orgId, auth.userId);
    const org = await repo.organisationDetails(db, auth.orgId);
    const settings = await repo.userSettings(db, auth.orgId, auth.userId);
    const id = await identity.status(auth);
    const values: SetupValues = { first_name: user.first_name, last_name: user.last_name, department: user.department, office_location: user.office_location, organisation_name: user.organisation_name };
    for (const c of MEMBER_COLS) values[c] = member?.[c] ?? null;
    for (const [f, c] of Object.entries(ORG_COLS)) values[f as SetupField] = (org as Record<string, string | null> | undefined)?.[c] ?? null;
    values.currency = settings?.currency ?? DEFAULT_SETTINGS.currency;
    const missing = REQUIRED_FOR_COMPLETION.filter((f) => !values[f]?.toString().trim());
    return {
      id: user.id,
      email: user.email,
      role: user.role,
      status: user.status,
      created_at: user.created_at,
      has_password: !!user.password_hash,
      values,
      registration_complete: missing.length === 0,
      missing,
      settings: {
        language: user.language,
        currency: settings?.currency ?? DEFAULT_SETTINGS.currency,
        dark_theme: !!(settings?.dark_theme ?? DEFAULT_SETTINGS.dark_theme),
        clock_24h: !!(settings?.clock_24h ?? DEFAULT_SETTINGS.clock_24h),
        tz_offset_minutes: settings?.tz_offset_minutes ?? DEFAULT_SETTINGS.tz_offset_minutes,
      },
      identity: id,
    };
  }

  return {
    load,
    /** My profile, and whether (and why) I am a platform administrator: MITATE_PLATFORM_ADMINS or the first account. */
    mine: async (auth: Auth) => {
      const reason = await installation.adminReason(auth);
      return { ...(await load(auth)), platform_admin: reason !== null, platform_admin_reason: reason };
    },
    settings: async (auth: Auth) => (await load(auth)).settings,
    /** A member's personal details (the caller decides who may see them). */
    memberDetails: (orgId: string, userId: string) => repo.memberProfile(db, orgId, userId),

    /**
     * Completes registration or updates my profile: SPEC §5 rules on the fields sent (with `complete`, every
     * required field of the stored values with these applied); organisation fields are for owners and admins.
     */
    async saveSetup(auth: Auth & { ip?: string }, values: SetupValues, complete?: boolean) {
      if (touchesOrganisation(values) && !['owner', 'admin'].includes(auth.role)) throw new AppError(403, 'forbidden');
      const current = await load(auth);
      const problems = setupProblems(values, { complete, merged: current.values });
      if (problems.length) return { problems };
      const now = new Date().toISOString();
      await account.transaction(async (trx, users) => {
        const u = pick(values, USER_COLS);
        if (Object.keys(u).length) await users.update(auth.userId, u, auth.orgId);
        const m = pick(values, MEMBER_COLS);
        if (auth.ip) m.ip_address = auth.ip;
        if (complete) m.completed_at = now;
        await repo.saveMemberProfile(trx, auth.orgId, auth.userId, m, now);
        if ('organisation_name' in values && clean(values.organisation_name)) await users.renameOrganisation(auth.orgId, clean(values.organisation_name)!);
        const o = pick(values, Object.keys(ORG_COLS), (f) => ORG_COLS[f]);
        if (Object.keys(o).length) await repo.saveOrganisationDetails(trx, auth.orgId, o, now);
        if ('currency' in values && clean(values.currency)) await repo.saveSettings(trx, auth.orgId, auth.userId, { currency: clean(values.currency)! }, now);
      });
      return { profile: await load(auth) };
    },

    /** Language (on the users row), currency, theme, clock and time zone. */
    async saveSettings(auth: Auth, s: { language?: string; currency?: string; dark_theme?: boolean; clock_24h?: boolean; tz_offset_minutes?: number }) {
      const { language, ...rest } = s;
      if (language) await account.users.update(auth.userId, { language });
      if (Object.keys(rest).length) {
        await repo.saveSettings(
          db,
          auth.orgId,
          auth.userId,
          {
            ...(rest.currency !== undefined ? { currency: rest.currency } : {}),
            ...(rest.dark_theme !== undefined ? { dark_theme: rest.dark_theme ? 1 : 0 } : {}),
            ...(rest.clock_24h !== undefined ? { clock_24h: rest.clock_24h ? 1 : 0 } : {}),
            ...(rest.tz_offset_minutes !== undefined ? { tz_offset_minutes: rest.tz_offset_minutes } : {}),
          },
          new Date().toISOString(),
        );
      }
      return (await load(auth)).settings;
    },
  };
}

export type ProfileService = ReturnType<typeof makeProfileService>;
