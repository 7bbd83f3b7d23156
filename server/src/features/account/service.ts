import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../auth/passwords.js';
import { newOpaqueToken, sha256, signAccess } from '../../auth/tokens.js';
import type { Lang } from '../../i18n/messages.js';
import './db.js';
import { makeLinks } from './links.js';
import { mails } from './mails.js';
import { AccountError, M } from './messages.js';
import { accountSettings } from './settings.js';
import { makeThrottle } from './throttle.js';

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export function makeAccountService(ctx: AppContext) {
  const { db, config, secret, mailer } = ctx;
  const now = () => new Date().toISOString();
  const settings = accountSettings();
  const links = makeLinks(db);
  const throttle = makeThrottle(db, settings);
  const link = (page: string, token: string) => `${config.publicUrl.replace(/\/$/, '')}/${page}?token=${encodeURIComponent(token)}`;

  /** Mail failures are logged, never shown: the answer must not depend on whether the address exists. */
  async function sendMail(m: Parameters<typeof mailer.send>[0]) {
    try {
      await mailer.send(m);
    } catch (e) {
      ctx.log.error(`mail to ${m.to} failed: ${(e as Error).message}`);
    }
  }

  async function sendVerification(user: { id: string; organisation_id: string; email: string; first_name: string; last_name: string }, lang: Lang) {
    const token = await links.issue('verify', user, settings.verifyLinkTtlH * 3_600_000);
    await sendMail(mails.verify(lang, user.email, `${user.first_name} ${user.last_name}`.trim(), link('verify-email', token), settings.verifyLinkTtlH));
  }

  /** The new password against SPEC §5: rules, differs from the current one, confirmation matches. */
  async function checkNewPassword(
    user: { email: string; first_name: string; last_name: string; password_hash: string | null },
    password: string,
    confirm: string | undefined,
  ) {
    const problem = passwordProblem(password, user);
    if (problem) throw new AppError(422, problem, {}, 'password');
    if (confirm !== undefined && confirm !== password) throw new AppError(422, M.passwordMismatch, {}, 'confirm_password');
    if (user.password_hash && (await verifyPassword(user.password_hash, password))) throw new AppError(422, M.passwordSame, {}, 'password');
  }

  /** Refresh tokens are random, stored only as a hash, and rotate on every use within one family. */
  async function issueTokens(user: { id: string; organisation_id: string; role: Role; email: string }, familyId?: string): Promise<Tokens> {
    const refresh = newOpaqueToken();
    // The family is the session: a new sign-in starts one; a refresh continues it (and names it, for families
    // begun before sessions were recorded).
    const sid = familyId ?? crypto.randomUUID();
    const known = familyId ? await db.selectFrom('auth_sessions').select('id').where('id', '=', sid).executeTakeFirst() : undefined;
    if (!known) await db.insertInto('auth_sessions').values({ id: sid, user_id: user.id, created_at: now(), ended_at: null }).execute();
    await db
      .insertInto('refresh_tokens')
      .values({
        id: crypto.randomUUID(),
        user_id: user.id,
        token_hash: sha256(refresh),
        family_id: sid,
        expires_at: new Date(Date.now() + config.refreshTokenTtlS * 1000).toISOString(),
        revoked_at: null,
        created_at: now(),
      })
      .execute();
    const access = signAccess(secret, { sub: user.id, sid, org: user.organisation_id, role: user.role, email: user.email }, config.accessTokenTtlS);
    return { access_token: access, refresh_token: refresh, expires_in: config.accessTokenTtlS, token_type: 'Bearer' };
  }

  /** Ends a session: its refresh tokens are revoked and its access tokens refused from now on. */
  const revokeFamily = async (familyId: string) => {
    await db.updateTable('refresh_tokens').set({ revoked_at: now() }).where('family_id', '=', familyId).where('revoked_at', 'is', null).execute();
    await db.updateTable('auth_sessions').set({ ended_at: now() }).where('id', '=', familyId).where('ended_at', 'is', null).execute();
  };

  return {
    /** The first user of a new organisation is its owner. */
    async register(input: { email: string; password: string; first_name: string; last_name: string; organisation_name: string }, lang: Lang = 'en') {
      // With the password sign-in switched off, accounts come from the directory only.
      if (!config.localLogin) throw new AppError(403, 'local_login_disabled');
      const email = input.email.trim().toLowerCase();
      const problem = passwordProblem(input.password, { email, first_name: input.first_name, last_name: input.last_name });
      if (problem) throw new AppError(422, problem, {}, 'password');
      const exists = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      if (exists) {
        // With verification on, the answer is the same as for a new address and the mailbox owner is told instead,
        // so the form never reveals which addresses are registered. Nothing is changed.
        if (config.requireEmailVerification) {
          if (await links.mayMail(exists.id)) {
            await sendMail(mails.alreadyRegistered(lang, email, `${exists.first_name} ${exists.last_name}`.trim(), `${config.publicUrl.replace(/\/$/, '')}/login`, `${config.publicUrl.replace(/\/$/, '')}/forgot-password`));
            await links.noteMail(exists);
          }
          return { id: null, email, organisation_id: null, verification_required: true };
        }
        throw new AppError(409, 'email_taken');
      }
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
            // The language the person registered in is their saved language until they change it.
            language: lang === 'ja' ? 'ja-jp' : 'en-gb',
            department: null,
            office_location: null,
            created_at: now(),
          })
          .execute();
      });
      if (config.requireEmailVerification) {
        await sendVerification({ id: userId, organisation_id: orgId, email, first_name: input.first_name.trim(), last_name: input.last_name.trim() }, lang);
      }
      return { id: userId, email, organisation_id: orgId, verification_required: config.requireEmailVerification };
    },

    async login(emailRaw: string, password: string, ip = 'unknown'): Promise<Tokens> {
      if (!config.localLogin) throw new AppError(403, 'local_login_disabled');
      const email = emailRaw.trim().toLowerCase();
      await throttle.check(email, ip);
      const user = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      // Hash even for an unknown e-mail, so timing does not tell which e-mails exist.
      const okPw = user?.password_hash ? await verifyPassword(user.password_hash, password) : (await hashPassword(password), false);
      if (!user || !okPw) {
        await throttle.fail(email, ip);
        throw new AppError(401, 'login_failed');
      }
      // Only the right password learns about the account's state.
      if (user.status === 'disabled') throw new AccountError(403, 'accountDisabled');
      if (user.status === 'invited') throw new AccountError(403, 'accountNotActivated');
      if (config.requireEmailVerification && !user.email_verified_at) throw new AppError(403, 'email_not_verified');
      await throttle.clear(email, ip);
      return issueTokens(user);
    },

    /** Always the same answer; a mail goes out only to an active, unverified account. */
    async resendVerification(emailRaw: string, lang: Lang, ip = 'unknown') {
      await throttle.mailRequest(ip);
      const email = emailRaw.trim().toLowerCase();
      const user = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      if (user && user.status === 'active' && !user.email_verified_at && (await links.mayMail(user.id))) await sendVerification(user, lang);
      return M.linkSent;
    },

    async verifyEmail(token: string) {
      const row = await links.consume('verify', token);
      await db.updateTable('users').set({ email_verified_at: now() }).where('id', '=', row.user_id).where('email_verified_at', 'is', null).execute();
      return M.emailVerified;
    },

    /** Always the same answer; a reset link goes out only to an existing account that may sign in. */
    async forgotPassword(emailRaw: string, lang: Lang, ip = 'unknown') {
      await throttle.mailRequest(ip);
      const email = emailRaw.trim().toLowerCase();
      const user = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      if (user && user.status === 'active' && (await links.mayMail(user.id))) {
        const token = await links.issue('reset', user, settings.resetLinkTtlMin * 60_000);
        await sendMail(mails.reset(lang, user.email, `${user.first_name} ${user.last_name}`.trim(), link('reset-password', token), settings.resetLinkTtlMin));
      }
      return M.linkSent;
    },

    /** Single use: the link is consumed, every session of the account ends, the throttle is lifted. */
    async resetPassword(token: string, password: string, confirm?: string) {
      const row = await links.peek('reset', token);
      const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
      await checkNewPassword(user, password, confirm);
      const passwordHash = await hashPassword(password);
      await db.transaction().execute(async (trx) => {
        await links.consume('reset', token, trx);
        // Following the link proves the mailbox, so it also verifies the address.
        await trx.updateTable('users').set({ password_hash: passwordHash, email_verified_at: user.email_verified_at ?? now() }).where('id', '=', user.id).execute();
        await trx.updateTable('refresh_tokens').set({ revoked_at: now() }).where('user_id', '=', user.id).where('revoked_at', 'is', null).execute();
        await trx.updateTable('auth_sessions').set({ ended_at: now() }).where('user_id', '=', user.id).where('ended_at', 'is', null).execute();
      });
      await throttle.clear(user.email);
      return M.passwordReset;
    },

    async changePassword(userId: string, current: string, password: string, confirm: string) {
      const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
      if (!user.password_hash || !(await verifyPassword(user.password_hash, current))) throw new AppError(422, M.currentPasswordWrong, {}, 'current_password');
      await checkNewPassword(user, password, confirm);
      await db.updateTable('users').set({ password_hash: await hashPassword(password) }).where('id', '=', user.id).execute();
      return M.passwordChanged;
    },

    /** An invitation to the caller's organisation: a user row 'invited' and a mail with a one-time link. */
    async sendInvitation(user: { id: string; organisation_id: string; email: string; first_name: string; last_name: string }, inviter: string, lang: Lang) {
      const org = await db.selectFrom('organisations').select('name').where('id', '=', user.organisation_id).executeTakeFirstOrThrow();
      const token = await links.issue('invite', user, settings.inviteLinkTtlDays * 86_400_000);
      await sendMail(mails.invite(lang, user.email, `${user.first_name} ${user.last_name}`.trim(), inviter, org.name, link('accept-invitation', token), settings.inviteLinkTtlDays));
    },

    async invitation(token: string) {
      const row = await links.peek('invite', token);
      const user = await db
        .selectFrom('users')
        .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
        .select(['users.email', 'users.first_name', 'users.last_name', 'users.status', 'organisations.name as organisation_name'])
        .where('users.id', '=', row.user_id)
        .executeTakeFirst();
      if (!user || user.status !== 'invited') throw new AppError(400, M.linkInvalid);
      return { email: user.email, first_name: user.first_name, last_name: user.last_name, organisation_name: user.organisation_name };
    },

    /** The invited person sets a password and joins; they are signed in at once. */
    async acceptInvitation(token: string, password: string, confirm?: string) {
      const row = await links.peek('invite', token);
      const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst();
      if (!user || user.status !== 'invited') throw new AppError(400, M.linkInvalid);
      await checkNewPassword(user, password, confirm);
      const passwordHash = await hashPassword(password);
      await db.transaction().execute(async (trx) => {
        await links.consume('invite', token, trx);
        await trx.updateTable('users').set({ password_hash: passwordHash, status: 'active', email_verified_at: now() }).where('id', '=', user.id).execute();
      });
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
      const session = await db.selectFrom('auth_sessions').select('ended_at').where('id', '=', row.family_id).executeTakeFirst();
      if (session?.ended_at) throw new AppError(401, 'token_invalid');
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
