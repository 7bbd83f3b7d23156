import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAuth } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { makeAccountService } from './service.js';

const required = z.string().trim().min(1, 'This field is required.');
const registerBody = z.object({
  email: z.email('Please enter a valid e-mail address.').max(254),
  password: z.string().min(1, 'This field is required.').max(256),
  first_name: required.max(100),
  last_name: required.max(100),
  organisation_name: required.max(200),
});
const loginBody = z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(256) });
const refreshBody = z.object({ refresh_token: z.string().min(1).max(200) });

/** The account client's calls (ARCHITECTURE 'Sign-in calls'), mounted under /account/api. */
export default async function accountRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const account = makeAccountService(app.ctx);
  const { db } = app.ctx;

  r.post('/auth/register', { schema: { tags: ['account'], body: registerBody } }, async (req, reply) => {
    const user = await account.register(req.body);
    return reply.code(201).send(ok({ id: user.id, email: user.email }));
  });
  r.post('/auth/login', { schema: { tags: ['account'], body: loginBody } }, async (req) =>
    ok(await account.login(req.body.email, req.body.password)),
  );
  r.post('/auth/refresh', { schema: { tags: ['account'], body: refreshBody } }, async (req) => ok(await account.refresh(req.body.refresh_token)));
  r.post('/auth/logout', { schema: { tags: ['account'], body: refreshBody.partial() } }, async (req) => {
    await account.logout(req.body?.refresh_token);
    return ok(true);
  });

  // Members of the caller's organisation (SPEC §7 Account client).
  await app.register(async (members) => {
    members.addHook('onRequest', requireAuth);
    const m = members.withTypeProvider<ZodTypeProvider>();
    const cols = ['id', 'email', 'first_name', 'last_name', 'role', 'status', 'created_at'] as const;
    m.get('/members', { schema: { tags: ['members'] } }, async (req) => {
      const items = await db.selectFrom('users').select(cols).where('organisation_id', '=', req.auth.orgId).orderBy('created_at').execute();
      return ok({ items, total: items.length });
    });
    m.get('/members/:id', { schema: { tags: ['members'], params: z.object({ id: z.string().max(64) }) } }, async (req) => {
      const item = await db
        .selectFrom('users')
        .select(cols)
        .where('organisation_id', '=', req.auth.orgId)
        .where('id', '=', req.params.id)
        .executeTakeFirst();
      if (!item) throw new AppError(404, 'not_found');
      return ok(item);
    });
  });
}
