import { registerMigration } from '../../db/migrations.js';

/** One-time links sent by mail: e-mail verification, password reset, invitation. Only the hash is kept. */
export interface AccountTokenTable {
  id: string;
  organisation_id: string;
  user_id: string;
  kind: 'verify' | 'reset' | 'invite' | 'notice';
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** Failed sign-ins (per e-mail, IP address, and the pair) and mail requests per IP, kept so throttling survives restarts. */
export interface LoginFailureTable {
  id: string;
  scope: 'email' | 'ip' | 'pair' | 'mail';
  subject: string;
  created_at: string;
}

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

export type IdentityState = 'under_review' | 'done' | 'rejected';

export interface IdentityVerificationTable {
  id: string;
  organisation_id: string;
  user_id: string;
  state: IdentityState;
  front_key: string;
  back_key: string;
  reason: string | null;
  submitted_at: string;
  reviewed_at: string | null;
  reviewed_by: string | null;
}

/** A sign-in through the directory in progress (state, PKCE verifier), then its one-time hand-over code. */
export interface OidcLoginTable {
  id: string;
  state: string;
  code_verifier: string;
  nonce: string;
  return_to: string | null;
  handover_hash: string | null;
  user_id: string | null;
  id_token: string | null;
  created_at: string;
  used_at: string | null;
}

/** Which organisation a directory (single tenant: the issuer; common: the tenant id or e-mail domain) maps to. */
export interface OidcDirectoryTable {
  key: string;
  organisation_id: string;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    account_tokens: AccountTokenTable;
    login_failures: LoginFailureTable;
    member_profiles: MemberProfileTable;
    user_settings: UserSettingsTable;
    organisation_details: OrganisationDetailsTable;
    identity_verifications: IdentityVerificationTable;
    oidc_logins: OidcLoginTable;
    oidc_directories: OidcDirectoryTable;
  }
}

registerMigration('0600_account', {
  async up(db) {
    await db.schema
      .createTable('account_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('account_tokens_user').on('account_tokens').columns(['user_id', 'kind']).execute();
    await db.schema
      .createTable('login_failures')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('login_failures_subject').on('login_failures').columns(['scope', 'subject', 'created_at']).execute();
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
    await db.schema
      .createTable('identity_verifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('front_key', 'text', (c) => c.notNull())
      .addColumn('back_key', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('submitted_at', 'text', (c) => c.notNull())
      .addColumn('reviewed_at', 'text')
      .addColumn('reviewed_by', 'text')
      .execute();
    await db.schema.createIndex('identity_user').on('identity_verifications').columns(['user_id', 'submitted_at']).execute();
    await db.schema
      .createTable('oidc_logins')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull().unique())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('return_to', 'text')
      .addColumn('handover_hash', 'text')
      .addColumn('user_id', 'text')
      .addColumn('id_token', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema
      .createTable('oidc_directories')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
});
