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

declare module '../../db/schema.js' {
  interface Database {
    account_tokens: AccountTokenTable;
    login_failures: LoginFailureTable;
  }
}

// Landed before profile, identity and single sign-on were areas of their own, this migration also makes their
// tables (declared in their db.ts); a landed migration is never edited.
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
