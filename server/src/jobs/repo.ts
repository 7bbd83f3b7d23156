import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { JobState, JobTable } from '../db/schema.js';

export type JobRow = Selectable<JobTable>;
/** Columns a state change may set (`seq` and `attempts` move by themselves). */
export type JobPatch = Partial<Omit<JobRow, 'id' | 'seq' | 'attempts'>>;
export const ACTIVE_STATES: JobState[] = ['queued', 'running'];
export const TERMINAL_STATES: JobState[] = ['succeeded', 'failed', 'cancelled'];

/** SQL on the jobs table; every change bumps `seq`, so a poller can tell that something moved. */
export class JobRepo {
  constructor(private db: Db) {}

  async insert(row: Omit<JobRow, 'seq'>): Promise<void> {
    await this.db.insertInto('jobs').values(row).execute();
  }

  get(orgId: string, id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  getAny(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
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

  async logOf(id: string): Promise<string> {
    const row = await this.db.selectFrom('jobs').select('log').where('id', '=', id).executeTakeFirst();
    return row?.log ?? '';
  }
}
