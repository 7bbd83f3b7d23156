import crypto from 'node:crypto';
import type { AuthContext } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import type { Lang } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import type { StatisticalProjectTable } from './db.js';
import { projectRepo } from './repo.js';
import type { ProjectSettings, RegisterBody } from './schemas.js';
import { statisticalAnalysisJob } from './jobs.js';
import { SUBJECT, projectKey, bad, now, type Settings, settingsOf, toView, normalizeSettings } from './rules.js';
import { checkData, columnsOf, type StatisticalDeps } from './data-checks.js';

// A project's runs: registered and run (again), the job's end stored once, a run that ended unseen picked up.

/** Stores a finished run on its project (once; only if it is still the project's current run). */
export async function applyFinish(d: StatisticalDeps, orgId: string, projectId: string, job: JobView): Promise<void> {
  const { db } = d;
  const done = job.state === 'succeeded';
  await projectRepo.finishRun(db, orgId, projectId, job.id, {
    state: done ? 'done' : 'failed',
    result_json: done ? JSON.stringify(statisticalAnalysisJob.resultOf(job)) : null,
    error: done ? null : (job.error ?? 'failed'),
    finished_at: job.finished_at ?? now(),
    updated_at: now(),
  });
}

/** A run that finished before its id was stored on the project is picked up here. */
export async function reconcile(d: StatisticalDeps, row: StatisticalProjectTable): Promise<StatisticalProjectTable> {
  const { db, jobs } = d;
  if (row.state !== 'running' || !row.job_id) return row;
  const job = await jobs.get(row.organisation_id, row.job_id);
  if (!job) {
    await projectRepo.finishRun(db, row.organisation_id, row.id, row.job_id, { state: 'failed', error: 'The job no longer exists.', updated_at: now() });
  } else if (job.state === 'queued' || job.state === 'running') {
    return row;
  } else {
    await applyFinish(d, row.organisation_id, row.id, job);
  }
  return (await projectRepo.get(db, row.organisation_id, row.id)) ?? row;
}

async function startRun(d: StatisticalDeps, auth: AuthContext, row: StatisticalProjectTable, ds: DatasetTable, lang: Lang): Promise<StatisticalProjectTable> {
  const { db, jobs, storage, datasets, getRow } = d;
  const job = await jobs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    kind: statisticalAnalysisJob,
    subjectType: SUBJECT,
    subjectId: row.id,
    spec: {
      parquet: datasets.parquetPath(ds),
      output_dir: storage.pathOf(projectKey(auth.orgId, row.id)),
      ...settingsOf(row),
      lang, // the engine says its progress in the language of the person starting the run
    },
  });
  await projectRepo.update(db, auth.orgId, row.id, { state: 'running', job_id: job.id, error: null, result_json: null, finished_at: null, updated_at: now() });
  return getRow(auth, row.id);
}

/**
 * The settings of a run on `ds`, normalised against its columns and its data checked (registering and running
 * again alike). A dataset's data never change (pre-processing makes a new one), so settings equal to `checked` (the
 * stored ones, checked at registration) are not checked again; the engine checks them once more as it runs.
 */
async function checkedSettings(d: StatisticalDeps, asked: Settings, ds: DatasetTable, checked?: Settings): Promise<Settings> {
  const columns = columnsOf(ds);
  const s = normalizeSettings(asked, columns);
  if (!checked || JSON.stringify(s) !== JSON.stringify(normalizeSettings(checked, columns))) await checkData(d, s, ds);
  return s;
}

/** The project row's columns that hold the settings. */
function settingsColumns(s: Settings) {
  return {
    test_type: s.test_type,
    variable1: s.variable1,
    variable2: s.variable2,
    category: s.category,
    group1: s.group1,
    group2: s.group2,
    groups_json: JSON.stringify(s.groups),
    hypothetical_mean: s.hypothetical_mean,
    significance_level: s.significance_level,
    alternative: s.alternative,
    equal_variance: s.equal_variance,
  };
}

export async function register(d: StatisticalDeps, auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang) {
  const { db, datasets } = d;
  const ds = await datasets.getRow(auth, datasetId);
  if (!body.name) throw bad('name', 'name_required');
  const s = await checkedSettings(d, { ...body, groups: body.groups ?? [] }, ds);
  const t = now();
  const row: StatisticalProjectTable = {
    id: crypto.randomUUID(),
    organisation_id: auth.orgId,
    dataset_id: ds.id,
    dataset_name: ds.name,
    name: body.name,
    comment: body.comment ?? '',
    ...settingsColumns(s),
    state: 'ready',
    job_id: null,
    error: null,
    result_json: null,
    created_by: auth.userId,
    created_at: t,
    updated_at: t,
    finished_at: null,
  };
  await projectRepo.insert(db, row);
  return toView(body.run ? await startRun(d, auth, row, ds, lang) : row, lang);
}

/** Runs the test (again), optionally with changed settings; a run in progress is joined, not doubled. */
export async function run(d: StatisticalDeps, auth: AuthContext, id: string, patch: (Partial<ProjectSettings> & { name?: string }) | undefined, lang: Lang) {
  const { db, datasets, getRow } = d;
  let row = await getRow(auth, id);
  if (row.state === 'running') return toView(row, lang);
  const ds = await datasets.getRow(auth, row.dataset_id);
  const { name, ...changes } = patch ?? {};
  const stored = settingsOf(row);
  const s = await checkedSettings(d, { ...stored, ...stripUndefined(changes) } as Settings, ds, stored);
  await projectRepo.update(db, auth.orgId, id, {
    name: name || row.name,
    ...settingsColumns(s),
    dataset_name: ds.name,
    updated_at: now(),
  });
  row = (await projectRepo.get(db, auth.orgId, id))!;
  return toView(await startRun(d, auth, row, ds, lang), lang);
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
