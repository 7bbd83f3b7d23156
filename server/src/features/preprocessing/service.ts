import fs from 'node:fs';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { datasetKey, type DatasetService } from '../datasets/service.js';
import { M } from './messages.js';
import { preprocessRepo } from './repo.js';
import { makePreprocessBase, type PreprocessDeps } from './base.js';
import { deleteCondition, saveCondition } from './conditions.js';
import { load, preview, result, run } from './runs.js';
import { register } from './register.js';

// what other modules import from here (moved beside it, issue 32)
export { conditionView } from './conditions.js';

/** Where the condition with fitted parameters of a preprocessed dataset is kept (see engine preprocessing/__init__.py). */
const conditionKey = (orgId: string, datasetId: string) => `${datasetKey(orgId, datasetId)}/condition.json`;

/** The condition (with fitted parameters) that produced a preprocessed dataset. */
async function conditionOfDataset(d: PreprocessDeps, auth: AuthContext, datasetId: string) {
  const { datasets, storage } = d;
  const row = await datasets.getRow(auth, datasetId);
  const key = conditionKey(row.organisation_id, row.id);
  if (!storage.exists(key)) throw new AppError(404, M.noCondition);
  return JSON.parse(fs.readFileSync(storage.pathOf(key), 'utf8'));
}

export function makePreprocessService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const deps = makePreprocessBase(ctx, { datasets });
  const { db, getCondition } = deps;
  const on = <A extends unknown[], R>(f: (d: PreprocessDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);

  return {
    conditions: {
      list: (orgId: string) => preprocessRepo.conditions(db, orgId),
      get: (orgId: string, id: string) => preprocessRepo.condition(db, orgId, id),
      byName: (orgId: string, name: string) => preprocessRepo.conditionNamed(db, orgId, name),
    },
    getCondition,
    saveCondition: on(saveCondition),
    deleteCondition: on(deleteCondition),
    load: on(load),
    preview: on(preview),
    run: on(run),
    result: on(result),
    register: on(register),
    conditionOfDataset: on(conditionOfDataset),
  };
}
