import { registerMigration } from '../../db/migrations.js';

/** A statistical project (SPEC §3): the test's settings, its state, and the result of its last run. */
export interface StatisticalProjectTable {
  id: string;
  organisation_id: string;
  dataset_id: string;
  dataset_name: string;
  name: string;
  comment: string;
  test_type: string;
  variable1: string;
  variable2: string | null;
  category: string | null;
  group1: string | null;
  group2: string | null;
  /** JSON text: the category values compared by ANOVA ([] = all of them) */
  groups_json: string;
  hypothetical_mean: number;
  significance_level: number;
  alternative: string;
  equal_variance: string;
  /** ready | running | done | failed */
  state: string;
  job_id: string | null;
  error: string | null;
  result_json: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    statistical_projects: StatisticalProjectTable;
  }
}

registerMigration('0500_statistical_analysis', {
  async up(db) {
    await db.schema
      .createTable('statistical_projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('dataset_id', 'text', (c) => c.notNull())
      .addColumn('dataset_name', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('test_type', 'text', (c) => c.notNull())
      .addColumn('variable1', 'text', (c) => c.notNull())
      .addColumn('variable2', 'text')
      .addColumn('category', 'text')
      .addColumn('group1', 'text')
      .addColumn('group2', 'text')
      .addColumn('groups_json', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('hypothetical_mean', 'double precision', (c) => c.notNull().defaultTo(0))
      .addColumn('significance_level', 'double precision', (c) => c.notNull().defaultTo(0.05))
      .addColumn('alternative', 'text', (c) => c.notNull().defaultTo('two-sided'))
      .addColumn('equal_variance', 'text', (c) => c.notNull().defaultTo('auto'))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text')
      .addColumn('error', 'text')
      .addColumn('result_json', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema.createIndex('statistical_projects_org').on('statistical_projects').columns(['organisation_id', 'state', 'created_at']).execute();
  },
});
