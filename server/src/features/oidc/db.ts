import { registerMigrationPart } from '../../db/migrations.js';
import '../account/db.js';

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
    oidc_logins: OidcLoginTable;
    oidc_directories: OidcDirectoryTable;
  }
}

// Landed in the account area's migration 0600_account, which runs this part in its place.
registerMigrationPart('0600_account', 'oidc', async (db) => {
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
});
