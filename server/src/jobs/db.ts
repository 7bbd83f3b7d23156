import { registerMigration } from '../db/migrations.js';

/**
 * Each organisation's share of the worker pool: while `paused` is 1 its queued jobs are held back from the
 * queue (running ones finish). Kept in the database so every server of a scale-out deployment agrees.
 */
export interface OrgComputeTable {
  organisation_id: string;
  paused: number;
  changed_by: string | null;
  changed_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    org_compute: OrgComputeTable;
  }
}

registerMigration('0101_security_org_compute', {
  async up(db) {
    await db.schema
      .createTable('org_compute')
      .addColumn('organisation_id', 'text', (c) => c.primaryKey())
      .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('changed_by', 'text')
      .addColumn('changed_at', 'text', (c) => c.notNull())
      .execute();
  },
});

registerMigration('0116_obs_job_request', {
  async up(db) {
    // The request that created a job and its W3C trace context (issue 16): logs and traces follow it to the engine.
    await db.schema.alterTable('jobs').addColumn('request_id', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('trace_json', 'text').execute();
  },
});
