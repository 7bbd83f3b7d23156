import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { JobState, JobTable } from '../db/schema.js';
import './db.js';

export type JobRow = Selectable<JobTable>;
/** Columns a state change may set (`seq` and `attempts` move by themselves). */
export type JobPatch = Partial<Omit<JobRow, 'id' | 'seq' | 'attempts'>>;
export const ACTIVE_STATES: JobState[] = ['queued', 'running'];
export const TERMINAL_STATES: JobState[] = ['succeeded', 'failed', 'cancelled'];

/** SQL on the jobs table; every change bumps `seq`, so a poller can tell that something moved. */
export class JobRepo {
  constructor(private db: Db) {}

  async insert(row: Omit<JobRow, 'seq' | 'request_id' | 'trace_json'> & Partial<Pick<JobRow, 'request_id' | 'trace_json'>>): Promise<void> {
    await this.db.insertInto('jobs').values(row).execute();
  }

  get(orgId: string, id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  getAny(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Across organisations (the /metrics scrape): kind, state and times of the jobs finished since `since`. */
  finishedSince(since: string) {
    return this.db
      .selectFrom('jobs')
      .select(['kind', 'state', 'started_at', 'finished_at'])
      .where('finished_at', '>=', since)
      .execute();
  }

  /** Across organisations (platform operations): jobs waiting or running by kind, the oldest waiting, the
   * finished since `since` by state, and the 20 latest failures with their organisation (its name is the account
   * area's: the operations service asks it). */
  operations(since: string) {
    const db = this.db;
    return Promise.all([
      db.selectFrom('jobs').select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('n')]).where('state', 'in', ['queued', 'running']).groupBy(['kind', 'state']).execute(),
      db.selectFrom('jobs').select((eb) => eb.fn.min('created_at').as('at')).where('state', '=', 'queued').executeTakeFirst(),
      db.selectFrom('jobs').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).where('state', 'in', ['succeeded', 'failed', 'cancelled']).where('finished_at', '>=', since).groupBy('state').execute(),
      db
        .selectFrom('jobs')
        .select(['id', 'kind', 'organisation_id', 'error', 'attempts', 'finished_at', 'request_id'])
        .where('state', '=', 'failed')
        .orderBy('finished_at', 'desc')
        .limit(20)
        .execute(),
    ]);
  }

  /** Ids of the queued or running jobs of a subject. */
  async activeIdsFor(orgId: string, subjectType: string, subjectId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('organisation_id', '=', orgId)
      .where('subject_type', '=', subjectType)
      .where('subject_id', '=', subjectId)
      .where('state', 'in', ['queued', 'running'])
      .execute();
    return rows.map((r) => r.id);
  }

  latestFor(orgId: string, subjectType: string, subjectId: string, kind?: string): Promise<JobRow | undefined> {
    let q = this.db
      .selectFrom('jobs')
      .selectAll()
      .where('organisation_id', '=', orgId)
      .where('subject_type', '=', subjectType)
      .where('subject_id', '=', subjectId);
    if (kind) q = q.where('kind', '=', kind);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** Jobs that were not finished, oldest first (recovery at start-up). */
  unfinished(): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('state', 'in', ACTIVE_STATES).orderBy('created_at').orderBy('id').execute();
  }

  /**
   * Applies `patch` only while the row is in one of `from`; answers whether it did. The guard is what keeps
   * a late event (a result after a cancel, say) from overwriting a finished job.
   */
  async transition(id: string, from: JobState[], patch: JobPatch, bumpAttempts = false): Promise<JobRow | undefined> {
    return this.db
      .updateTable('jobs')
      .set({
        ...patch,
        seq: sql<number>`seq + 1`,
        ...(bumpAttempts ? { attempts: sql<number>`attempts + 1` } : {}),
      })
      .where('id', '=', id)
      .where('state', 'in', from)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * A queue that counts its own starts (BullMQ): the row becomes running as that attempt, only while it is queued or
   * running under an earlier attempt. Several servers hearing the same start, in any order, count it once.
   */
  async startAttempt(id: string, attempt: number, patch: JobPatch): Promise<JobRow | undefined> {
    return this.db
      .updateTable('jobs')
      .set({ ...patch, state: 'running', attempts: attempt, seq: sql<number>`seq + 1` })
      .where('id', '=', id)
      .where('state', 'in', ['queued', 'running'])
      .where('attempts', '<', attempt)
      .returningAll()
      .executeTakeFirst();
  }

  /** Queued rows of one organisation, oldest first. */
  queuedOf(orgId: string): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('organisation_id', '=', orgId)
      .where('state', '=', 'queued')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** How many of one organisation's jobs wait and run. */
  async countsOf(orgId: string): Promise<{ queued: number; active: number }> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('organisation_id', '=', orgId)
      .where('state', 'in', ACTIVE_STATES)
      .groupBy('state')
      .execute();
    const n = (s: JobState) => Number(rows.find((r) => r.state === s)?.n ?? 0);
    return { queued: n('queued'), active: n('running') };
  }

  async isPaused(orgId: string): Promise<boolean> {
    const row = await this.db.selectFrom('org_compute').select('paused').where('organisation_id', '=', orgId).executeTakeFirst();
    return Number(row?.paused ?? 0) === 1;
  }

  async pausedOrgs(): Promise<Set<string>> {
    const rows = await this.db.selectFrom('org_compute').select('organisation_id').where('paused', '=', 1).execute();
    return new Set(rows.map((r) => r.organisation_id));
  }

  async setPaused(orgId: string, paused: boolean, by: string | null): Promise<void> {
    const values = { paused: paused ? 1 : 0, changed_by: by, changed_at: new Date().toISOString() };
    await this.db
      .insertInto('org_compute')
      .values({ organisation_id: orgId, ...values })
      .onConflict((oc) => oc.column('organisation_id').doUpdateSet(values))
      .execute();
  }

  async logOf(id: string): Promise<string> {
    const row = await this.db.selectFrom('jobs').select('log').where('id', '=', id).executeTakeFirst();
    return row?.log ?? '';
  }
}
