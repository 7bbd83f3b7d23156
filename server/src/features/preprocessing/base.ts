import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { DatasetService } from '../datasets/service.js';
import { M } from './messages.js';
import { preprocessRepo } from './repo.js';

export const now = () => new Date().toISOString();

/** What the service's modules share: the app's database, DuckDB, jobs, storage and log, the datasets area, and the
 * condition and run reads. */
export function makePreprocessBase(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const { db, jobs, storage, duckdb, log, config } = ctx;

  async function getCondition(auth: AuthContext, id: string) {
    const c = await preprocessRepo.condition(db, auth.orgId, id);
    if (!c) throw new AppError(404, M.conditionNotFound);
    return c;
  }

  async function getRun(auth: AuthContext, id: string) {
    const run = await preprocessRepo.run(db, auth.orgId, id);
    if (!run) throw new AppError(404, M.runNotFound);
    return run;
  }

  return { db, jobs, storage, duckdb, log, config, datasets, getCondition, getRun };
}
export type PreprocessDeps = ReturnType<typeof makePreprocessBase>;
