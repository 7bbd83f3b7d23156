import { registerMigrationPart } from '../../db/migrations.js';
import '../account/db.js';

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

declare module '../../db/schema.js' {
  interface Database {
    identity_verifications: IdentityVerificationTable;
  }
}

// Landed in the account area's migration 0600_account, which runs this part in its place.
registerMigrationPart('0600_account', 'identity', async (db) => {
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
});
