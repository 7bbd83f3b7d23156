import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { ImageService } from '../images/service.js';
import type { DatasetService } from '../datasets/service.js';
import { TS_TYPES } from '../timeseries/schemas.js';
import { isTsType, type TimeSeriesService } from '../timeseries/service.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { type ProjectType, TYPES } from '../training/types.js';
import type { PredictionTable } from './db.js';
import { type Lang } from '../../i18n/messages.js';
import { IMAGE_TYPES } from '../images/schemas.js';
import { imageSummaryIn } from '../images/skipped.js';
import { imagePredictJob } from '../images/jobs.js';
import { predictJob } from './jobs.js';
import { jobProgress } from '../../jobs/progress.js';
import { M } from './messages.js';
import { predictionRepo as repo } from './repo.js';
import type { PredictionView } from './responses.js';

/** A prediction's row (404 for another organisation's) and its answer, built from the row and its job. */
export function makePredictionViews(ctx: AppContext) {
  const { db, jobs, storage } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<PredictionTable> {
    const row = await repo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, M.notFound);
    return row;
  }

  const resultFile = (p: PredictionTable, name: string) => storage.pathOf(`${p.result_key}/${name}`);

  const IMAGE_TYPES_SET = new Set<string>(IMAGE_TYPES);
  async function view(auth: AuthContext, p: PredictionTable, lang: Lang = 'en'): Promise<PredictionView> {
    const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
    const state = !job ? 'failed' : job.state === 'succeeded' ? 'done' : job.state === 'failed' || job.state === 'cancelled' ? 'failed' : job.state === 'running' ? 'running' : 'queued';
    return {
      id: p.id,
      name: p.name,
      project_id: p.project_id,
      project_name: p.project_name,
      project_type: p.project_type,
      report_type: TYPES[p.project_type as ProjectType]?.predictionReport ?? (isTsType(p.project_type) ? 'time-series' : p.project_type),
      model_key: p.model_key,
      dataset_id: p.dataset_id,
      test_dataset: p.dataset_name,
      state,
      ...jobProgress(job),
      error: job?.error ?? null,
      log: state === 'failed' ? (job?.log ?? '') : '',
      // the summary the project kind's engine task wrote (Prediction declares each); an image prediction's left-out
      // images and ZIP entries say why in the reader's language
      result: state === 'done' && job ? (IMAGE_TYPES_SET.has(p.project_type) ? imageSummaryIn(imagePredictJob.resultOf(job), lang) : predictJob.resultOf(job)) : null,
      created_at: p.created_at,
      finished_at: job?.finished_at ?? null,
    } as PredictionView;
  }

  /** A time-series prediction (any other answers 404). */
  async function getTimeSeries(auth: AuthContext, id: string) {
    const p = await getRow(auth, id);
    if (!(TS_TYPES as readonly string[]).includes(p.project_type)) throw new AppError(404, M.notFound);
    return p;
  }

  /** The prediction, once its job has succeeded. */
  async function done(auth: AuthContext, p: PredictionTable) {
    const v = await view(auth, p);
    if (v.state !== 'done') throw new AppError(409, M.notDone);
    return v;
  }

  return { getRow, view, getTimeSeries, resultFile, done };
}

/** What the prediction modules take: the app's database, jobs, storage and DuckDB, the areas they use, the views. */
export type PredictionDeps = Pick<AppContext, 'db' | 'jobs' | 'storage' | 'duckdb'> &
  ReturnType<typeof makePredictionViews> & { datasets: DatasetService; training: TrainingService; timeSeries: TimeSeriesService; runs: RunService; images: ImageService };
