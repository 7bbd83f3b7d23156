import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { toView } from '../datasets/service.js';
import { datasetStats } from '../datasets/stored.js';
import type { PreprocessConditionTable, PreprocessRunTable } from './db.js';
import type { Lang } from '../../i18n/messages.js';
import { M } from './messages.js';
import type { Step } from './schemas.js';
import { preprocessJob, preprocessPreviewJob } from './jobs.js';
import type { RunResultView, StepSettings } from './responses.js';
import { preprocessRepo } from './repo.js';
import { now, type PreprocessDeps } from './base.js';
import { saveCondition, storedSteps } from './conditions.js';

// A dataset loaded for the page, one step previewed, a condition run as a job, and the run's result.

/** POST load/dataset/{id}: what the pre-processing page needs to start: the dataset, its columns and first rows. */
export async function load(d: PreprocessDeps, auth: AuthContext, id: string) {
  const { datasets } = d;
  const row = await datasets.getRow(auth, id);
  const page = await datasets.preview(auth, id, 1, 50);
  const stats = datasetStats(row); // the statistics computed at upload (as GET dataset/{id})
  return { dataset: toView(row), columns: stats, rows: page.rows, row_count: Number(row.row_count) };
}

/** POST manual/process/dataset/{id}: what one step changes, computed by the engine on (a sample of) the data. */
export async function preview(d: PreprocessDeps, auth: AuthContext, id: string, b: { steps: Step[]; index?: number; sample_rows: number }) {
  const { datasets, jobs, config } = d;
  const row = await datasets.getRow(auth, id);
  const index = b.index ?? b.steps.length - 1;
  if (index >= b.steps.length) throw new AppError(422, M.stepInvalid, { step: index + 1, reason: 'no such step' }, 'index');
  const done = await jobs.runAndWait(
    {
      orgId: auth.orgId,
      userId: auth.userId,
      kind: preprocessPreviewJob,
      subjectType: 'dataset',
      subjectId: row.id,
      spec: { parquet: datasets.parquetPath(row), steps: b.steps, index, datetime_column: row.datetime_column, sample_rows: b.sample_rows },
    },
    config.previewTimeoutMs,
    () => new AppError(504, M.previewTimeout),
  );
  fs.rmSync(path.join(config.dataDir, 'jobs', done.id), { recursive: true, force: true });
  if (done.state !== 'succeeded') throw new AppError(422, M.previewFailed, { reason: done.error ?? done.state }, 'steps');
  return preprocessPreviewJob.resultOf(done)!; // engine preprocessing.condition.preview_step
}

/** POST preprocess/dataset/{id}: runs a condition (steps, or a saved one) as an engine job; its id is the temp_id. */
export async function run(d: PreprocessDeps, auth: AuthContext, id: string, b: { steps?: Step[]; condition_id?: string; condition_name?: string; confirm_overwrite: boolean }, lang: Lang = 'en') {
  const { db, datasets, jobs, getCondition } = d;
  const row = await datasets.getRow(auth, id);
  let condition: PreprocessConditionTable | undefined;
  let steps: StepSettings[] | undefined = b.steps;
  if (b.condition_id) {
    condition = await getCondition(auth, b.condition_id);
    steps = steps ?? storedSteps(condition.steps_json);
  } else if (b.condition_name && b.steps) {
    condition = (await saveCondition(d, auth, { name: b.condition_name, steps: b.steps, datetime_column: row.datetime_column, source_dataset_id: row.id, confirm_overwrite: b.confirm_overwrite })).condition;
  }
  const name = condition?.name ?? b.condition_name ?? `${row.name} (preprocessed)`;
  const job = await jobs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    kind: preprocessJob,
    subjectType: 'dataset',
    subjectId: row.id,
    spec: { parquet: datasets.parquetPath(row), steps, datetime_column: row.datetime_column, name, lang }, // lang: the engine says its progress in it
  });
  const run: PreprocessRunTable = {
    id: job.id,
    organisation_id: auth.orgId,
    source_dataset_id: row.id,
    condition_id: condition?.id ?? null,
    condition_name: name,
    steps_json: JSON.stringify(steps),
    dataset_id: null,
    condition_json: null,
    created_by: auth.userId,
    created_at: now(),
    registered_at: null,
  };
  await preprocessRepo.insertRun(db, run);
  return { temp_id: job.id, job_id: job.id, state: job.state, condition_id: condition?.id ?? null, condition_name: name };
}

export async function result(d: PreprocessDeps, auth: AuthContext, tempId: string): Promise<RunResultView> {
  const { jobs, getRun } = d;
  const run = await getRun(auth, tempId);
  const job = await jobs.get(auth.orgId, tempId);
  const r = job ? preprocessJob.resultOf(job) : null; // engine task preprocess
  return {
    temp_id: run.id,
    source_dataset_id: run.source_dataset_id,
    condition_id: run.condition_id,
    condition_name: run.condition_name,
    steps: storedSteps(run.steps_json),
    state: job?.state ?? 'failed',
    progress: job?.progress ?? 0,
    message: job?.message ?? '',
    error: job?.error ?? null,
    dataset_id: run.dataset_id,
    result: r && job?.state === 'succeeded'
      ? { row_count: r.row_count, column_count: r.column_count, rows_before: r.rows_before, columns_before: r.columns_before, columns: r.columns, datetime_column: r.datetime_column, history: r.history, head: r.head, condition: r.condition, timings: r.timings ?? null }
      : null,
  };
}
