import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { replies } from '../../http/responses.js';
import { StatisticsJob, StatisticsStarted } from '../datasets/responses.js';

const params = z.object({ dataset_id: z.string().max(64) });

/** SPEC §4 statistics generation: a job in the engine that succeeds or fails and can be run again. */
export default async function columnStatisticsRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const datasets = app.services.datasets;

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
    async (req) => ok(await datasets.statisticsResult(req.auth, req.params.dataset_id)),
  );
}
