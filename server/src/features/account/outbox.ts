import type { AppContext } from '../../context.js';
import type { Lang } from '../../i18n/messages.js';
import type { makeLinks } from './links.js';
import { mails } from './mails.js';
import type { AccountSettings } from './settings.js';

export type Person = { id: string; organisation_id: string; email: string; first_name: string; last_name: string };
export const fullName = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`.trim();

/** The account mails' sending: a failure is logged, never shown (the answer must not depend on whether the address exists). */
export function makeOutbox(ctx: Pick<AppContext, 'config' | 'mailer' | 'log'>, links: ReturnType<typeof makeLinks>, settings: AccountSettings) {
  const base = ctx.config.publicUrl.replace(/\/$/, '');
  const link = (page: string, token: string) => `${base}/${page}?token=${encodeURIComponent(token)}`;

  async function send(m: Parameters<typeof ctx.mailer.send>[0]) {
    try {
      await ctx.mailer.send(m);
    } catch (e) {
      ctx.log.error(`mail to ${m.to} failed: ${(e as Error).message}`);
    }
  }

  return {
    base,
    link,
    send,
    async sendVerification(user: Person, lang: Lang) {
      const token = await links.issue('verify', user, settings.verifyLinkTtlH * 3_600_000);
      await send(mails.verify(lang, user.email, fullName(user), link('verify-email', token), settings.verifyLinkTtlH));
    },
  };
}

export type Outbox = ReturnType<typeof makeOutbox>;
