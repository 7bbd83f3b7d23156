import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { outputGraceMs } from '../../jobs/service.js';
import { datasetKey } from './service.js';
import { datasetRepo } from './repo.js';

/**
 * Dataset folders that were committed but whose row was never stored (the server died between the two) are
 * removed once older than the grace period; a registration in progress on another server is younger than that.
 */
export async function sweepOrphanDatasets(ctx: AppContext, graceMs = outputGraceMs(ctx.config)): Promise<string[]> {
  const orgRoot = path.join(ctx.storage.root, 'org');
  if (!fs.existsSync(orgRoot)) return [];
  const cutoff = Date.now() - graceMs;
  const swept: string[] = [];
  for (const org of fs.readdirSync(orgRoot)) {
    const dir = path.join(orgRoot, org, 'datasets');
    if (!fs.existsSync(dir)) continue;
    const ids = fs.readdirSync(dir);
    if (!ids.length) continue;
    const known = new Set((await datasetRepo.idsIn(ctx.db, org, ids)).map((r) => r.id));
    for (const id of ids) {
      if (known.has(id)) continue;
      let mtime: number;
      try {
        mtime = fs.statSync(path.join(dir, id)).mtimeMs;
      } catch {
        continue;
      }
      if (mtime > cutoff) continue;
      await ctx.storage.remove(datasetKey(org, id));
      swept.push(id);
    }
  }
  if (swept.length) ctx.log.info(`datasets: swept ${swept.length} folder(s) without a dataset row`);
  return swept;
}
