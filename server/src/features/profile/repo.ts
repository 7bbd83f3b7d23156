import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import '../account/db.js';
import { ORGANISATION_FIELDS, REQUIRED_FOR_COMPLETION, type SetupField, type SetupValues } from '../account/rules.js';

export const DEFAULT_SETTINGS = { currency: 'JPY', dark_theme: 0, clock_24h: 1, tz_offset_minutes: 540 };

/** Where each setup field is stored. */
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

/** The signed-in person's whole profile: SPEC §3 Profile, Member, Account and Organisation. */
export async function loadProfile(db: Kysely<Database>, userId: string, orgId: string) {
  const user = await db
    .selectFrom('users')
    .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
    .select(['users.id', 'users.email', 'users.first_name', 'users.last_name', 'users.role', 'users.status', 'users.language', 'users.department', 'users.office_location', 'users.password_hash', 'users.created_at', 'organisations.name as organisation_name'])
    .where('users.id', '=', userId)
    .where('users.organisation_id', '=', orgId)
    .executeTakeFirst();
  if (!user) throw new AppError(404, 'not_found');
  const member = await db.selectFrom('member_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const org = await db.selectFrom('organisation_details').selectAll().where('organisation_id', '=', orgId).executeTakeFirst();
  const settings = await db.selectFrom('user_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const identity = await db
    .selectFrom('identity_verifications')
    .select(['state', 'reason', 'submitted_at', 'reviewed_at'])
    .where('user_id', '=', userId)
    .orderBy('submitted_at', 'desc')
    .executeTakeFirst();
  const values: SetupValues = {
    first_name: user.first_name,
    last_name: user.last_name,
    department: user.department,
    office_location: user.office_location,
    organisation_name: user.organisation_name,
  };
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
    identity: { state: identity?.state ?? 'not_done', reason: identity?.reason ?? null, submitted_at: identity?.submitted_at ?? null, reviewed_at: identity?.reviewed_at ?? null },
  };
}

export async function ensureSettings(db: Kysely<Database>, userId: string, orgId: string) {
  const row = await db.selectFrom('user_settings').select('user_id').where('user_id', '=', userId).executeTakeFirst();
  if (!row) {
    await db
      .insertInto('user_settings')
      .values({ user_id: userId, organisation_id: orgId, ...DEFAULT_SETTINGS, updated_at: new Date().toISOString() })
      .execute();
  }
}

/** Writes the given setup fields to their tables (already validated). */
export async function saveSetup(db: Kysely<Database>, userId: string, orgId: string, v: SetupValues, extra: { ip?: string; complete?: boolean } = {}) {
  const now = new Date().toISOString();
  const clean = (x: string | null | undefined) => (typeof x === 'string' ? x.trim() || null : null);
  await db.transaction().execute(async (trx) => {
    const u: Record<string, string | null> = {};
    for (const c of USER_COLS) if (c in v) u[c] = clean(v[c]);
    if (Object.keys(u).length) await trx.updateTable('users').set(u).where('id', '=', userId).where('organisation_id', '=', orgId).execute();

    const m: Record<string, string | null> = {};
    for (const c of MEMBER_COLS) if (c in v) m[c] = clean(v[c]);
    if (extra.ip) m.ip_address = extra.ip;
    if (extra.complete) m.completed_at = now;
    const hasMember = await trx.selectFrom('member_profiles').select('user_id').where('user_id', '=', userId).executeTakeFirst();
    if (hasMember) await trx.updateTable('member_profiles').set({ ...m, updated_at: now }).where('user_id', '=', userId).execute();
    else await trx.insertInto('member_profiles').values({ user_id: userId, organisation_id: orgId, updated_at: now, ...m } as never).execute();

    if ('organisation_name' in v && clean(v.organisation_name)) {
      await trx.updateTable('organisations').set({ name: clean(v.organisation_name)! }).where('id', '=', orgId).execute();
    }
    const o: Record<string, string | null> = {};
    for (const [f, c] of Object.entries(ORG_COLS)) if (f in v) o[c] = clean(v[f as SetupField]);
    if (Object.keys(o).length) {
      const hasOrg = await trx.selectFrom('organisation_details').select('organisation_id').where('organisation_id', '=', orgId).executeTakeFirst();
      if (hasOrg) await trx.updateTable('organisation_details').set({ ...o, updated_at: now }).where('organisation_id', '=', orgId).execute();
      else await trx.insertInto('organisation_details').values({ organisation_id: orgId, updated_at: now, ...o } as never).execute();
    }
    if ('currency' in v && clean(v.currency)) {
      await ensureSettings(trx as unknown as Kysely<Database>, userId, orgId);
      await trx.updateTable('user_settings').set({ currency: clean(v.currency)!, updated_at: now }).where('user_id', '=', userId).execute();
    }
  });
}

export const touchesOrganisation = (v: SetupValues) => ORGANISATION_FIELDS.some((f) => f in v);
