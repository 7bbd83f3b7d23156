import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../auth/passwords.js';
import type { Lang } from '../../i18n/messages.js';
import './db.js';
import { makeLinks } from './links.js';
import { mails } from './mails.js';
import { AccountError } from './messages.js';
import { fullName, makeOutbox, type Person } from './outbox.js';
import { checkNewPassword, makeRecovery } from './recovery.js';
import * as repo from './repo.js';
import { makeSessions, type Tokens } from './sessions.js';
import { makeThrottle } from './throttle.js';
import { makeUsers, type Users } from './users.js';
import { M } from './messages.js';

export type { Tokens } from './sessions.js';
export type AccountService = ReturnType<typeof makeAccountService>;

/** The account area: sign-up, sign-in and its links, sessions, and the users and organisations API of other areas. */
export function makeAccountService(ctx: AppContext) {
  const { db, config } = ctx;
  const now = () => new Date().toISOString();
  const settings = ctx.config.account;
  const links = makeLinks(db);
  const throttle = makeThrottle(db, settings);
  const sessions = makeSessions(ctx);
  const outbox = makeOutbox(ctx, links, settings);
  const users = makeUsers(db);

  /** With verification on, a registered address gets the same answer as a new one and its owner is told instead. */
  async function alreadyRegistered(existing: repo.UserRow, email: string, lang: Lang) {
    if (!config.requireEmailVerification) throw new AppError(409, 'email_taken');
    if (await links.mayMail(existing.id)) {
      await outbox.send(mails.alreadyRegistered(lang, email, fullName(existing), `${outbox.base}/login`, `${outbox.base}/forgot-password`));
      await links.noteMail(existing);
    }
    return { id: null, email, organisation_id: null, verification_required: true };
  }

  return {
    users,
    issueTokens: sessions.issueTokens,
    refresh: sessions.refresh,
    logout: sessions.logout,
    /** Ends every session of a user now: their refresh tokens stop working and their access tokens are refused. */
    endSessions: (userId: string) => sessions.endAll(userId),
    ...makeRecovery(ctx, { links, throttle, sessions, outbox, settings }),

    /** Runs `fn` in one transaction, with the users API bound to it; another area passes `trx` to its own repo. */
    transaction<T>(fn: (trx: Db, users: Users) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => fn(trx, makeUsers(trx)));
    },

    /** The first user of a new organisation is its owner. */
    async register(input: { email: string; password: string; first_name: string; last_name: string; organisation_name: string }, lang: Lang = 'en') {
      // With the password sign-in switched off, accounts come from the directory only.
      if (!config.localLogin) throw new AppError(403, 'local_login_disabled');
      const email = input.email.trim().toLowerCase();
      const problem = passwordProblem(input.password, { email, first_name: input.first_name, last_name: input.last_name });
      if (problem) throw new AppError(422, problem, {}, 'password');
      // Nothing is changed for an address that has an account already.
      const exists = await users.byEmail(email);
      if (exists) return alreadyRegistered(exists, email, lang);
      const passwordHash = await hashPassword(input.password);
      const person: Person = { id: crypto.randomUUID(), organisation_id: '', email, first_name: input.first_name.trim(), last_name: input.last_name.trim() };
      await db.transaction().execute(async (trx) => {
        const tx = makeUsers(trx);
        person.organisation_id = await tx.createOrganisation(input.organisation_name.trim(), now());
        await tx.create({
          ...person,
          password_hash: passwordHash,
          role: 'owner',
          status: 'active',
          email_verified_at: config.requireEmailVerification ? null : now(),
          // The language the person registered in is their saved language until they change it.
          language: lang === 'ja' ? 'ja-jp' : 'en-gb',
          department: null,
          office_location: null,
          created_at: now(),
        });
      });
      if (config.requireEmailVerification) await outbox.sendVerification(person, lang);
      return { id: person.id, email, organisation_id: person.organisation_id, verification_required: config.requireEmailVerification };
    },

    async login(emailRaw: string, password: string, ip = 'unknown'): Promise<Tokens> {
      if (!config.localLogin) throw new AppError(403, 'local_login_disabled');
      const email = emailRaw.trim().toLowerCase();
      await throttle.check(email, ip);
      const user = await users.byEmail(email);
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
      return sessions.issueTokens(user);
    },

    /** An invitation to the person's organisation (their user row is 'invited'): a mail with a one-time link. */
    async sendInvitation(user: Person, inviter: string, lang: Lang) {
      const orgName = await repo.organisationName(db, user.organisation_id);
      const token = await links.issue('invite', user, settings.inviteLinkTtlDays * 86_400_000);
      await outbox.send(mails.invite(lang, user.email, fullName(user), inviter, orgName, outbox.link('accept-invitation', token), settings.inviteLinkTtlDays));
    },

    async invitation(token: string) {
      const row = await links.peek('invite', token);
      const user = await repo.invitee(db, row.user_id);
      if (!user || user.status !== 'invited') throw new AppError(400, M.linkInvalid);
      return { email: user.email, first_name: user.first_name, last_name: user.last_name, organisation_name: user.organisation_name };
    },

    /** The invited person sets a password and joins; they are signed in at once. */
    async acceptInvitation(token: string, password: string, confirm?: string) {
      const row = await links.peek('invite', token);
      const user = await repo.userById(db, row.user_id);
      if (!user || user.status !== 'invited') throw new AppError(400, M.linkInvalid);
      await checkNewPassword(user, password, confirm);
      const passwordHash = await hashPassword(password);
      await db.transaction().execute(async (trx) => {
        await links.consume('invite', token, trx);
        await repo.updateUser(trx, user.id, { password_hash: passwordHash, status: 'active', email_verified_at: now() });
      });
      return sessions.issueTokens(user);
    },
  };
}
