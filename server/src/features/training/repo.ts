import type { Db } from '../../db/index.js';
import type { TrainingModelTable, TrainingProjectTable } from './db.js';
import './db.js';

/**
 * Every SQL statement on training_projects and training_models: the projects and model runs of tables, time series
 * and images. Every query takes the organisation: a project of another organisation does not exist for the caller.
 */
export const trainingRepo = {
  /** A project with its models, in one transaction. */
  insertProject: (db: Db, project: TrainingProjectTable, models: TrainingModelTable[]) =>
    db.transaction().execute(async (trx) => {
      await trx.insertInto('training_projects').values(project).execute();
      for (const m of models) await trx.insertInto('training_models').values(m).execute();
    }),

  getProject: (db: Db, orgId: string, id: string) =>
    db.selectFrom('training_projects').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  projectOfJob: (db: Db, orgId: string, jobId: string) =>
    db.selectFrom('training_projects').select(['id']).where('organisation_id', '=', orgId).where('job_id', '=', jobId).executeTakeFirst(),

  /** Projects of a type (or all), searched by name or dataset name, newest first, paged. */
  async listProjects(db: Db, orgId: string, q: { query: string; project_type?: string; page: number; page_size: number }) {
    let sel = db.selectFrom('training_projects').where('organisation_id', '=', orgId);
    if (q.project_type) sel = sel.where('project_type', '=', q.project_type);
    if (q.query) {
      const like = `%${q.query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      sel = sel.where((eb) => eb.or([eb(eb.fn('lower', ['name']), 'like', like), eb(eb.fn('lower', ['dataset_name']), 'like', like)]));
    }
    const total = Number((await sel.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const rows = await sel
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(q.page_size)
      .offset((q.page - 1) * q.page_size)
      .execute();
    return { rows, total };
  },

  /** The newest projects of some types (at most `limit`). */
  projectsOfTypes: (db: Db, orgId: string, types: readonly string[], limit: number) =>
    db
      .selectFrom('training_projects')
      .selectAll()
      .where('organisation_id', '=', orgId)
      .where('project_type', 'in', [...types])
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute(),

  updateProject: (db: Db, orgId: string, id: string, patch: Partial<Pick<TrainingProjectTable, 'name' | 'config_json' | 'job_id' | 'error' | 'updated_at'>>) =>
    db.updateTable('training_projects').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  /** New settings, and (when given) a new set of models in place of the old ones, in one transaction. */
  replaceSettings: (db: Db, orgId: string, id: string, patch: Pick<TrainingProjectTable, 'name' | 'config_json' | 'updated_at'>, models: TrainingModelTable[] | null) =>
    db.transaction().execute(async (trx) => {
      await trx.updateTable('training_projects').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute();
      if (models) {
        await trx.deleteFrom('training_models').where('organisation_id', '=', orgId).where('project_id', '=', id).execute();
        for (const m of models) await trx.insertInto('training_models').values(m).execute();
      }
    }),

  async deleteProject(db: Db, orgId: string, id: string) {
    await db.deleteFrom('training_models').where('organisation_id', '=', orgId).where('project_id', '=', id).execute();
    await db.deleteFrom('training_projects').where('organisation_id', '=', orgId).where('id', '=', id).execute();
  },

  modelsOf: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('training_models').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('model_index').execute(),

  /** A model by its key (`<index>_<algorithm>`), or also by its id when `orId`. */
  getModel: (db: Db, orgId: string, projectId: string, key: string, orId: boolean) =>
    db
      .selectFrom('training_models')
      .selectAll()
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where((eb) => (orId ? eb.or([eb('model_key', '=', key), eb('id', '=', key)]) : eb('model_key', '=', key)))
      .executeTakeFirst(),

  /** The chosen models start training into `runKey`; `resetMetrics` also forgets the last run's figures. */
  markTraining: (db: Db, orgId: string, projectId: string, keys: string[], runKey: string, resetMetrics: boolean) =>
    db
      .updateTable('training_models')
      .set({ state: 'training', error: null, log: null, run_key: runKey, ...(resetMetrics ? { metrics_json: null } : {}) })
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('model_key', 'in', keys)
      .execute(),

  updateModel: (db: Db, orgId: string, projectId: string, key: string, patch: Partial<TrainingModelTable>) =>
    db.updateTable('training_models').set(patch).where('organisation_id', '=', orgId).where('project_id', '=', projectId).where('model_key', '=', key).execute(),

  updateModelById: (db: Db, orgId: string, id: string, patch: Partial<TrainingModelTable>) =>
    db.updateTable('training_models').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  /** Every model still training or waiting fails with the run's reason. */
  failUnfinished: (db: Db, orgId: string, projectId: string, reason: string, log: string) =>
    db
      .updateTable('training_models')
      .set({ state: 'failed', error: reason, log })
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('state', 'in', ['training', 'ready'])
      .execute(),

  /** The organisation's trained models with their project, newest first (the ones a hosted API can publish). */
  trainedModels: (db: Db, orgId: string) =>
    db
      .selectFrom('training_models as m')
      .innerJoin('training_projects as p', 'p.id', 'm.project_id')
      .select(['p.id as project_id', 'p.name as project_name', 'p.project_type', 'm.model_key', 'm.algorithm', 'm.metrics_json', 'm.trained_at'])
      .where('m.organisation_id', '=', orgId)
      .where('p.organisation_id', '=', orgId)
      .where('m.state', '=', 'done')
      .orderBy('m.trained_at', 'desc')
      .execute(),
};
