import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { langOf, localize } from '../../i18n/messages.js';
import { ok, said } from '../../http/errors.js';
import type { AccountService } from './service.js';
import { MessageView, replies } from '../../http/responses.js';
import { AuthOptions, Invitation, Registered, Tokens } from './responses.js';

const required = z.string().trim().min(1, said('required'));
const registerBody = z.object({
  email: z.email(said('invalid_email')).max(254),
  password: z.string().min(1, said('required')).max(256),
  first_name: required.max(100),
  last_name: required.max(100),
  organisation_name: required.max(200),
});
const loginBody = z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(256) });
const refreshBody = z.object({ refresh_token: z.string().min(1).max(200) });
const emailBody = z.object({ email: z.string().trim().min(1, said('required')).max(254) });
const tokenBody = z.object({ token: z.string().min(1).max(200) });
const newPasswordBody = z.object({
  token: z.string().min(1).max(200),
  password: z.string().min(1, said('required')).max(256),
  confirm_password: z.string().max(256).optional(),
});
const changePasswordBody = z.object({
  current_password: z.string().min(1, said('required')).max(256),
  password: z.string().min(1, said('required')).max(256),
  confirm_password: z.string().min(1, said('required')).max(256),
});

const lang = (req: { headers: Record<string, unknown> }) => langOf(req.headers['accept-language'] as string | undefined);
const message = (req: { headers: Record<string, unknown> }, m: { en: string; ja: string }) => ok({ message: localize(lang(req), m) });

/** The account client's sign-in calls (ARCHITECTURE 'Sign-in calls', SPEC §7 'Account client'), mounted under /account/api; `sso`: single sign-on is configured. */
export default async function accountRoutes(app: FastifyInstance, { account, sso }: { account: AccountService; sso: boolean }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { config } = app.ctx;

  r.get('/auth/options', { schema: { tags: ['account'], summary: 'Which sign-in methods this server offers', response: replies({ 200: AuthOptions }) } }, async () =>
    ok({ local_login: config.localLogin, sso, tenant: config.oidc.tenant, email_verification_required: config.requireEmailVerification }),
  );
  r.post('/auth/register', { schema: { tags: ['account'], body: registerBody, response: replies({ 201: Registered }) } }, async (req, reply) => {
    const user = await account.register(req.body, lang(req));
    // With verification on, a new and an already registered address get the very same answer.
    if (user.verification_required) return reply.code(201).send(ok({ email: user.email, verification_required: true }));
    return reply.code(201).send(ok({ id: user.id, email: user.email, verification_required: false }));
  });
  r.post('/auth/login', { schema: { tags: ['account'], body: loginBody, response: replies({ 200: Tokens }) } }, async (req) =>
    ok(await account.login(req.body.email, req.body.password, req.ip)),
  );
  r.post('/auth/refresh', { schema: { tags: ['account'], body: refreshBody, response: replies({ 200: Tokens }) } }, async (req) => ok(await account.refresh(req.body.refresh_token)));
  r.post('/auth/logout', { schema: { tags: ['account'], body: refreshBody.partial(), response: replies({ 200: z.boolean() }) } }, async (req) => {
    await account.logout(req.body?.refresh_token);
    return ok(true);
  });
  r.post('/auth/verify-email', { schema: { tags: ['account'], body: tokenBody, response: replies({ 200: MessageView }) } }, async (req) => message(req, await account.verifyEmail(req.body.token)));
  r.post('/auth/resend-verification', { schema: { tags: ['account'], body: emailBody, response: replies({ 200: MessageView }) } }, async (req) =>
    message(req, await account.resendVerification(req.body.email, lang(req), req.ip)),
  );
  r.post('/auth/forgot-password', { schema: { tags: ['account'], body: emailBody, response: replies({ 200: MessageView }) } }, async (req) =>
    message(req, await account.forgotPassword(req.body.email, lang(req), req.ip)),
  );
  r.post('/auth/reset-password', { schema: { tags: ['account'], body: newPasswordBody, response: replies({ 200: MessageView }) } }, async (req) =>
    message(req, await account.resetPassword(req.body.token, req.body.password, req.body.confirm_password)),
  );
  r.get('/auth/invitation', { schema: { tags: ['account'], querystring: tokenBody, response: replies({ 200: Invitation }) } }, async (req) => ok(await account.invitation(req.query.token)));
  r.post('/auth/accept-invitation', { schema: { tags: ['account'], body: newPasswordBody, response: replies({ 200: Tokens }) } }, async (req) =>
    ok(await account.acceptInvitation(req.body.token, req.body.password, req.body.confirm_password)),
  );
}

/** A signed-in caller changes their password (registered where the caller is already authenticated). */
export async function passwordRoutes(app: FastifyInstance, { account }: { account: AccountService }) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/auth/change-password', { schema: { tags: ['account'], body: changePasswordBody, response: replies({ 200: MessageView }) } }, async (req) =>
      message(req, await account.changePassword(req.auth.userId, req.body.current_password, req.body.password, req.body.confirm_password)),
    );
}
