import { registerMigration } from '../../db/migrations.js';

/** An optimal design project (SPEC §3): the design space and model, and the evaluation of a user's design. */
export interface OptimalDesignProjectTable {
  id: string;
  organisation_id: string;
  name: string;
  comment: string;
  /** JSON: variables, constraints, mixture_total, model, responses, exclude {rows, tolerance}, existing_rows, existing_project_ids */
  settings_json: string;
  /** the state of the newest round: running | done | failed */
  state: string;
  rounds: number;
  eval_job_id: string | null;
  eval_state: string | null;
  eval_error: string | null;
  eval_result_json: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One round: the algorithm, the job that proposed its runs, and the results measured for them. */
export interface OptimalDesignRoundTable {
  id: string;
  organisation_id: string;
  project_id: string;
  round: number;
  algorithm: string;
  n_runs: number;
  /** JSON: seed, starts, parameters, bo */
  parameters_json: string;
  state: string;
  job_id: string | null;
  error: string | null;
  result_json: string | null;
  /** JSON rows: the runs with their measured results, once uploaded */
  results_json: string | null;
  created_at: string;
  finished_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    optimal_design_projects: OptimalDesignProjectTable;
    optimal_design_rounds: OptimalDesignRoundTable;
  }
}

registerMigration('0107_doe_optimal_design', {
  async up(db) {
    await db.schema
      .createTable('optimal_design_projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('settings_json', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('rounds', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('eval_job_id', 'text')
      .addColumn('eval_state', 'text')
      .addColumn('eval_error', 'text')
      .addColumn('eval_result_json', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('optimal_design_projects_org').on('optimal_design_projects').columns(['organisation_id', 'state', 'created_at']).execute();
    await db.schema
      .createTable('optimal_design_rounds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('round', 'integer', (c) => c.notNull())
      .addColumn('algorithm', 'text', (c) => c.notNull())
      .addColumn('n_runs', 'integer', (c) => c.notNull())
      .addColumn('parameters_json', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text')
      .addColumn('error', 'text')
      .addColumn('result_json', 'text')
      .addColumn('results_json', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema.createIndex('optimal_design_rounds_project').on('optimal_design_rounds').columns(['organisation_id', 'project_id', 'round']).unique().execute();
  },
});
