import { registerMigration } from '../../db/migrations.js';

/** A prediction (inference): a trained model applied to an inference dataset, run as a job. */
export interface PredictionTable {
  id: string;
  organisation_id: string;
  name: string;
  project_id: string;
  project_name: string;
  project_type: string;
  model_key: string;
  dataset_id: string;
  dataset_name: string;
  job_id: string | null;
  result_key: string; // storage folder of predictions.parquet / predictions.csv
  created_by: string | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    predictions: PredictionTable;
  }
}

registerMigration('0401_predictions', {
  async up(db) {
    await db.schema
      .createTable('predictions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('project_name', 'text', (c) => c.notNull())
      .addColumn('project_type', 'text', (c) => c.notNull())
      .addColumn('model_key', 'text', (c) => c.notNull())
      .addColumn('dataset_id', 'text', (c) => c.notNull())
      .addColumn('dataset_name', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text')
      .addColumn('result_key', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('predictions_org').on('predictions').columns(['organisation_id', 'created_at']).execute();
  },
});
