import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { replies } from '../../http/responses.js';
import { StatisticsJob, StatisticsStarted } from '../datasets/responses.js';
import { statisticsJob } from '../datasets/jobs.js';

const params = z.object({ dataset_id: z.string().max(64) });

/** SPEC §4 statistics generation: a job in the engine that succeeds or fails and can be run again. */
export default async function columnStatisticsRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const datasets = app.services.datasets;
  const { jobs } = app.ctx;

  r.post(
    '/statistics/:dataset_id',
    { preHandler: requireWriter, schema: { tags: ['statistics'], summary: 'Generate (or generate again) the statistics of a dataset', params, response: replies({ 200: StatisticsStarted }) } },
    async (req) => {
      const job = await datasets.startStatistics(req.auth, await datasets.getRow(req.auth, req.params.dataset_id), langOf(req.headers['accept-language']));
      return ok({ job_id: job.id, state: job.state });
    },
  );

  r.post(
    '/statistics/result/:dataset_id',
    { schema: { tags: ['statistics'], summary: 'State, progress and result of the latest statistics job', params, response: replies({ 200: StatisticsJob }) } },
    async (req) => {
      const row = await datasets.getRow(req.auth, req.params.dataset_id);
      const job = row.statistics_job_id ? await jobs.get(req.auth.orgId, row.statistics_job_id) : undefined;
      if (!job) return ok({ job_id: null, state: 'none' as const, progress: 0, message: '', error: null, result: null });
      return ok({
        job_id: job.id,
        state: job.state,
        progress: job.progress,
        message: job.message,
        error: job.error,
        log: job.state === 'failed' ? job.log : '',
        result: statisticsJob.resultOf(job),
        started_at: job.started_at,
        finished_at: job.finished_at,
      });
    },
  );
}
