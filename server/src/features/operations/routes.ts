import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requirePlatformAdmin, requireWriter } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { ErrorBody, replies } from '../../http/responses.js';
import { Job } from '../../jobs/job-view.js';
import { JobCount, Operations, OrgServiceStatus, ServiceStatus } from '../../jobs/responses.js';
import type { JobView } from '../../jobs/service.js';

/**
 * SPEC §7 'Services'. A tenant's compute service is its own share of the shared worker pool: start and stop
 * resume and pause that organisation's jobs only. The pool itself is started and stopped by platform
 * administrators. Calls that change state are POST; the SPEC's GET paths answer 405 saying so.
 */
export default async function operationsRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { jobs, config } = app.ctx;
  const limits = { max_upload_mb: config.maxUploadMb };

  r.get('/services/status', { schema: { tags: ['services'], summary: "The organisation's compute service", response: replies({ 200: OrgServiceStatus }) } }, async (req) => {
    const status = await jobs.orgStatus(req.auth.orgId);
    // Administrators also see the whole pool's load; tenants see only their own jobs.
    const pool = (await app.services.installation.isAdmin(req.auth)) ? { pool: await jobs.status() } : {};
    return ok({ ...status, ...limits, ...pool });
  });
  r.post('/services/start', { preHandler: requireWriter, schema: { tags: ['services'], summary: "Resume the organisation's jobs", response: replies({ 200: OrgServiceStatus }) } }, async (req) =>
    ok({ ...(await jobs.resumeOrg(req.auth.orgId, req.auth.userId)), ...limits }),
  );
  r.post('/services/stop', { preHandler: requireWriter, schema: { tags: ['services'], summary: "Pause the organisation's jobs (running ones finish)", response: replies({ 200: OrgServiceStatus }) } }, async (req) =>
    ok({ ...(await jobs.pauseOrg(req.auth.orgId, req.auth.userId)), ...limits }),
  );
  for (const path of ['/services/start', '/services/stop']) {
    r.get(path, { schema: { tags: ['services'], summary: 'Answers 405: use POST', response: { 405: ErrorBody } } }, async (_req, reply) => {
      reply.header('Allow', 'POST');
      throw new AppError(405, 'method_not_allowed', { method: 'POST' });
    });
  }
  r.post('/services/pool/start', { preHandler: requirePlatformAdmin, schema: { tags: ['services'], summary: 'Start the shared worker pool (platform administrators)', response: replies({ 200: ServiceStatus.omit({ max_upload_mb: true }) }) } }, async () =>
    ok(await jobs.startWorkers()),
  );
  r.post('/services/pool/stop', { preHandler: requirePlatformAdmin, schema: { tags: ['services'], summary: 'Stop the shared worker pool (platform administrators)', response: replies({ 200: ServiceStatus.omit({ max_upload_mb: true }) }) } }, async () =>
    ok(await jobs.stopWorkers()),
  );

  r.get(
    '/services/operations',
    { preHandler: requirePlatformAdmin, schema: { tags: ['services'], summary: 'Workers, queue depth and recent failures across organisations (platform administrators)', response: replies({ 200: Operations }) } },
    async () => ok(await app.services.operations.overview()),
  );

  const count = async (req: { auth: { orgId: string } }) => {
    const s = await jobs.orgStatus(req.auth.orgId);
    return ok({ count: s.active + s.queued, active: s.active, queued: s.queued, workers: s.workers, running: s.running });
  };
  r.get('/service/count', { schema: { tags: ['services'], summary: "The organisation's jobs running and waiting", response: replies({ 200: JobCount }) } }, count);
  r.get('/image/service/count', { schema: { tags: ['services'], summary: "The organisation's jobs running and waiting (image work shares the pool)", response: replies({ 200: JobCount }) } }, count);

  const jobParams = z.object({ id: z.string().max(64) });
  // A job row holds its kind as text and its result as the engine's JSON: the answer's check (its kind's result
  // schema, job-view.ts) is what types them.
  const asJob = (job: JobView) => job as unknown as z.infer<typeof Job>;
  r.get('/jobs/:id', { schema: { tags: ['jobs'], summary: "A job's state, progress and log, with its result as the engine task of its kind wrote it", params: jobParams, response: replies({ 200: Job }) } }, async (req, reply) => {
    const job = await jobs.get(req.auth.orgId, req.params.id);
    if (!job) return reply.callNotFound();
    return ok(asJob(job));
  });
  r.post('/jobs/:id/cancel', { preHandler: requireWriter, schema: { tags: ['jobs'], summary: 'Cancel a job (its state as it stands after the request)', params: jobParams, response: replies({ 200: Job }) } }, async (req) =>
    ok(asJob(await jobs.cancel(req.auth.orgId, req.params.id))),
  );
}
