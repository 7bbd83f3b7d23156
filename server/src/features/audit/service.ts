import type { AppContext } from '../../context.js';
import { uuidv7 } from '../../jobs/service.js';
import type { AccountService } from '../account/service.js';
import type { AuditAction } from './classify.js';
import * as repo from './repo.js';

/** The audit log: records one auditable call, and reads the organisation's log a page at a time. */
export function makeAuditService({ db }: Pick<AppContext, 'db'>, account: AccountService) {
  return {
    /**
     * Records a call. Without a signed-in caller (sign-in and other calls before a token), the actor is the
     * account named by `bodyEmail`, when it exists; otherwise nothing is recorded.
     */
    async record(e: { auth?: { orgId: string; userId: string; email: string }; bodyEmail: string; action: AuditAction; method: string; route: string; subjectId: string | null; status: number; ip: string }) {
      let actor = e.auth ? { orgId: e.auth.orgId, userId: e.auth.userId as string | null, email: e.auth.email } : undefined;
      if (!actor) {
        if (!e.bodyEmail) return;
        const user = await account.users.byEmail(e.bodyEmail);
        if (!user) return;
        actor = { orgId: user.organisation_id, userId: user.id, email: user.email };
      }
      await repo.insert(db, {
        id: uuidv7(), // time-ordered: the page sorts by it
        organisation_id: actor.orgId,
        user_id: actor.userId,
        actor_email: actor.email,
        action: e.action,
        method: e.method,
        route: e.route,
        subject_id: e.subjectId,
        status: e.status,
        ip: e.ip,
        created_at: new Date().toISOString(),
      });
    },

    async page(orgId: string, q: { action?: AuditAction; page: number; page_size: number }) {
      const { total, rows } = await repo.page(db, orgId, { action: q.action, page: q.page, pageSize: q.page_size });
      return { total, page: q.page, page_size: q.page_size, items: rows.map((x) => ({ ...x, action: x.action as AuditAction, status: Number(x.status) })) };
    },
  };
}

