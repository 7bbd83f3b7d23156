import type { Db } from '../../db/index.js';
import type { ModelThresholdTable } from './db.js';
import './db.js';

/** Every statement on model_thresholds; each takes the organisation. */
export const thresholdRepo = {
  /** The saved thresholds of a project's models. */
  ofProject: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('model_thresholds').select(['model_key', 'threshold']).where('organisation_id', '=', orgId).where('project_id', '=', projectId).execute(),

  find: (db: Db, orgId: string, projectId: string, modelKey: string) =>
    db
      .selectFrom('model_thresholds')
      .select('id')
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('model_key', '=', modelKey)
      .executeTakeFirst(),

  update: (db: Db, id: string, patch: Pick<ModelThresholdTable, 'threshold' | 'updated_by' | 'updated_at'>) =>
    db.updateTable('model_thresholds').set(patch).where('id', '=', id).execute(),

  insert: (db: Db, row: ModelThresholdTable) => db.insertInto('model_thresholds').values(row).execute(),

  /** The project's saved thresholds, or only those of `keys`. */
  remove: (db: Db, orgId: string, projectId: string, keys?: string[]) => {
    let q = db.deleteFrom('model_thresholds').where('organisation_id', '=', orgId).where('project_id', '=', projectId);
    if (keys) q = q.where('model_key', 'in', keys);
    return q.execute();
  },
};
