import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import { newOpaqueToken, sha256 } from '../../auth/tokens.js';
import type { AccountTokenTable } from './db.js';
import * as repo from './repo.js';
import { M } from './messages.js';

type Kind = AccountTokenTable['kind'];

export const MAIL_LIMIT = 5;

/** One-time links: a random token goes in the mail, only its hash is stored; issuing a new one voids the older ones. */
export function makeLinks(db: Db) {
  const now = () => new Date().toISOString();
  return {
    async issue(kind: Kind, user: { id: string; organisation_id: string }, ttlMs: number): Promise<string> {
      const token = newOpaqueToken();
      await repo.voidLinks(db, user.id, kind, now());
      await repo.insertLink(db, {
        organisation_id: user.organisation_id,
        user_id: user.id,
        kind,
        token_hash: sha256(token),
        expires_at: new Date(Date.now() + ttlMs).toISOString(),
        used_at: null,
        created_at: now(),
      });
      return token;
    },

    /**
     * At most MAIL_LIMIT mails per account and hour from the public forms (resend, forgot, register), so they
     * cannot be used to flood someone's mailbox; past it the forms answer the same and send nothing.
     */
    async mayMail(userId: string): Promise<boolean> {
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const rows = await repo.linksSince(db, userId, since, MAIL_LIMIT);
      return rows.length < MAIL_LIMIT;
    },

    /** Counts a mail that carries no link (the 'already registered' notice) towards the hourly limit. */
    async noteMail(user: { id: string; organisation_id: string }) {
      await repo.insertLink(db, { organisation_id: user.organisation_id, user_id: user.id, kind: 'notice', token_hash: sha256(newOpaqueToken()), expires_at: now(), used_at: now(), created_at: now() });
    },

    /** The valid, unused link row, or a 400 'invalid, expired or used'. */
    async peek(kind: Kind, token: string, q: Db = db) {
      const row = await repo.linkByHash(q, sha256(token), kind);
      if (!row || row.used_at || row.expires_at <= now()) throw new AppError(400, M.linkInvalid);
      return row;
    },

    /** Marks the link used (pass the transaction: SQLite has one connection, so `db` would wait for it); a second, concurrent use loses the race and gets the same 400. */
    async consume(kind: Kind, token: string, trx: Db = db) {
      const row = await this.peek(kind, token, trx);
      if (!(await repo.useLink(trx, row.id, now()))) throw new AppError(400, M.linkInvalid);
      return row;
    },
  };
}
