import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../auth/passwords.js';
import { newOpaqueToken, sha256, signAccess } from '../../auth/tokens.js';

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export function makeAccountService(ctx: AppContext) {
  const { db, config, secret } = ctx;
  const now = () => new Date().toISOString();

  /** Refresh tokens are random, stored only as a hash, and rotate on every use within one family. */
  async function issueTokens(user: { id: string; organisation_id: string; role: Role; email: string }, familyId?: string): Promise<Tokens> {
    const refresh = newOpaqueToken();
    await db
      .insertInto('refresh_tokens')
      .values({
        id: crypto.randomUUID(),
        user_id: user.id,
        token_hash: sha256(refresh),
        family_id: familyId ?? crypto.randomUUID(),
        expires_at: new Date(Date.now() + config.refreshTokenTtlS * 1000).toISOString(),
        revoked_at: null,
        created_at: now(),
      })
      .execute();
    const access = signAccess(secret, { sub: user.id, org: user.organisation_id, role: user.role, email: user.email }, config.accessTokenTtlS);
    return { access_token: access, refresh_token: refresh, expires_in: config.accessTokenTtlS, token_type: 'Bearer' };
  }

  const revokeFamily = (familyId: string) =>
    db.updateTable('refresh_tokens').set({ revoked_at: now() }).where('family_id', '=', familyId).where('revoked_at', 'is', null).execute();

  return {
    /** The first user of a new organisation is its owner. */
    async register(input: { email: string; password: string; first_name: string; last_name: string; organisation_name: string }) {
      const email = input.email.trim().toLowerCase();
      const problem = passwordProblem(input.password, { email, first_name: input.first_name, last_name: input.last_name });
      if (problem) throw new AppError(422, problem, {}, 'password');
      const exists = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
      if (exists) throw new AppError(409, 'email_taken');
      const passwordHash = await hashPassword(input.password);
      const orgId = crypto.randomUUID();
      const userId = crypto.randomUUID();
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('organisations').values({ id: orgId, name: input.organisation_name.trim(), created_at: now() }).execute();
        await trx
          .insertInto('users')
          .values({
            id: userId,
            organisation_id: orgId,
            email,
            password_hash: passwordHash,
            first_name: input.first_name.trim(),
            last_name: input.last_name.trim(),
            role: 'owner',
            status: 'active',
            email_verified_at: config.requireEmailVerification ? null : now(),
            language: 'en-gb',
            department: null,
            office_location: null,
            created_at: now(),
          })
          .execute();
      });
      return { id: userId, email, organisation_id: orgId };
    },

    async login(emailRaw: string, password: string): Promise<Tokens> {
      if (!config.localLogin) throw new AppError(403, 'local_login_disabled');
      const email = emailRaw.trim().toLowerCase();
      const user = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      // Hash even for an unknown e-mail, so timing does not tell which e-mails exist.
      const okPw = user?.password_hash ? await verifyPassword(user.password_hash, password) : (await hashPassword(password), false);
      if (!user || !okPw || user.status === 'disabled') throw new AppError(401, 'login_failed');
      if (config.requireEmailVerification && !user.email_verified_at) throw new AppError(403, 'email_not_verified');
      return issueTokens(user);
    },

    async refresh(refreshToken: string): Promise<Tokens> {
      const row = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', sha256(refreshToken)).executeTakeFirst();
      if (!row) throw new AppError(401, 'token_invalid');
      if (row.revoked_at) {
        // A rotated token used again means it leaked: end the whole family.
        await revokeFamily(row.family_id);
        throw new AppError(401, 'token_invalid');
      }
      if (row.expires_at <= now()) throw new AppError(401, 'token_invalid');
      const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst();
      if (!user || user.status === 'disabled') throw new AppError(401, 'token_invalid');
      const res = await db
        .updateTable('refresh_tokens')
        .set({ revoked_at: now() })
        .where('id', '=', row.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError(401, 'token_invalid');
      return issueTokens(user, row.family_id);
    },

    async logout(refreshToken: string | undefined) {
      if (!refreshToken) return;
      const row = await db.selectFrom('refresh_tokens').select('family_id').where('token_hash', '=', sha256(refreshToken)).executeTakeFirst();
      if (row) await revokeFamily(row.family_id);
    },

    issueTokens,
  };
}
