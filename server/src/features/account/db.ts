import { registerMigration, runMigrationParts } from '../../db/migrations.js';

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
// tables; each area's db.ts holds its part (a landed migration keeps its name and what it makes).
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
    // The tables of profile, identity and single sign-on, made by their own db.ts in this migration's place.
    await runMigrationParts('0600_account', db, ['profile', 'identity', 'oidc']);
  },
});
