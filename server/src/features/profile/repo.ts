import type { Db } from '../../db/index.js';
import './db.js';
import type { MemberProfileTable, OrganisationDetailsTable, UserSettingsTable } from './db.js';

/** Every statement on the profile's tables: member_profiles, organisation_details and user_settings. Each takes the executor first, so a caller may pass a transaction. */

export const DEFAULT_SETTINGS = { currency: 'JPY', dark_theme: 0, clock_24h: 1, tz_offset_minutes: 540 };

export const memberProfile = (q: Db, orgId: string, userId: string) =>
  q.selectFrom('member_profiles').selectAll().where('user_id', '=', userId).where('organisation_id', '=', orgId).executeTakeFirst();

export const organisationDetails = (q: Db, orgId: string) => q.selectFrom('organisation_details').selectAll().where('organisation_id', '=', orgId).executeTakeFirst();

export const userSettings = (q: Db, orgId: string, userId: string) =>
  q.selectFrom('user_settings').selectAll().where('user_id', '=', userId).where('organisation_id', '=', orgId).executeTakeFirst();

type MemberFields = Partial<Omit<MemberProfileTable, 'user_id' | 'organisation_id' | 'updated_at'>>;

export async function saveMemberProfile(q: Db, orgId: string, userId: string, m: MemberFields, at: string) {
  const has = await q.selectFrom('member_profiles').select('user_id').where('user_id', '=', userId).where('organisation_id', '=', orgId).executeTakeFirst();
  if (has) await q.updateTable('member_profiles').set({ ...m, updated_at: at }).where('user_id', '=', userId).execute();
  else await q.insertInto('member_profiles').values({ user_id: userId, organisation_id: orgId, updated_at: at, ...m } as never).execute();
}

type OrganisationFields = Partial<Omit<OrganisationDetailsTable, 'organisation_id' | 'updated_at'>>;

export async function saveOrganisationDetails(q: Db, orgId: string, o: OrganisationFields, at: string) {
  const has = await q.selectFrom('organisation_details').select('organisation_id').where('organisation_id', '=', orgId).executeTakeFirst();
  if (has) await q.updateTable('organisation_details').set({ ...o, updated_at: at }).where('organisation_id', '=', orgId).execute();
  else await q.insertInto('organisation_details').values({ organisation_id: orgId, updated_at: at, ...o } as never).execute();
}

type SettingsFields = Partial<Pick<UserSettingsTable, 'currency' | 'dark_theme' | 'clock_24h' | 'tz_offset_minutes'>>;

/** Changes the person's settings, making their row with the defaults first when they have none. */
export async function saveSettings(q: Db, orgId: string, userId: string, s: SettingsFields, at: string) {
  const row = await q.selectFrom('user_settings').select('user_id').where('user_id', '=', userId).where('organisation_id', '=', orgId).executeTakeFirst();
  if (!row) await q.insertInto('user_settings').values({ user_id: userId, organisation_id: orgId, ...DEFAULT_SETTINGS, updated_at: at }).execute();
  await q.updateTable('user_settings').set({ ...s, updated_at: at }).where('user_id', '=', userId).execute();
}
