import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole, requireWriter } from '../../../auth/guard.js';
import { ok } from '../../../http/errors.js';
import { replies } from '../../../http/responses.js';
import { langOf } from '../../../i18n/messages.js';
import { idParams } from '../schemas.js';
import { driftSettingsBody, driftView } from './schemas.js';
import { DRIFT_KIND } from './service.js';

const tags = ['platform projects'];

/** Input drift of a hosted API, under /api/platform/projects/{id}/drift (registered inside the authenticated scope). */
export function registerDriftRoutes(api: FastifyInstance) {
  const svc = api.services.drift;
  const r = api.withTypeProvider<ZodTypeProvider>();
  const lang = (req: { headers: Record<string, unknown> }) => langOf(req.headers['accept-language'] as string | undefined);
  const answer = replies({ 200: driftView });
  r.get(
    '/platform/projects/:id/drift',
    { schema: { tags, summary: 'Input drift: per feature PSI, two-sample test, shares outside the training range and missing, with warnings and the history', params: idParams, response: answer } },
    async (req) => ok(await svc.view(req.auth, req.params.id, lang(req))),
  );
  r.post(
    '/platform/projects/:id/drift/check',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: 'Check drift now: a job compares the sampled window with the training data (409 while one runs or before any request was sampled)',
        description: `Checks also start by themselves once settings.auto_every new rows were sampled since the last one. The job kind is ${DRIFT_KIND}.`,
        params: idParams,
        response: answer,
      },
    },
    async (req) => ok(await svc.check(req.auth, req.params.id, lang(req))),
  );
  r.put(
    '/platform/projects/:id/drift/settings',
    { preHandler: requireRole('owner', 'admin'), schema: { tags, summary: 'Drift thresholds and window of the project (fields left out keep their value)', params: idParams, body: driftSettingsBody, response: answer } },
    async (req) => ok(await svc.saveSettings(req.auth, req.params.id, req.body, lang(req))),
  );
}
