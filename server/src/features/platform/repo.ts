import type { Db } from '../../db/index.js';
import type { PlatformStatus } from './db.js';

/** SQL on the platform area's hosted APIs that other areas need (through services.ts); more of the area's
 * statements move here as its service is split. */
export const platformRepo = {
  /** Hosted APIs in one of `statuses` that were reviewed once, of one organisation or of all. */
  reviewedIn: (db: Db, statuses: readonly PlatformStatus[], orgId?: string) => {
    let q = db.selectFrom('platform_projects').selectAll().where('status', 'in', [...statuses]).where('reviewed_at', 'is not', null);
    if (orgId) q = q.where('organisation_id', '=', orgId);
    return q.execute();
  },
};
