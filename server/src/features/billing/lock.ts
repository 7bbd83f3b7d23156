import type { Db } from '../../db/index.js';
import * as repo from './repo.js';

/**
 * Whether a platform project is locked for an unpaid invoice (SPEC §4). Serving asks on every request, so the
 * answer is cached for a second per project; this server's own payments and locks clear the cache at once,
 * other servers see them within the second. The cache belongs to the app's database handle (one per app
 * instance): two apps in one process share nothing, and every billing part of one app clears the one cache.
 */
const caches = new WeakMap<Db, Map<string, { locked: boolean; at: number }>>();
const TTL_MS = 1000;

function cacheOf(db: Db) {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new Map()));
  return c;
}

export async function projectLocked(db: Db, projectId: string): Promise<boolean> {
  const cache = cacheOf(db);
  const hit = cache.get(projectId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.locked;
  const locked = await repo.locked(db, projectId);
  cache.set(projectId, { locked, at: Date.now() });
  if (cache.size > 10_000) cache.clear();
  return locked;
}

export function forgetLock(db: Db, projectId: string): void {
  cacheOf(db).delete(projectId);
}
