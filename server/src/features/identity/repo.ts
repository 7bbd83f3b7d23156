import type { Db } from '../../db/index.js';
import './db.js';
import type { IdentityState, IdentityVerificationTable } from './db.js';

/** Every statement on identity_verifications. */

export const latest = (q: Db, orgId: string, userId: string) =>
  q.selectFrom('identity_verifications').selectAll().where('user_id', '=', userId).where('organisation_id', '=', orgId).orderBy('submitted_at', 'desc').executeTakeFirst();

export const insert = async (q: Db, row: IdentityVerificationTable) => {
  await q.insertInto('identity_verifications').values(row).execute();
};

/** Whether the organisation has a verified identity. */
export const verified = async (q: Db, orgId: string) =>
  !!(await q.selectFrom('identity_verifications').select('id').where('organisation_id', '=', orgId).where('state', '=', 'done').executeTakeFirst());

/** The organisation's identity as payment sees it: verified by anyone of it, else one under review, else not done. */
export async function orgState(q: Db, orgId: string): Promise<'done' | 'under_review' | 'not_done'> {
  const rows = await q.selectFrom('identity_verifications').select('state').where('organisation_id', '=', orgId).execute();
  if (rows.some((r) => r.state === 'done')) return 'done';
  if (rows.some((r) => r.state === 'under_review')) return 'under_review';
  return 'not_done';
}

/** Across organisations: only the platform administrators' review lists them. Newest first. */
export function list(q: Db, state: IdentityState | 'all') {
  let s = q.selectFrom('identity_verifications').selectAll().orderBy('submitted_at', 'desc');
  if (state !== 'all') s = s.where('state', '=', state);
  return s.execute();
}

/** Across organisations, for the platform administrators' review. */
export const byId = (q: Db, id: string) => q.selectFrom('identity_verifications').selectAll().where('id', '=', id).executeTakeFirst();

/** Records a decision on a verification under review; false when it was decided already. */
export async function decide(q: Db, id: string, d: { state: IdentityState; reason: string | null; reviewed_at: string; reviewed_by: string }): Promise<boolean> {
  const res = await q.updateTable('identity_verifications').set(d).where('id', '=', id).where('state', '=', 'under_review').executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
