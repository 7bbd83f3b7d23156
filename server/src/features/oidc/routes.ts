import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { errorReplies, replies } from '../../http/responses.js';
import { Tokens } from '../account/responses.js';
import type { OidcService } from './service.js';

// The 302 redirect has no body to describe (a JSON 'null' schema would claim one); only the errors are listed.
const redirectReplies = errorReplies;

/** Single sign-on against the corporate directory: start, the directory's return, and the hand-over of our tokens. */
export default async function oidcRoutes(app: FastifyInstance, { oidc }: { oidc: OidcService }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/oidc/login', { schema: { tags: ['oidc'], summary: 'Start single sign-on (redirects to the directory)', querystring: z.object({ return_to: z.string().max(500).optional() }), response: redirectReplies } }, async (req, reply) =>
    reply.redirect(await oidc.start(req.query.return_to)),
  );

  r.get('/oidc/callback', { schema: { tags: ['oidc'], summary: 'The directory returns here with the authorization code', response: redirectReplies } }, async (req, reply) => {
    const { redirect, failure } = await oidc.callback(req.url, (req.query as Record<string, string | undefined>).state, langOf(req.headers['accept-language']));
    if (failure) req.log.warn({ err: failure }, 'single sign-on failed');
    return reply.redirect(redirect);
  });

  r.post('/oidc/exchange', { schema: { tags: ['oidc'], summary: 'Trade the one-time hand-over code for tokens', body: z.object({ code: z.string().min(1).max(200) }), response: replies({ 200: Tokens.extend({ end_session_url: z.string().nullable() }) }) } }, async (req) =>
    ok(await oidc.exchange(req.body.code)),
  );
}
