import crypto from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { PlatformCredentialTable, PlatformProjectTable, PlatformRequestStatTable, PlatformStatus } from './db.js';
import './db.js';

/** A statistics row before it has an id (StatsRecorder's cell). */
export type StatCell = Omit<PlatformRequestStatTable, 'id'>;

/**
 * Every SQL statement on the hosted APIs' tables: platform_projects, platform_credentials, platform_request_stats.
 * Queries take the organisation, except those across organisations by design: the serving gateway (by URL key),
 * the platform administrators' review and billing's runs over all organisations.
 */
export const platformRepo = {
  // ---- projects -----------------------------------------------------------------------------------------

  get: (db: Db, orgId: string, id: string) =>
    db.selectFrom('platform_projects').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  /** Across organisations: the platform administrators' review. */
  byId: (db: Db, id: string) => db.selectFrom('platform_projects').selectAll().where('id', '=', id).executeTakeFirst(),

  /** Across organisations: the serving gateway finds a project by its URL key (unique across organisations). */
  byKey: (db: Db, key: string) => db.selectFrom('platform_projects').selectAll().where('key', '=', key).executeTakeFirst(),

  /** Whether a URL key is in use, in any organisation. */
  keyTaken: async (db: Db, key: string) => !!(await db.selectFrom('platform_projects').select('id').where('key', '=', key).executeTakeFirst()),

  /** Across organisations: which of `ids` are still projects (drift's sampler drops the rows of deleted ones). */
  existing: async (db: Db, ids: string[]) => new Set((await db.selectFrom('platform_projects').select('id').where('id', 'in', ids).execute()).map((p) => p.id)),

  /** Across organisations: a project's organisation (drift's checks run from a project id alone). */
  owner: (db: Db, id: string) => db.selectFrom('platform_projects').select(['id', 'organisation_id']).where('id', '=', id).executeTakeFirst(),

  insert: async (db: Db, row: PlatformProjectTable) => {
    await db.insertInto('platform_projects').values(row).execute();
  },

  /** Projects of the organisation (one status or all), newest first, paged. */
  async page(db: Db, orgId: string, q: { status: string; page: number; page_size: number }) {
    let s = db.selectFrom('platform_projects').where('organisation_id', '=', orgId);
    if (q.status !== 'all') s = s.where('status', '=', q.status as PlatformStatus);
    const total = Number((await s.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const rows = await s.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(q.page_size).offset((q.page - 1) * q.page_size).execute();
    return { rows, total };
  },

  /** Across organisations: the review queue (one status or all), last changed first. */
  queue(db: Db, status: string) {
    let q = db.selectFrom('platform_projects').selectAll();
    if (status !== 'all') q = q.where('status', '=', status as PlatformStatus);
    return q.orderBy('updated_at', 'desc').execute();
  },

  update: async (db: Db, orgId: string, id: string, change: Partial<PlatformProjectTable>) => {
    await db.updateTable('platform_projects').set(change).where('organisation_id', '=', orgId).where('id', '=', id).execute();
  },

  /** A change guarded by the status read, so two concurrent clicks move it once; false when it moved meanwhile. */
  async moveFrom(db: Db, orgId: string, id: string, status: PlatformStatus, change: Partial<PlatformProjectTable>): Promise<boolean> {
    const res = await db.updateTable('platform_projects').set(change).where('organisation_id', '=', orgId).where('id', '=', id).where('status', '=', status).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /** Across organisations: a review decision on a project still under review; false when it was decided already. */
  async decide(db: Db, id: string, change: Partial<PlatformProjectTable>): Promise<boolean> {
    const res = await db.updateTable('platform_projects').set(change).where('id', '=', id).where('status', '=', 'under_review').executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /** The project with its statistics and keys. */
  remove: async (db: Db, orgId: string, id: string) => {
    await db.deleteFrom('platform_request_stats').where('project_id', '=', id).execute();
    await db.deleteFrom('platform_credentials').where('project_id', '=', id).execute();
    await db.deleteFrom('platform_projects').where('organisation_id', '=', orgId).where('id', '=', id).execute();
  },

  /** Hosted APIs in one of `statuses` that were reviewed once, of one organisation or of all. */
  reviewedIn: (db: Db, statuses: readonly PlatformStatus[], orgId?: string) => {
    let q = db.selectFrom('platform_projects').selectAll().where('status', 'in', [...statuses]).where('reviewed_at', 'is not', null);
    if (orgId) q = q.where('organisation_id', '=', orgId);
    return q.execute();
  },

  // ---- credentials (API keys) ---------------------------------------------------------------------------

  credentials: (db: Db, orgId: string, projectId: string) =>
    db.selectFrom('platform_credentials').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('created_at', 'desc').execute(),

  credential: (db: Db, orgId: string, projectId: string, id: string) =>
    db.selectFrom('platform_credentials').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst(),

  /** Reads a credential found by `credential` again (its id was scoped then). */
  credentialById: (db: Db, id: string) => db.selectFrom('platform_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),

  insertCredential: async (db: Db, row: PlatformCredentialTable) => {
    await db.insertInto('platform_credentials').values(row).execute();
  },

  revokeCredential: async (db: Db, id: string, at: string) => {
    await db.updateTable('platform_credentials').set({ revoked_at: at }).where('id', '=', id).execute();
  },

  /** The keys a project's calls may use (the serving gateway). */
  liveCredentials: (db: Db, projectId: string) => db.selectFrom('platform_credentials').selectAll().where('project_id', '=', projectId).where('revoked_at', 'is', null).execute(),

  // ---- request statistics -------------------------------------------------------------------------------

  /** One flush of the statistics in one transaction: the cells of projects that still exist, and the keys' last use. */
  writeStats: (db: Db, cells: StatCell[], used: [string, number][]) =>
    db.transaction().execute(async (tx) => {
      const live = new Set(
        cells.length ? (await tx.selectFrom('platform_projects').select('id').where('id', 'in', [...new Set(cells.map((c) => c.project_id))]).execute()).map((p) => p.id) : [],
      );
      const rows = cells.filter((c) => live.has(c.project_id)).map((c) => ({ id: crypto.randomUUID(), ...c }));
      for (let i = 0; i < rows.length; i += 200) await tx.insertInto('platform_request_stats').values(rows.slice(i, i + 200)).execute();
      for (const [id, at] of used) await tx.updateTable('platform_credentials').set({ last_used_at: new Date(at).toISOString() }).where('id', '=', id).execute();
    }),

  /** Answered calls of a project and their serving time in [fromHour, toHour) (ISO hours): the only billed usage.
   * Refusals (no or wrong key, locked, bad input, rate limit, server faults) are never billed. */
  async billableUsage(db: Db, projectId: string, fromHour: string, toHour: string): Promise<{ requests: number; ms: number }> {
    const r = await db
      .selectFrom('platform_request_stats')
      .select((eb) => [eb.fn.sum<number>('count').as('requests'), eb.fn.sum<number>('total_ms').as('ms')])
      .where('project_id', '=', projectId)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .where('status', '>=', 200)
      .where('status', '<', 300) // answered only (refusalOf(status) === null)
      .executeTakeFirst();
    return { requests: Number(r?.requests ?? 0), ms: Number(r?.ms ?? 0) };
  },

  /** A project's statistics rows since `from` (ISO hour). */
  statRows: (db: Db, orgId: string, projectId: string, from: string) =>
    db
      .selectFrom('platform_request_stats')
      .select(['hour', 'path', 'status', 'device', 'browser', 'os', 'count', 'total_ms'])
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('hour', '>=', from)
      .execute(),
};
