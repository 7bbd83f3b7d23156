import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { IdentityState } from '../identity/db.js';
import { mails } from '../account/mails.js';
import type { AccountService } from '../account/service.js';
import type { IdentityService } from '../identity/service.js';
import { M } from './messages.js';

/**
 * The platform administrators' review of identity documents (MITATE_PLATFORM_ADMINS). They work across
 * organisations by design: that is the one place where rows of every organisation are listed.
 */
export function makeIdentityReviewService(ctx: Pick<AppContext, 'storage' | 'mailer' | 'config' | 'log'>, account: AccountService, identity: IdentityService) {
  const { storage, mailer, config } = ctx;

  return {
    /** Newest first, with who sent them and their organisation. */
    async list(state: IdentityState | 'all') {
      const rows = await identity.list(state);
      const people = new Map((await account.users.peopleAcrossOrganisations([...new Set(rows.map((v) => v.user_id))])).map((p) => [p.id, p]));
      const items = rows.flatMap((v) => {
        const p = people.get(v.user_id);
        if (!p) return [];
        return [{ id: v.id, state: v.state, reason: v.reason, submitted_at: v.submitted_at, reviewed_at: v.reviewed_at, email: p.email, first_name: p.first_name, last_name: p.last_name, organisation_name: p.organisation_name }];
      });
      return { items, total: items.length };
    },

    /** One side of the ID: the stored file's key and its picture type. */
    async image(id: string, side: 'front' | 'back') {
      const row = await identity.byId(id);
      if (!row) throw new AppError(404, M.identityNotFound);
      const key = side === 'front' ? row.front_key : row.back_key;
      if (!storage.exists(key)) throw new AppError(404, M.identityNotFound);
      return { stream: storage.readStream(key), type: key.endsWith('.png') ? 'image/png' : 'image/jpeg' };
    },

    /** Approves or rejects (with a reason) a verification under review; the person is told by mail in their language. */
    async review(id: string, decision: 'approve' | 'reject', reasonRaw: string | undefined, reviewerId: string, callerLang: Lang) {
      const reason = reasonRaw?.trim() || null;
      if (decision === 'reject' && !reason) throw new AppError(422, M.rejectReasonRequired, {}, 'reason');
      const row = await identity.byId(id);
      if (!row) throw new AppError(404, M.identityNotFound);
      const state = decision === 'approve' ? 'done' : 'rejected';
      if (!(await identity.decide(row.id, { state, reason: decision === 'reject' ? reason : null, reviewed_by: reviewerId }))) throw new AppError(409, M.reviewNotPending);
      const user = await account.users.byId(row.user_id);
      if (user) {
        const lang = user.language === 'ja-jp' ? 'ja' : callerLang;
        await mailer
          .send(mails.identityReviewed(lang, user.email, `${user.first_name} ${user.last_name}`.trim(), decision === 'approve', reason, `${config.publicUrl.replace(/\/$/, '')}/profile`))
          .catch((e) => ctx.log.error(`mail failed: ${(e as Error).message}`));
      }
      return { id: row.id, state, reason };
    },
  };
}

export type IdentityReviewService = ReturnType<typeof makeIdentityReviewService>;
