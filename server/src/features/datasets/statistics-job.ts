import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { statisticsJob } from './jobs.js';
import { datasetRepo } from './repo.js';
import type { Sketch } from './sketch.js';

type Jobs = AppContext['jobs'];

/** The state of a dataset's latest statistics job, as the dataset's view shows it ('none' before the first). */
export async function statisticsStateOf(jobs: Jobs, orgId: string, row: DatasetTable) {
  if (!row.statistics_job_id) return { state: 'none', job_id: null };
  const job = await jobs.get(orgId, row.statistics_job_id);
  return { state: job?.state ?? 'none', job_id: job?.id ?? null };
}

/** The answer of POST /statistics/result: the latest statistics job's state, progress and result ('none' before one). */
export async function statisticsResultOf(jobs: Jobs, orgId: string, row: DatasetTable) {
  const job = row.statistics_job_id ? await jobs.get(orgId, row.statistics_job_id) : undefined;
  if (!job) return { job_id: null, state: 'none' as const, progress: 0, message: '', error: null, result: null };
  return {
    job_id: job.id,
    state: job.state,
    progress: job.progress,
    message: job.message,
    error: job.error,
    log: job.state === 'failed' ? job.log : '',
    result: statisticsJob.resultOf(job),
    started_at: job.started_at,
    finished_at: job.finished_at,
  };
}

/** The statistics job writes the exploration sketch; its first columns go to memory at once (issue 17), in the
 * background: the job is finished for everyone meanwhile. */
export function warmSketchesWhenDone(ctx: AppContext, sketchOf: (row: DatasetTable) => Sketch | null) {
  ctx.jobs.onFinished(statisticsJob, async (job, orgId) => {
    if (job.state !== 'succeeded' || job.subject_type !== 'dataset' || !job.subject_id) return;
    const row = await datasetRepo.get(ctx.db, orgId, job.subject_id);
    const sketch = row ? sketchOf(row) : null;
    sketch?.warm().catch((e: Error) => ctx.log.warn(`dataset ${row!.id}: sketch columns not read ahead: ${e.message}`));
  });
}
