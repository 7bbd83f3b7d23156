import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { asGuard } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { fileReplies, replies } from '../../http/responses.js';
import { IdentityReviewed, IdentityReviewPage } from './responses.js';
import type { IdentityReviewService } from './service.js';
import { M } from './messages.js';

const idParams = z.object({ id: z.string().max(64) });
const reviewBody = z.object({ decision: z.enum(['approve', 'reject']), reason: z.string().max(500).optional() });

/** The platform administrators' review of identity documents, at /admin/identity (MITATE_PLATFORM_ADMINS, or the first account). */
export default async function identityReviewRoutes(app: FastifyInstance, { review }: { review: IdentityReviewService }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const platformAdmin = asGuard(async (req: FastifyRequest) => {
    if (!(await req.server.services.installation.isAdmin(req.auth))) throw new AppError(403, M.notPlatformAdmin);
  });

  r.get(
    '/admin/identity',
    { preHandler: platformAdmin, schema: { tags: ['admin'], querystring: z.object({ state: z.enum(['under_review', 'done', 'rejected', 'all']).default('under_review') }), response: replies({ 200: IdentityReviewPage }) } },
    async (req) => ok(await review.list(req.query.state)),
  );

  r.get('/admin/identity/:id/:side', { preHandler: platformAdmin, schema: { tags: ['admin'], params: idParams.extend({ side: z.enum(['front', 'back']) }), response: fileReplies('image/*', 'The JPEG or PNG image') } }, async (req, reply) => {
    const image = await review.image(req.params.id, req.params.side);
    reply.header('Cache-Control', 'private, no-store');
    reply.type(image.type);
    return reply.send(image.stream);
  });

  r.post('/admin/identity/:id/review', { preHandler: platformAdmin, schema: { tags: ['admin'], params: idParams, body: reviewBody, response: replies({ 200: IdentityReviewed }) } }, async (req) =>
    ok(await review.review(req.params.id, req.body.decision, req.body.reason, req.auth.userId, langOf(req.headers['accept-language']))),
  );
}
