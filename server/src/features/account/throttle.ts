import type { Db } from '../../db/index.js';
import { AccountError } from './messages.js';
import * as repo from './repo.js';
import type { AccountSettings } from './settings.js';

/**
 * Sign-in and mail-sending throttles, kept as rows in the database so a restart does not reset them and
 * several server instances share them. Within the window:
 * - an address (IP) with loginLimitPerIp failed sign-ins, whatever the e-mails, is refused;
 * - an e-mail is refused only to the address that failed on it loginLimitPerEmail times: anyone who knows
 *   an e-mail cannot lock its owner out, who signs in from an address that has not failed;
 * - an e-mail failed from many addresses (EMAIL_HARD_CAP times its limit) is refused to all: a spread-out
 *   guessing attack stops, at the price of a lock only a large botnet can cause;
 * - an address asking for mails (forgot-password, resend-verification) more than mailLimitPerIp times.
 */
const EMAIL_HARD_CAP = 10;

type Scope = 'email' | 'ip' | 'pair' | 'mail';

export function makeThrottle(db: Db, s: AccountSettings) {
  const windowMs = s.loginWindowMin * 60_000;
  const since = () => new Date(Date.now() - windowMs).toISOString();
  const pair = (email: string, ip: string) => `${email}\n${ip}`;

  const count = (scope: Scope, subject: string) => repo.failuresSince(db, scope, subject, since());

  /** 429 when `rows` reached `max`, saying when the oldest counted one leaves the window. */
  function refuseAt(rows: { created_at: string }[], max: number, message: 'tooManyAttempts' | 'tooManyRequests') {
    if (rows.length < max) return;
    const freeAt = new Date(rows[rows.length - max].created_at).getTime() + windowMs;
    const minutes = Math.max(1, Math.ceil((freeAt - Date.now()) / 60_000));
    throw new AccountError(429, message, { minutes });
  }

  async function record(scopes: [Scope, string][]) {
    const created_at = new Date().toISOString();
    await repo.insertFailures(db, scopes.map(([scope, subject]) => ({ scope, subject, created_at })));
    // Keep the table small: rows older than a day no longer matter.
    await repo.pruneFailures(db, new Date(Date.now() - Math.max(windowMs, 86_400_000)).toISOString());
  }

  return {
    async check(email: string, ip: string) {
      refuseAt(await count('ip', ip), s.loginLimitPerIp, 'tooManyAttempts');
      refuseAt(await count('pair', pair(email, ip)), s.loginLimitPerEmail, 'tooManyAttempts');
      refuseAt(await count('email', email), s.loginLimitPerEmail * EMAIL_HARD_CAP, 'tooManyAttempts');
    },
    async fail(email: string, ip: string) {
      await record([['email', email], ['ip', ip], ['pair', pair(email, ip)]]);
    },
    /** A right password: the e-mail's count and this address's count for it start again. */
    async clear(email: string, ip?: string) {
      await repo.clearFailures(db, 'email', email);
      if (ip) await repo.clearFailures(db, 'pair', pair(email, ip));
    },
    /** Every forgot-password and resend-verification call counts against its address. */
    async mailRequest(ip: string) {
      refuseAt(await count('mail', ip), s.mailLimitPerIp, 'tooManyRequests');
      await record([['mail', ip]]);
    },
  };
}
