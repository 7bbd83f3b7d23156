import { registerMigration } from '../../db/migrations.js';

/**
 * Settings of this installation that platform administrators change in the app (issue 33): one row a key, the value
 * as JSON. A key that has no row falls back to its environment variable (README), so an installation configured only
 * through the environment keeps working; a row overrides it.
 */
export interface InstallationSettingTable {
  key: string; // 'first_admin' | 'bank_account' | 'platform_review'
  value_json: string;
  updated_at: string;
  updated_by: string | null; // user id; null when the server wrote it (the first account's claim)
}

declare module '../../db/schema.js' {
  interface Database {
    installation_settings: InstallationSettingTable;
  }
}

registerMigration('0700_installation_settings', {
  async up(db) {
    await db.schema
      .createTable('installation_settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value_json', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .execute();
  },
});
