import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../auth/passwords.js';
import type { Lang } from '../../i18n/messages.js';
import type { makeLinks } from './links.js';
import { mails } from './mails.js';
import { fullName, type Outbox } from './outbox.js';
import * as repo from './repo.js';
import type { makeSessions } from './sessions.js';
import type { AccountSettings } from './settings.js';
import type { makeThrottle } from './throttle.js';
import { M } from './messages.js';

/** The new password against SPEC §5: rules, differs from the current one, confirmation matches. */
export async function checkNewPassword(user: { email: string; first_name: string; last_name: string; password_hash: string | null }, password: string, confirm: string | undefined) {
  const problem = passwordProblem(password, user);
  if (problem) throw new AppError(422, problem, {}, 'password');
  if (confirm !== undefined && confirm !== password) throw new AppError(422, M.passwordMismatch, {}, 'confirm_password');
  if (user.password_hash && (await verifyPassword(user.password_hash, password))) throw new AppError(422, M.passwordSame, {}, 'password');
}

interface Parts {
  links: ReturnType<typeof makeLinks>;
  throttle: ReturnType<typeof makeThrottle>;
  sessions: ReturnType<typeof makeSessions>;
  outbox: Outbox;
  settings: AccountSettings;
}

/** E-mail verification and the password: forgotten, reset by link, changed by its owner. */
export function makeRecovery({ db }: Pick<AppContext, 'db'>, { links, throttle, sessions, outbox, settings }: Parts) {
  const now = () => new Date().toISOString();
  return {
    /** Always the same answer; a mail goes out only to an active, unverified account. */
    async resendVerification(emailRaw: string, lang: Lang, ip = 'unknown') {
      await throttle.mailRequest(ip);
      const user = await repo.userByEmail(db, emailRaw.trim().toLowerCase());
      if (user && user.status === 'active' && !user.email_verified_at && (await links.mayMail(user.id))) await outbox.sendVerification(user, lang);
      return M.linkSent;
    },

    async verifyEmail(token: string) {
      const row = await links.consume('verify', token);
      await repo.verifyUserEmail(db, row.user_id, now());
      return M.emailVerified;
    },

    /** Always the same answer; a reset link goes out only to an existing account that may sign in. */
    async forgotPassword(emailRaw: string, lang: Lang, ip = 'unknown') {
      await throttle.mailRequest(ip);
      const user = await repo.userByEmail(db, emailRaw.trim().toLowerCase());
      if (user && user.status === 'active' && (await links.mayMail(user.id))) {
        const token = await links.issue('reset', user, settings.resetLinkTtlMin * 60_000);
        await outbox.send(mails.reset(lang, user.email, fullName(user), outbox.link('reset-password', token), settings.resetLinkTtlMin));
      }
      return M.linkSent;
    },

    /** Single use: the link is consumed, every session of the account ends, the throttle is lifted. */
    async resetPassword(token: string, password: string, confirm?: string) {
      const row = await links.peek('reset', token);
      const user = await repo.userById(db, row.user_id);
      if (!user) throw new Error(`reset link of a missing user ${row.user_id}`);
      await checkNewPassword(user, password, confirm);
      const passwordHash = await hashPassword(password);
      await db.transaction().execute(async (trx) => {
        await links.consume('reset', token, trx);
        // Following the link proves the mailbox, so it also verifies the address.
        await repo.updateUser(trx, user.id, { password_hash: passwordHash, email_verified_at: user.email_verified_at ?? now() });
        await sessions.endAll(user.id, trx);
      });
      await throttle.clear(user.email);
      return M.passwordReset;
    },

    async changePassword(userId: string, current: string, password: string, confirm: string) {
      const user = await repo.userById(db, userId);
      if (!user) throw new Error(`password change of a missing user ${userId}`);
      if (!user.password_hash || !(await verifyPassword(user.password_hash, current))) throw new AppError(422, M.currentPasswordWrong, {}, 'current_password');
      await checkNewPassword(user, password, confirm);
      await repo.updateUser(db, user.id, { password_hash: await hashPassword(password) });
      return M.passwordChanged;
    },
  };
}
