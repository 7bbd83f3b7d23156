import type { Db } from '../db/index.js';
import './db.js';

/** What every authenticated request reads (guard.ts): the token's user and its sign-in session, both by id. */
export const tokenHolder = (db: Db, userId: string, sessionId: string) =>
  Promise.all([
    db.selectFrom('users').select(['organisation_id', 'role', 'status', 'email']).where('id', '=', userId).executeTakeFirst(),
    db.selectFrom('auth_sessions').select(['user_id', 'ended_at']).where('id', '=', sessionId).executeTakeFirst(),
  ]);
