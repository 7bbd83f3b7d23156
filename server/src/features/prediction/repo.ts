import type { Db } from '../../db/index.js';
import type { PredictionTable } from './db.js';
import './db.js';

/** Every SQL statement on predictions; every query takes the organisation. */
export const predictionRepo = {
  get: (db: Db, orgId: string, id: string) => db.selectFrom('predictions').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  insert: (db: Db, row: PredictionTable) => db.insertInto('predictions').values(row).execute(),

  setJob: (db: Db, orgId: string, id: string, jobId: string) => db.updateTable('predictions').set({ job_id: jobId }).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  delete: (db: Db, orgId: string, id: string) => db.deleteFrom('predictions').where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  /** Predictions whose name, project or dataset holds `query` (every one for '', '*' or '-'), newest first, paged. */
  async list(db: Db, orgId: string, query: string, page: number, pageSize: number) {
    let q = db.selectFrom('predictions').where('organisation_id', '=', orgId);
    if (query && query !== '*' && query !== '-') {
      const like = `%${query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or(['name', 'project_name', 'dataset_name'].map((c) => eb(eb.fn('lower', [c as 'name']), 'like', like))));
    }
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(pageSize).offset((page - 1) * pageSize).execute();
    return { rows, total };
  },
};
