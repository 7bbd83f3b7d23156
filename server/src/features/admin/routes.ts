import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { asGuard } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import '../account/db.js';
import { mails } from '../account/mails.js';
import { M } from '../account/messages.js';
import { accountSettings } from '../account/settings.js';
import { fileReplies, replies } from '../../http/responses.js';
import { IdentityReviewed, IdentityReviewPage } from '../account/responses.js';

const idParams = z.object({ id: z.string().max(64) });
const reviewBody = z.object({ decision: z.enum(['approve', 'reject']), reason: z.string().max(500).optional() });

/**
 * The platform administrators' review of identity documents (MITATE_PLATFORM_ADMINS). They work across
 * organisations by design: that is the one place where rows of every organisation are listed.
 */
export default async function adminRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, storage, mailer, config } = app.ctx;
  const admins = accountSettings().platformAdmins;
  const platformAdmin = asGuard(async (req: FastifyRequest) => {
    if (!admins.includes(req.auth.email.toLowerCase())) throw new AppError(403, M.notPlatformAdmin);
  });

  r.get(
    '/admin/identity',
    { preHandler: platformAdmin, schema: { tags: ['admin'], querystring: z.object({ state: z.enum(['under_review', 'done', 'rejected', 'all']).default('under_review') }), response: replies({ 200: IdentityReviewPage }) } },
    async (req) => {
      let q = db
        .selectFrom('identity_verifications as v')
        .innerJoin('users as u', 'u.id', 'v.user_id')
        .innerJoin('organisations as o', 'o.id', 'v.organisation_id')
        .select(['v.id', 'v.state', 'v.reason', 'v.submitted_at', 'v.reviewed_at', 'u.email', 'u.first_name', 'u.last_name', 'o.name as organisation_name'])
        .orderBy('v.submitted_at', 'desc');
      if (req.query.state !== 'all') q = q.where('v.state', '=', req.query.state);
      const items = await q.execute();
      return ok({ items, total: items.length });
    },
  );

  r.get('/admin/identity/:id/:side', { preHandler: platformAdmin, schema: { tags: ['admin'], params: idParams.extend({ side: z.enum(['front', 'back']) }), response: fileReplies('image/*', 'The JPEG or PNG image') } }, async (req, reply) => {
    const row = await db.selectFrom('identity_verifications').selectAll().where('id', '=', req.params.id).executeTakeFirst();
    if (!row) throw new AppError(404, M.identityNotFound);
    const key = req.params.side === 'front' ? row.front_key : row.back_key;
    if (!storage.exists(key)) throw new AppError(404, M.identityNotFound);
    reply.header('Cache-Control', 'private, no-store');
    reply.type(key.endsWith('.png') ? 'image/png' : 'image/jpeg');
    return reply.send(storage.readStream(key));
  });

  r.post('/admin/identity/:id/review', { preHandler: platformAdmin, schema: { tags: ['admin'], params: idParams, body: reviewBody, response: replies({ 200: IdentityReviewed }) } }, async (req) => {
    const reason = req.body.reason?.trim() || null;
    if (req.body.decision === 'reject' && !reason) throw new AppError(422, M.rejectReasonRequired, {}, 'reason');
    const row = await db.selectFrom('identity_verifications').selectAll().where('id', '=', req.params.id).executeTakeFirst();
    if (!row) throw new AppError(404, M.identityNotFound);
    const res = await db
      .updateTable('identity_verifications')
      .set({ state: req.body.decision === 'approve' ? 'done' : 'rejected', reason: req.body.decision === 'reject' ? reason : null, reviewed_at: new Date().toISOString(), reviewed_by: req.auth.userId })
      .where('id', '=', row.id)
      .where('state', '=', 'under_review')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError(409, M.reviewNotPending);
    const user = await db.selectFrom('users').select(['email', 'first_name', 'last_name', 'language']).where('id', '=', row.user_id).executeTakeFirst();
    if (user) {
      const lang = user.language === 'ja-jp' ? 'ja' : langOf(req.headers['accept-language']);
      await mailer
        .send(mails.identityReviewed(lang, user.email, `${user.first_name} ${user.last_name}`.trim(), req.body.decision === 'approve', reason, `${config.publicUrl.replace(/\/$/, '')}/profile`))
        .catch((e) => app.ctx.log.error(`mail failed: ${(e as Error).message}`));
    }
    return ok({ id: row.id, state: req.body.decision === 'approve' ? 'done' : 'rejected', reason });
  });
}
