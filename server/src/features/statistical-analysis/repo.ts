import type { Db } from '../../db/index.js';
import type { StatisticalProjectTable } from './db.js';
import './db.js'; // the area's tables and migrations

/** SQL of statistical projects; every query is filtered by the organisation. */
export const projectRepo = {
  insert: (db: Db, row: StatisticalProjectTable) => db.insertInto('statistical_projects').values(row).execute(),

  get: (db: Db, orgId: string, id: string) =>
    db.selectFrom('statistical_projects').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  async list(db: Db, orgId: string, f: { state?: string; query?: string; page: number; page_size: number }) {
    let q = db.selectFrom('statistical_projects').where('organisation_id', '=', orgId);
    if (f.state) q = q.where('state', '=', f.state);
    if (f.query) {
      const like = `%${f.query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or((['name', 'dataset_name', 'variable1', 'comment'] as const).map((c) => eb(eb.fn('lower', [c]), 'like', eb.val(like)))));
    }
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const items = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(f.page_size)
      .offset((f.page - 1) * f.page_size)
      .execute();
    return { items, total };
  },

  /** Every project of a state (or all), without the stored results: for pickers and tab counts. */
  all: (db: Db, orgId: string, state?: string) => {
    let q = db
      .selectFrom('statistical_projects')
      .select(['id', 'name', 'state', 'test_type', 'dataset_id', 'dataset_name', 'created_at', 'finished_at'])
      .where('organisation_id', '=', orgId);
    if (state) q = q.where('state', '=', state);
    return q.orderBy('created_at', 'desc').execute();
  },

  counts: (db: Db, orgId: string) =>
    db
      .selectFrom('statistical_projects')
      .select(['state', (eb) => eb.fn.countAll().as('n')])
      .where('organisation_id', '=', orgId)
      .groupBy('state')
      .execute(),

  update: (db: Db, orgId: string, id: string, patch: Partial<StatisticalProjectTable>) =>
    db.updateTable('statistical_projects').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  /** Stores a run's outcome only if that run is still the project's current one. */
  finishRun: (db: Db, orgId: string, id: string, jobId: string, patch: Partial<StatisticalProjectTable>) =>
    db
      .updateTable('statistical_projects')
      .set(patch)
      .where('organisation_id', '=', orgId)
      .where('id', '=', id)
      .where('job_id', '=', jobId)
      .executeTakeFirst(),

  delete: (db: Db, orgId: string, id: string) =>
    db.deleteFrom('statistical_projects').where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
};
