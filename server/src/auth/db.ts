import { registerMigration } from '../db/migrations.js';

/**
 * Sign-in sessions: one per refresh-token family, named in every access token (`sid`). Ending a session
 * (logout, password reset, a leaked refresh token) refuses its access tokens at once, not after they expire.
 */
export interface AuthSessionTable {
  id: string;
  user_id: string;
  created_at: string;
  ended_at: string | null;
}

declare module '../db/schema.js' {
  interface Database {
    auth_sessions: AuthSessionTable;
  }
}

registerMigration('0101_security_sessions', {
  async up(db) {
    await db.schema
      .createTable('auth_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .execute();
    await db.schema.createIndex('auth_sessions_user').on('auth_sessions').columns(['user_id']).execute();
  },
});
