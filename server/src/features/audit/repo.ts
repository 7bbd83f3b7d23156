import type { Db } from '../../db/index.js';
import type { AuditEventTable } from './db.js';
import './db.js';

/** Every statement on audit_events. */

export const insert = async (q: Db, row: AuditEventTable) => {
  await q.insertInto('audit_events').values(row).execute();
};

/** One page of the organisation's events, newest first (ids are time-ordered), and how many there are. */
export async function page(q: Db, orgId: string, opts: { action?: string; page: number; pageSize: number }) {
  let s = q.selectFrom('audit_events').where('organisation_id', '=', orgId);
  if (opts.action) s = s.where('action', '=', opts.action);
  const { n } = await s.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await s
    .select(['id', 'created_at', 'actor_email', 'user_id', 'action', 'method', 'route', 'subject_id', 'status', 'ip'])
    .orderBy('id', 'desc')
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .execute();
  return { total: Number(n), rows };
}
