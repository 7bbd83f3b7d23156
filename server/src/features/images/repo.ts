import type { Db } from '../../db/index.js';
import type { ImageEpochTable } from './db.js';
import './db.js';

/** SQL on the images area's own table (the epoch curves); every query takes the organisation. */
export const imageRepo = {
  epochsOf: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('image_epochs').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('epoch').execute(),

  insertEpoch: (db: Db, row: ImageEpochTable) => db.insertInto('image_epochs').values(row).execute(),

  deleteEpochs: (db: Db, orgId: string, projectId: string) => db.deleteFrom('image_epochs').where('organisation_id', '=', orgId).where('project_id', '=', projectId).execute(),
};
