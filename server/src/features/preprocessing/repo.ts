import type { Db } from '../../db/index.js';
import type { PreprocessConditionTable, PreprocessRunTable } from './db.js';
import './db.js'; // the area's tables and migrations

/** SQL on the pre-processing area's own tables (saved conditions and runs); every query takes the organisation. A
 * query that is part of a transaction takes the transaction as its `db`. */
export const preprocessRepo = {
  conditions: (db: Db, orgId: string) => db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).orderBy('updated_at', 'desc').execute(),
  condition: (db: Db, orgId: string, id: string) => db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  conditionNamed: (db: Db, orgId: string, name: string) => db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).where('name', '=', name).executeTakeFirst(),
  insertCondition: (db: Db, row: PreprocessConditionTable) => db.insertInto('preprocess_conditions').values(row).execute(),
  updateCondition: (db: Db, orgId: string, id: string, patch: Partial<PreprocessConditionTable>) =>
    db.updateTable('preprocess_conditions').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),
  deleteCondition: (db: Db, orgId: string, id: string) => db.deleteFrom('preprocess_conditions').where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  run: (db: Db, orgId: string, id: string) => db.selectFrom('preprocess_runs').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  insertRun: (db: Db, row: PreprocessRunTable) => db.insertInto('preprocess_runs').values(row).execute(),
  /** Marks a run registered as `datasetId` unless it already is: whether this call did. */
  claimRun: async (db: Db, orgId: string, id: string, patch: { dataset_id: string; condition_json: string; registered_at: string }) => {
    const claimed = await db.updateTable('preprocess_runs').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).where('dataset_id', 'is', null).executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  },
};
