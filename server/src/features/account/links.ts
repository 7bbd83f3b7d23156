import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { newOpaqueToken, sha256 } from '../../auth/tokens.js';
import type { AccountTokenTable } from './db.js';
import { M } from './messages.js';

type Kind = AccountTokenTable['kind'];

export const MAIL_LIMIT = 5;

/** One-time links: a random token goes in the mail, only its hash is stored; issuing a new one voids the older ones. */
export function makeLinks(db: Kysely<Database>) {
  const now = () => new Date().toISOString();
  return {
    async issue(kind: Kind, user: { id: string; organisation_id: string }, ttlMs: number): Promise<string> {
      const token = newOpaqueToken();
      await db
        .updateTable('account_tokens')
        .set({ used_at: now() })
        .where('user_id', '=', user.id)
        .where('kind', '=', kind)
        .where('used_at', 'is', null)
        .execute();
      await db
        .insertInto('account_tokens')
        .values({
          id: crypto.randomUUID(),
          organisation_id: user.organisation_id,
          user_id: user.id,
          kind,
          token_hash: sha256(token),
          expires_at: new Date(Date.now() + ttlMs).toISOString(),
          used_at: null,
          created_at: now(),
        })
        .execute();
      return token;
    },

    /**
     * At most MAIL_LIMIT mails per account and hour from the public forms (resend, forgot, register), so they
     * cannot be used to flood someone's mailbox; past it the forms answer the same and send nothing.
     */
    async mayMail(userId: string): Promise<boolean> {
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const rows = await db.selectFrom('account_tokens').select('id').where('user_id', '=', userId).where('created_at', '>', since).limit(MAIL_LIMIT).execute();
      return rows.length < MAIL_LIMIT;
    },

    /** Counts a mail that carries no link (the 'already registered' notice) towards the hourly limit. */
    async noteMail(user: { id: string; organisation_id: string }) {
      await db
        .insertInto('account_tokens')
        .values({ id: crypto.randomUUID(), organisation_id: user.organisation_id, user_id: user.id, kind: 'notice' as Kind, token_hash: sha256(newOpaqueToken()), expires_at: now(), used_at: now(), created_at: now() })
        .execute();
    },

    /** The valid, unused link row, or a 400 'invalid, expired or used'. */
    async peek(kind: Kind, token: string, q: Kysely<Database> = db) {
      const row = await q
        .selectFrom('account_tokens')
        .selectAll()
        .where('token_hash', '=', sha256(token))
        .where('kind', '=', kind)
        .executeTakeFirst();
      if (!row || row.used_at || row.expires_at <= now()) throw new AppError(400, M.linkInvalid);
      return row;
    },

    /** Marks the link used (pass the transaction: SQLite has one connection, so `db` would wait for it); a second, concurrent use loses the race and gets the same 400. */
    async consume(kind: Kind, token: string, trx: Kysely<Database> = db) {
      const row = await this.peek(kind, token, trx);
      const res = await trx
        .updateTable('account_tokens')
        .set({ used_at: now() })
        .where('id', '=', row.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError(400, M.linkInvalid);
      return row;
    },
  };
}
