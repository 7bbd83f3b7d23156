import { registerMigration } from '../../db/migrations.js';

/** An optimisation project (SPEC §3): the models, targets with goals, feature settings, constraints and algorithms. */
export interface OptimizationProjectTable {
  id: string;
  organisation_id: string;
  name: string;
  comment: string;
  dataset_id: string; // the source dataset every model was trained on
  dataset_name: string;
  settings_json: string; // models, targets, features, constraints, algorithms, n_trials, seed, forbid_extrapolation
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** The latest run of one algorithm of a project; its state and result live in the job. */
export interface OptimizationRunTable {
  id: string;
  organisation_id: string;
  project_id: string;
  algorithm: string;
  job_id: string;
  result_key: string; // storage folder with trials.csv and best.csv
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    optimization_projects: OptimizationProjectTable;
    optimization_runs: OptimizationRunTable;
  }
}

registerMigration('0106_optimization', {
  async up(db) {
    await db.schema
      .createTable('optimization_projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('dataset_id', 'text', (c) => c.notNull())
      .addColumn('dataset_name', 'text', (c) => c.notNull())
      .addColumn('settings_json', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('optimization_projects_org').on('optimization_projects').columns(['organisation_id', 'created_at']).execute();
    await db.schema
      .createTable('optimization_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('optimization_projects.id').onDelete('cascade'))
      .addColumn('algorithm', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('result_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('optimization_runs_project').on('optimization_runs').columns(['organisation_id', 'project_id', 'algorithm']).execute();
  },
});
