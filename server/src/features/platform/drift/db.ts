import { registerMigration } from '../../../db/migrations.js';
import '../db.js';

/** One sampled input row of an answered request (or, for image models, one served score), written in batches. */
export interface PlatformDriftSampleTable {
  id: string;
  organisation_id: string;
  project_id: string;
  at: string; // ISO time the request was answered
  row_json: string; // {column: value} as served, or {"score": n}
}

/** One drift check (a platform_drift job) and its figures as the engine wrote them. */
export interface PlatformDriftCheckTable {
  id: string;
  organisation_id: string;
  project_id: string;
  job_id: string | null;
  state: 'running' | 'done' | 'failed';
  trigger: 'manual' | 'auto';
  rows: number; // sampled rows in the window compared
  window_from: string | null;
  window_to: string | null;
  result_json: string | null;
  error: string | null;
  created_by: string | null;
  created_at: string;
  finished_at: string | null;
}

/** A project's drift thresholds and window (absent: the defaults of rules.ts). */
export interface PlatformDriftSettingsTable {
  project_id: string;
  organisation_id: string;
  settings_json: string;
  updated_at: string;
}

declare module '../../../db/schema.js' {
  interface Database {
    platform_drift_samples: PlatformDriftSampleTable;
    platform_drift_checks: PlatformDriftCheckTable;
    platform_drift_settings: PlatformDriftSettingsTable;
  }
}

registerMigration('0117_platform_drift', {
  async up(db) {
    await db.schema
      .createTable('platform_drift_samples')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('platform_projects.id').onDelete('cascade'))
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('row_json', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('platform_drift_samples_project').on('platform_drift_samples').columns(['project_id', 'at']).execute();
    await db.schema
      .createTable('platform_drift_checks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('platform_projects.id').onDelete('cascade'))
      .addColumn('job_id', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('rows', 'integer', (c) => c.notNull())
      .addColumn('window_from', 'text')
      .addColumn('window_to', 'text')
      .addColumn('result_json', 'text')
      .addColumn('error', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema.createIndex('platform_drift_checks_project').on('platform_drift_checks').columns(['project_id', 'created_at']).execute();
    await db.schema.createIndex('platform_drift_checks_job').on('platform_drift_checks').columns(['job_id']).execute();
    await db.schema
      .createTable('platform_drift_settings')
      .addColumn('project_id', 'text', (c) => c.primaryKey().references('platform_projects.id').onDelete('cascade'))
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('settings_json', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
});
