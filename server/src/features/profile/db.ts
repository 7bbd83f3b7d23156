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

// Made by the account area's migration 0600_account.
declare module '../../db/schema.js' {
  interface Database {
    member_profiles: MemberProfileTable;
    user_settings: UserSettingsTable;
    organisation_details: OrganisationDetailsTable;
  }
}
