import { registerMigration } from '../../db/migrations.js';

/** A named preprocessing condition (SPEC §3): an ordered list of steps; fitted figures of its latest run. */
export interface PreprocessConditionTable {
  id: string;
  organisation_id: string;
  name: string;
  steps_json: string;
  /** the condition with fitted parameters of its latest registered run (JSON), or null */
  fitted_json: string | null;
  datetime_column: string | null;
  source_dataset_id: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** One run of a condition on a dataset: its id is the temporary dataset's id (temp_id) and the job's id. */
export interface PreprocessRunTable {
  id: string;
  organisation_id: string;
  source_dataset_id: string;
  condition_id: string | null;
  condition_name: string;
  steps_json: string;
  /** the registered dataset, once registered */
  dataset_id: string | null;
  /** the condition with every step's fitted parameters (JSON), once the run succeeded and was registered */
  condition_json: string | null;
  created_by: string | null;
  created_at: string;
  registered_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    preprocess_conditions: PreprocessConditionTable;
    preprocess_runs: PreprocessRunTable;
  }
}

registerMigration('0300_preprocessing', {
  async up(db) {
    await db.schema
      .createTable('preprocess_conditions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('steps_json', 'text', (c) => c.notNull())
      .addColumn('fitted_json', 'text')
      .addColumn('datetime_column', 'text')
      .addColumn('source_dataset_id', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('preprocess_conditions_org_name').on('preprocess_conditions').columns(['organisation_id', 'name']).unique().execute();
    await db.schema
      .createTable('preprocess_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('source_dataset_id', 'text', (c) => c.notNull())
      .addColumn('condition_id', 'text')
      .addColumn('condition_name', 'text', (c) => c.notNull())
      .addColumn('steps_json', 'text', (c) => c.notNull())
      .addColumn('dataset_id', 'text')
      .addColumn('condition_json', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('registered_at', 'text')
      .execute();
    await db.schema.createIndex('preprocess_runs_org_dataset').on('preprocess_runs').columns(['organisation_id', 'dataset_id']).execute();
  },
});
