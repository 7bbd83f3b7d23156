import type { FastifyInstance } from 'fastify';
import { ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { Me } from '../account/responses.js';

/** GET users/me: the signed-in person, their organisation and the menu links they may see. */
export default async function usersRoutes(app: FastifyInstance) {
  const { me } = app.services;
  app.get('/users/me', { schema: { tags: ['users'], response: replies({ 200: Me }) } }, async (req) => ok(await me.me(req.auth)));
}
