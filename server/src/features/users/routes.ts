import type { FastifyInstance } from 'fastify';
import { AppError, ok } from '../../http/errors.js';
import { makePhotoService } from '../members/photo.js';
import { replies } from '../../http/responses.js';
import { Me } from '../account/responses.js';

/** GET users/me: the signed-in person, their organisation and the menu links they may see. */
export default async function usersRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const photos = makePhotoService(app.ctx);
  app.get('/users/me', { schema: { tags: ['users'], response: replies({ 200: Me }) } }, async (req) => {
    const user = await db
      .selectFrom('users')
      .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
      .select(['users.id', 'email', 'first_name', 'last_name', 'role', 'status', 'language', 'department', 'office_location', 'organisation_id', 'organisations.name as organisation_name'])
      .where('users.id', '=', req.auth.userId)
      .where('users.organisation_id', '=', req.auth.orgId)
      .executeTakeFirst();
    if (!user) throw new AppError(401, 'token_invalid');
    const showTestSite = !!config.testSiteUrl && config.testSiteAllowlist.includes(user.email.toLowerCase());
    return ok({
      id: user.id,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      name: `${user.first_name} ${user.last_name}`.trim(),
      role: user.role,
      status: user.status,
      language: user.language,
      department: user.department,
      office_location: user.office_location,
      organisation: { id: user.organisation_id, name: user.organisation_name },
      photo: photos.urlOf(user.organisation_id, user.id),
      links: { visualizer_url: config.visualizerUrl ?? null, test_site_url: showTestSite ? config.testSiteUrl : null, show_test_site: showTestSite },
    });
  });
}
