import { registerMigration } from '../../db/migrations.js';

/**
 * The audit log: who did what in an organisation. Every successful change made through the API (and every
 * sign-in, failed or not) is one row, written after the answer by an onResponse hook, so no feature has to
 * remember to call it. Owners and administrators read it at GET /api/audit (the web page /audit).
 */
export interface AuditEventTable {
  id: string;
  organisation_id: string;
  user_id: string | null;
  actor_email: string;
  action: string;
  method: string;
  route: string;
  subject_id: string | null;
  status: number;
  ip: string;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    audit_events: AuditEventTable;
  }
}

registerMigration('0301_scale_audit_events', {
  async up(db) {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('actor_email', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text')
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_events_org_time').on('audit_events').columns(['organisation_id', 'created_at']).execute();
  },
});
