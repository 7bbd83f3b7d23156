import type { Db } from '../../db/index.js';
import type { OptimalDesignProjectTable, OptimalDesignRoundTable } from './db.js';
import './db.js'; // the area's tables and migrations

/** SQL of optimal design projects and their rounds; every query is filtered by the organisation. */
export const designRepo = {
  insert: (db: Db, row: OptimalDesignProjectTable) => db.insertInto('optimal_design_projects').values(row).execute(),
  insertRound: (db: Db, row: OptimalDesignRoundTable) => db.insertInto('optimal_design_rounds').values(row).execute(),

  get: (db: Db, orgId: string, id: string) =>
    db.selectFrom('optimal_design_projects').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  rounds: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('optimal_design_rounds').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('round').execute(),

  async list(db: Db, orgId: string, f: { state?: string; query?: string; page: number; page_size: number }) {
    let q = db.selectFrom('optimal_design_projects').where('organisation_id', '=', orgId);
    if (f.state) q = q.where('state', '=', f.state);
    if (f.query) {
      const like = `%${f.query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or((['name', 'comment'] as const).map((c) => eb(eb.fn('lower', [c]), 'like', eb.val(like)))));
    }
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const items = await q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.page_size).offset((f.page - 1) * f.page_size).execute();
    return { items, total };
  },

  all: (db: Db, orgId: string, state?: string) => {
    let q = db.selectFrom('optimal_design_projects').selectAll().where('organisation_id', '=', orgId);
    if (state) q = q.where('state', '=', state);
    return q.orderBy('created_at', 'desc').execute();
  },

  counts: (db: Db, orgId: string) =>
    db.selectFrom('optimal_design_projects').select(['state', (eb) => eb.fn.countAll().as('n')]).where('organisation_id', '=', orgId).groupBy('state').execute(),

  update: (db: Db, orgId: string, id: string, patch: Partial<OptimalDesignProjectTable>) =>
    db.updateTable('optimal_design_projects').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  updateRound: (db: Db, orgId: string, projectId: string, round: number, patch: Partial<OptimalDesignRoundTable>) =>
    db.updateTable('optimal_design_rounds').set(patch).where('organisation_id', '=', orgId).where('project_id', '=', projectId).where('round', '=', round).execute(),

  /** Stores a round's outcome only if that job is still the round's job. */
  finishRound: (db: Db, orgId: string, jobId: string, patch: Partial<OptimalDesignRoundTable>) =>
    db.updateTable('optimal_design_rounds').set(patch).where('organisation_id', '=', orgId).where('job_id', '=', jobId).executeTakeFirst(),

  roundOfJob: (db: Db, orgId: string, jobId: string) =>
    db.selectFrom('optimal_design_rounds').selectAll().where('organisation_id', '=', orgId).where('job_id', '=', jobId).executeTakeFirst(),

  deleteRound: (db: Db, orgId: string, projectId: string, round: number) =>
    db.deleteFrom('optimal_design_rounds').where('organisation_id', '=', orgId).where('project_id', '=', projectId).where('round', '=', round).execute(),

  async delete(db: Db, orgId: string, id: string) {
    await db.deleteFrom('optimal_design_rounds').where('organisation_id', '=', orgId).where('project_id', '=', id).execute();
    await db.deleteFrom('optimal_design_projects').where('organisation_id', '=', orgId).where('id', '=', id).execute();
  },
};
