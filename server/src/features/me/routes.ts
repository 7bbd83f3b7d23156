import type { FastifyInstance } from 'fastify';
import { ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { Me } from '../account/responses.js';
import { makeAccountService } from '../account/service.js';
import { makeMeService } from './service.js';

/** GET users/me: the signed-in person, their organisation and the menu links they may see. */
export default async function usersRoutes(app: FastifyInstance) {
  // Built here until services are built once at start-up and handed in.
  const me = makeMeService(app.ctx, makeAccountService(app.ctx));
  app.get('/users/me', { schema: { tags: ['users'], response: replies({ 200: Me }) } }, async (req) => ok(await me.me(req.auth)));
}
