import { registerMigration } from '../../db/migrations.js';

/** A training project of one tabular type (regression, soft sensor, discriminant analysis, clustering, dimensional compression). */
export interface TrainingProjectTable {
  id: string;
  organisation_id: string;
  project_type: string;
  name: string;
  dataset_id: string;
  dataset_name: string;
  number_of_data: number;
  config_json: string; // target, features, split, folds, trials, auto-tune, balance, variance threshold, lags, windows
  job_id: string | null; // the latest training job
  error: string | null; // why the latest training failed as a whole (bad data found by the engine)
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** One model of a project: an algorithm with its hyper-parameters and, once trained, its metrics and files. */
export interface TrainingModelTable {
  id: string;
  organisation_id: string;
  project_id: string;
  model_index: number;
  model_key: string;
  algorithm: string;
  params_json: string;
  state: string; // ready | training | failed | done
  metrics_json: string | null;
  summary_json: string | null; // cv folds, tuned hyper-parameters, seconds
  error: string | null;
  log: string | null;
  run_key: string | null; // storage folder of the run that produced the files
  trained_at: string | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    training_projects: TrainingProjectTable;
    training_models: TrainingModelTable;
  }
}

registerMigration('0400_training', {
  async up(db) {
    await db.schema
      .createTable('training_projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('project_type', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('dataset_id', 'text', (c) => c.notNull())
      .addColumn('dataset_name', 'text', (c) => c.notNull())
      .addColumn('number_of_data', 'bigint', (c) => c.notNull())
      .addColumn('config_json', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text')
      .addColumn('error', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('training_projects_org').on('training_projects').columns(['organisation_id', 'project_type']).execute();
    await db.schema
      .createTable('training_models')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('training_projects.id').onDelete('cascade'))
      .addColumn('model_index', 'integer', (c) => c.notNull())
      .addColumn('model_key', 'text', (c) => c.notNull())
      .addColumn('algorithm', 'text', (c) => c.notNull())
      .addColumn('params_json', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('metrics_json', 'text')
      .addColumn('summary_json', 'text')
      .addColumn('error', 'text')
      .addColumn('log', 'text')
      .addColumn('run_key', 'text')
      .addColumn('trained_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('training_models_project').on('training_models').columns(['project_id', 'model_index']).execute();
  },
});
