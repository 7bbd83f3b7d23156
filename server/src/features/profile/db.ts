import { registerMigrationPart } from '../../db/migrations.js';
import '../account/db.js';

/** SPEC §3 Member fields beyond the users row, and the account's name. */
export interface MemberProfileTable {
  user_id: string;
  organisation_id: string;
  middle_name: string | null;
  birth_date: string | null;
  gender: string | null;
  phone: string | null;
  country_code: string | null;
  state_or_province: string | null;
  city: string | null;
  postal_code: string | null;
  address: string | null;
  ip_address: string | null;
  account_name: string | null;
  completed_at: string | null;
  updated_at: string;
}

/** SPEC §3 Account and the display settings of §9. */
export interface UserSettingsTable {
  user_id: string;
  organisation_id: string;
  currency: string;
  dark_theme: number;
  clock_24h: number;
  tz_offset_minutes: number;
  updated_at: string;
}

/** SPEC §3 Organisation (the name itself stays on organisations.name). */
export interface OrganisationDetailsTable {
  organisation_id: string;
  vat_number: string | null;
  registration_number: string | null;
  ceo: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
  size: string | null;
  industry: string | null;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    member_profiles: MemberProfileTable;
    user_settings: UserSettingsTable;
    organisation_details: OrganisationDetailsTable;
  }
}

// Landed in the account area's migration 0600_account, which runs this part in its place.
registerMigrationPart('0600_account', 'profile', async (db) => {
  await db.schema
    .createTable('member_profiles')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull())
    .addColumn('middle_name', 'text')
    .addColumn('birth_date', 'text')
    .addColumn('gender', 'text')
    .addColumn('phone', 'text')
    .addColumn('country_code', 'text')
    .addColumn('state_or_province', 'text')
    .addColumn('city', 'text')
    .addColumn('postal_code', 'text')
    .addColumn('address', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('account_name', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('dark_theme', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clock_24h', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('tz_offset_minutes', 'integer', (c) => c.notNull().defaultTo(540))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('organisation_details')
    .addColumn('organisation_id', 'text', (c) => c.primaryKey())
    .addColumn('vat_number', 'text')
    .addColumn('registration_number', 'text')
    .addColumn('ceo', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('website', 'text')
    .addColumn('size', 'text')
    .addColumn('industry', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
});
