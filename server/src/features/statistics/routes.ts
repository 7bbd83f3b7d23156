import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { datasetRepo } from '../datasets/repo.js';
import { datasetKey, makeDatasetService } from '../datasets/service.js';
import { replies } from '../../http/responses.js';
import { StatisticsJob, StatisticsResult, StatisticsStarted } from '../datasets/responses.js';

const params = z.object({ dataset_id: z.string().max(64) });

/** SPEC §4 statistics generation: a job in the engine that succeeds or fails and can be run again. */
export default async function statisticsRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const datasets = makeDatasetService(app.ctx);
  const { jobs, storage, db } = app.ctx;

  r.post(
    '/statistics/:dataset_id',
    { preHandler: requireWriter, schema: { tags: ['statistics'], summary: 'Generate (or generate again) the statistics of a dataset', params, response: replies({ 200: StatisticsStarted }) } },
    async (req) => {
      const row = await datasets.getRow(req.auth, req.params.dataset_id);
      const current = row.statistics_job_id ? await jobs.get(req.auth.orgId, row.statistics_job_id) : undefined;
      // A second click while it runs joins the running job instead of starting another.
      if (current && (current.state === 'queued' || current.state === 'running')) return ok({ job_id: current.id, state: current.state });
      const job = await jobs.create({
        orgId: req.auth.orgId,
        userId: req.auth.userId,
        kind: 'statistics',
        subjectType: 'dataset',
        subjectId: row.id,
        spec: {
          parquet: datasets.parquetPath(row),
          output_dir: storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/statistics`),
          datetime_column: row.datetime_column,
          max_categories: 20,
          bins: 20,
        },
      });
      await datasetRepo.update(db, req.auth.orgId, row.id, { statistics_job_id: job.id });
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
        result: job.state === 'succeeded' ? (job.result as z.infer<typeof StatisticsResult>) : null,
        started_at: job.started_at,
        finished_at: job.finished_at,
      });
    },
  );
}
