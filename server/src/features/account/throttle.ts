import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AccountError } from './messages.js';
import type { AccountSettings } from './settings.js';

/**
 * Repeated failed sign-ins are throttled per e-mail and per IP address. Failures are rows in the database,
 * so a restart does not reset the count and several server instances share it.
 */
export function makeThrottle(db: Kysely<Database>, s: AccountSettings) {
  const windowMs = s.loginWindowMin * 60_000;
  const since = () => new Date(Date.now() - windowMs).toISOString();

  async function count(scope: 'email' | 'ip', subject: string) {
    const rows = await db
      .selectFrom('login_failures')
      .select('created_at')
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .where('created_at', '>', since())
      .orderBy('created_at')
      .execute();
    return rows;
  }

  return {
    async check(email: string, ip: string) {
      for (const [scope, subject, max] of [
        ['email', email, s.loginLimitPerEmail],
        ['ip', ip, s.loginLimitPerIp],
      ] as const) {
        const rows = await count(scope, subject);
        if (rows.length >= max) {
          // The window frees up when the oldest counted failure leaves it.
          const freeAt = new Date(rows[rows.length - max].created_at).getTime() + windowMs;
          const minutes = Math.max(1, Math.ceil((freeAt - Date.now()) / 60_000));
          throw new AccountError(429, 'tooManyAttempts', { minutes });
        }
      }
    },
    async fail(email: string, ip: string) {
      const created_at = new Date().toISOString();
      await db
        .insertInto('login_failures')
        .values([
          { id: crypto.randomUUID(), scope: 'email', subject: email, created_at },
          { id: crypto.randomUUID(), scope: 'ip', subject: ip, created_at },
        ])
        .execute();
      // Keep the table small: failures older than a day no longer matter.
      await db.deleteFrom('login_failures').where('created_at', '<', new Date(Date.now() - Math.max(windowMs, 86_400_000)).toISOString()).execute();
    },
    async clear(email: string) {
      await db.deleteFrom('login_failures').where('scope', '=', 'email').where('subject', '=', email).execute();
    },
  };
}
