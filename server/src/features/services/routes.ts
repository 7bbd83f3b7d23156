import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { Job, JobCount, ServiceStatus } from '../../jobs/responses.js';

/** SPEC §7 'Services': report and control the engine worker pool; plus the job calls every area polls. */
export default async function servicesRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { jobs, config } = app.ctx;
  const withLimits = async <T extends object>(p: Promise<T>) => ({ ...(await p), max_upload_mb: config.maxUploadMb });

  r.get('/services/status', { schema: { tags: ['services'], response: replies({ 200: ServiceStatus }) } }, async () => ok(await withLimits(jobs.status())));
  r.get('/services/start', { preHandler: requireWriter, schema: { tags: ['services'], response: replies({ 200: ServiceStatus }) } }, async () => ok(await withLimits(jobs.startWorkers())));
  r.get('/services/stop', { preHandler: requireWriter, schema: { tags: ['services'], response: replies({ 200: ServiceStatus }) } }, async () => ok(await withLimits(jobs.stopWorkers())));
  const count = async () => {
    const s = await jobs.status();
    return ok({ count: s.active + s.queued, active: s.active, queued: s.queued, workers: s.workers, running: s.running });
  };
  r.get('/service/count', { schema: { tags: ['services'], summary: 'Jobs running and waiting', response: replies({ 200: JobCount }) } }, count);
  r.get('/image/service/count', { schema: { tags: ['services'], summary: 'Jobs running and waiting (image work shares the pool)', response: replies({ 200: JobCount }) } }, count);

  const jobParams = z.object({ id: z.string().max(64) });
  r.get('/jobs/:id', { schema: { tags: ['jobs'], params: jobParams, response: replies({ 200: Job }) } }, async (req, reply) => {
    const job = await jobs.get(req.auth.orgId, req.params.id);
    if (!job) return reply.callNotFound();
    return ok(job);
  });
  r.post('/jobs/:id/cancel', { preHandler: requireWriter, schema: { tags: ['jobs'], params: jobParams, response: replies({ 200: Job }) } }, async (req) =>
    ok(await jobs.cancel(req.auth.orgId, req.params.id)),
  );
}
