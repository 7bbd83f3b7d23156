import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { asGuard } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { M } from './messages.js';
import { InstallationSettings, settingsBody } from './schemas.js';

const tags = ['installation'];

/** Installation settings (bank account, hosted-API review) at /api/installation/settings: platform administrators. */
export default async function installationRoutes(app: FastifyInstance) {
  const svc = app.services.installation;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const admin = asGuard(async (req) => {
    if (!req.auth || !(await svc.isAdmin(req.auth))) throw new AppError(403, M.notPlatformAdmin);
  });
  r.get('/installation/settings', { preHandler: admin, schema: { tags, summary: 'The installation settings in force and where each comes from', response: replies({ 200: InstallationSettings }) } }, async () =>
    ok(await svc.view()),
  );
  // Audit-logged as a 'change' by the audit hook, like every write.
  r.put('/installation/settings', { preHandler: admin, schema: { tags, summary: 'Change the installation settings (stored; they override the environment)', body: settingsBody, response: replies({ 200: InstallationSettings }) } }, async (req) =>
    ok(await svc.update(req.auth.userId, req.body)),
  );
}
