import { registerMigration } from '../../db/migrations.js';

export type PlatformStatus = 'draft' | 'under_review' | 'approved' | 'rejected' | 'running' | 'stopped';

/** A hosted model API (SPEC §3 'Platform project'): a frozen copy of one trained model and its settings. */
export interface PlatformProjectTable {
  id: string;
  organisation_id: string;
  name: string;
  key: string; // the URL key: /serve/{key}/predict (unique across organisations)
  status: PlatformStatus;
  reason: string | null; // why a review rejected it
  model_project_id: string;
  model_project_name: string;
  model_key: string;
  model_type: string;
  model_dir: string; // storage key of the frozen model.joblib, manifest.json [, condition.json]
  settings_json: string; // the SPEC §3 fields (content language, industry, ..., expected requests)
  subscription_price: number; // minor units of the price list's currency, per billing cycle
  infrastructure_price: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  reviewed_at: string | null;
  reviewed_by: string | null;
}

/** An API key of a platform project; only the SHA-256 of the secret is kept. */
export interface PlatformCredentialTable {
  id: string;
  organisation_id: string;
  project_id: string;
  name: string;
  kind: 'production' | 'sandbox';
  prefix: string;
  key_hash: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Request statistics, written in batches: one row per flush and (hour, path, status, device, browser, os). */
export interface PlatformRequestStatTable {
  id: string;
  organisation_id: string;
  project_id: string;
  hour: string; // ISO hour, e.g. 2026-11-23T15
  path: string;
  status: number;
  device: string;
  browser: string;
  os: string;
  count: number;
  total_ms: number;
}

declare module '../../db/schema.js' {
  interface Database {
    platform_projects: PlatformProjectTable;
    platform_credentials: PlatformCredentialTable;
    platform_request_stats: PlatformRequestStatTable;
  }
}

registerMigration('0108_platform_hosted_apis', {
  async up(db) {
    await db.schema
      .createTable('platform_projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('model_project_id', 'text', (c) => c.notNull())
      .addColumn('model_project_name', 'text', (c) => c.notNull())
      .addColumn('model_key', 'text', (c) => c.notNull())
      .addColumn('model_type', 'text', (c) => c.notNull())
      .addColumn('model_dir', 'text', (c) => c.notNull())
      .addColumn('settings_json', 'text', (c) => c.notNull())
      .addColumn('subscription_price', 'bigint', (c) => c.notNull())
      .addColumn('infrastructure_price', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('reviewed_at', 'text')
      .addColumn('reviewed_by', 'text')
      .execute();
    await db.schema.createIndex('platform_projects_org').on('platform_projects').columns(['organisation_id', 'created_at']).execute();
    await db.schema
      .createTable('platform_credentials')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('platform_projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('platform_credentials_project').on('platform_credentials').columns(['project_id']).execute();
    await db.schema
      .createTable('platform_request_stats')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('platform_projects.id').onDelete('cascade'))
      .addColumn('hour', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('os', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('total_ms', 'double precision', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('platform_request_stats_project').on('platform_request_stats').columns(['project_id', 'hour']).execute();
  },
});
