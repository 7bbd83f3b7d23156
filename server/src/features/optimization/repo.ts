import type { Db } from '../../db/index.js';
import type { OptimizationProjectTable, OptimizationRunTable } from './db.js';
import './db.js';

/** SQL on the optimisation area's own tables (projects and their runs); every query takes the organisation. */
export const optimizationRepo = {
  get: (db: Db, orgId: string, id: string) => db.selectFrom('optimization_projects').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  insert: (db: Db, row: OptimizationProjectTable) => db.insertInto('optimization_projects').values(row).execute(),

  rename: (db: Db, orgId: string, id: string, name: string, at: string) =>
    db.updateTable('optimization_projects').set({ name, updated_at: at }).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  touch: (db: Db, orgId: string, id: string, at: string) => db.updateTable('optimization_projects').set({ updated_at: at }).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  /** Projects newest first, those whose name or dataset name holds `query` (any case) when given. */
  list: (db: Db, orgId: string, query?: string) => {
    let rows = db.selectFrom('optimization_projects').selectAll().where('organisation_id', '=', orgId);
    if (query && query !== '*') {
      const like = `%${query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      rows = rows.where((eb) => eb.or([eb(eb.fn('lower', ['name']), 'like', like), eb(eb.fn('lower', ['dataset_name']), 'like', like)]));
    }
    return rows.orderBy('created_at', 'desc').orderBy('id').execute();
  },

  /** The project and its runs. */
  delete: async (db: Db, orgId: string, id: string) => {
    await db.deleteFrom('optimization_runs').where('organisation_id', '=', orgId).where('project_id', '=', id).execute();
    await db.deleteFrom('optimization_projects').where('organisation_id', '=', orgId).where('id', '=', id).execute();
  },

  runsOf: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('created_at').execute(),

  run: (db: Db, orgId: string, id: string) => db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  runOf: (db: Db, orgId: string, projectId: string, algorithm: string) =>
    db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).where('algorithm', '=', algorithm).executeTakeFirst(),

  /** A project's run of one algorithm, in place of the one before. */
  replaceRun: async (db: Db, row: OptimizationRunTable) => {
    await db.deleteFrom('optimization_runs').where('organisation_id', '=', row.organisation_id).where('project_id', '=', row.project_id).where('algorithm', '=', row.algorithm).execute();
    await db.insertInto('optimization_runs').values(row).execute();
  },
};
