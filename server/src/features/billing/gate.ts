import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import { projectLocked } from './lock.js';
import { M } from './messages.js';

/** Serving's one call: refuses with 402 'project locked for unpaid invoice' while the project is locked. */
export async function lockCheck(db: Db, projectId: string): Promise<void> {
  if (await projectLocked(db, projectId)) throw new AppError(402, M.projectLocked);
}
