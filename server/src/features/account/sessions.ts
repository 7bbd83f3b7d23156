import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import type { Role } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { newOpaqueToken, sha256, signAccess } from '../../auth/tokens.js';
import * as authRepo from '../../auth/repo.js';
import * as repo from './repo.js';

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

/** Sign-in sessions: access tokens, and refresh tokens that are random, stored only as a hash, and rotate on every use within one family. */
export function makeSessions({ db, config, secret }: Pick<AppContext, 'db' | 'config' | 'secret'>) {
  const now = () => new Date().toISOString();

  async function issueTokens(user: { id: string; organisation_id: string; role: Role; email: string }, familyId?: string): Promise<Tokens> {
    const refresh = newOpaqueToken();
    // The family is the session: a new sign-in starts one; a refresh continues it (and names it, for families
    // begun before sessions were recorded).
    const sid = familyId ?? crypto.randomUUID();
    const known = familyId ? await authRepo.sessionExists(db, sid) : false;
    if (!known) await authRepo.insertSession(db, { id: sid, user_id: user.id, created_at: now() });
    await repo.insertRefreshToken(db, {
      user_id: user.id,
      token_hash: sha256(refresh),
      family_id: sid,
      expires_at: new Date(Date.now() + config.refreshTokenTtlS * 1000).toISOString(),
      created_at: now(),
    });
    const access = signAccess(secret, { sub: user.id, sid, org: user.organisation_id, role: user.role, email: user.email }, config.accessTokenTtlS);
    return { access_token: access, refresh_token: refresh, expires_in: config.accessTokenTtlS, token_type: 'Bearer' };
  }

  /** Ends one session: its refresh tokens are revoked and the session marked ended. */
  async function endSession(familyId: string, at: string) {
    await repo.revokeFamily(db, familyId, at);
    await authRepo.endSession(db, familyId, at);
  }

  return {
    issueTokens,

    async refresh(refreshToken: string): Promise<Tokens> {
      const row = await repo.refreshTokenByHash(db, sha256(refreshToken));
      if (!row) throw new AppError(401, 'token_invalid');
      if (row.revoked_at) {
        // A rotated token used again means it leaked: end the whole family.
        await endSession(row.family_id, now());
        throw new AppError(401, 'token_invalid');
      }
      if (row.expires_at <= now()) throw new AppError(401, 'token_invalid');
      if (await authRepo.sessionEnded(db, row.family_id)) throw new AppError(401, 'token_invalid');
      const user = await repo.userById(db, row.user_id);
      if (!user || user.status === 'disabled') throw new AppError(401, 'token_invalid');
      if (!(await repo.revokeRefreshToken(db, row.id, now()))) throw new AppError(401, 'token_invalid');
      return issueTokens(user, row.family_id);
    },

    /** Ends a session: its refresh tokens are revoked and its access tokens refused from now on. */
    async logout(refreshToken: string | undefined) {
      if (!refreshToken) return;
      const row = await repo.refreshTokenByHash(db, sha256(refreshToken));
      if (row) await endSession(row.family_id, now());
    },

    /** Ends every session of a user (pass the transaction when inside one). */
    async endAll(userId: string, q: Db = db) {
      const at = now();
      await repo.revokeUserTokens(q, userId, at);
      await authRepo.endUserSessions(q, userId, at);
    },
  };
}
