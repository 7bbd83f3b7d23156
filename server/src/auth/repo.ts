import type { Db } from '../db/index.js';
import { tokenUser } from '../features/account/repo.js';
import './db.js';

/**
 * Every statement on the sign-in sessions (auth_sessions, this layer's table). The users table is the account
 * area's: the guard reads the token's user through that area's narrow `tokenUser`.
 */

/** What every authenticated request reads (guard.ts): the token's user and its sign-in session, both by id. */
export const tokenHolder = (db: Db, userId: string, sessionId: string) =>
  Promise.all([tokenUser(db, userId), db.selectFrom('auth_sessions').select(['user_id', 'ended_at']).where('id', '=', sessionId).executeTakeFirst()]);

export const sessionExists = async (q: Db, id: string) => !!(await q.selectFrom('auth_sessions').select('id').where('id', '=', id).executeTakeFirst());

export const sessionEnded = async (q: Db, id: string) => !!(await q.selectFrom('auth_sessions').select('ended_at').where('id', '=', id).executeTakeFirst())?.ended_at;

export const insertSession = async (q: Db, row: { id: string; user_id: string; created_at: string }) => {
  await q.insertInto('auth_sessions').values({ ...row, ended_at: null }).execute();
};

export const endSession = async (q: Db, id: string, at: string) => {
  await q.updateTable('auth_sessions').set({ ended_at: at }).where('id', '=', id).where('ended_at', 'is', null).execute();
};

export const endUserSessions = async (q: Db, userId: string, at: string) => {
  await q.updateTable('auth_sessions').set({ ended_at: at }).where('user_id', '=', userId).where('ended_at', 'is', null).execute();
};
