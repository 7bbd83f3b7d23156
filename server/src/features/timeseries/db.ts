import { registerMigration } from '../../db/migrations.js';

/** The threshold a person saved for a model (SPEC §3 Model.threshold); predictions after that use it. */
export interface ModelThresholdTable {
  id: string;
  organisation_id: string;
  project_id: string;
  model_key: string;
  threshold: number;
  updated_by: string | null;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    model_thresholds: ModelThresholdTable;
  }
}

// A table of its own (not a column of training_models) so it does not depend on the order of other areas' migrations.
registerMigration('0104_tsad_thresholds', {
  async up(db) {
    await db.schema
      .createTable('model_thresholds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('model_key', 'text', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('model_thresholds_model').unique().on('model_thresholds').columns(['organisation_id', 'project_id', 'model_key']).execute();
  },
});
