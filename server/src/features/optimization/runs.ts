import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { datasetStats } from '../datasets/stored.js';
import type { OptimizationProjectTable } from './db.js';
import { M } from './messages.js';
import { optimizeJob, optimizePredictJob } from './jobs.js';
import type { RegisterBody } from './schemas.js';
import { optimizationRepo } from './repo.js';
import { engineErrorText, featureTemplate, now, runState, runView, SUBJECT } from './rules.js';
import type { OptimizationDeps } from './base.js';
import { projectSettings } from './stored.js';

// A project registered and evaluated (one run per algorithm), its results, and predictions at chosen conditions.

export async function register(d: OptimizationDeps, auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang) {
  const { db, engineCheck, view, prepared } = d;
  if (!body.name) throw new AppError(422, M.nameRequired, {}, 'name');
  const { models, dataset, spec } = await prepared(auth, body);
  if (dataset.id !== datasetId) throw new AppError(422, M.sameDataset, {}, 'models');
  await engineCheck(auth, spec);
  const id = crypto.randomUUID();
  const settings = {
    models: body.models,
    targets: body.targets,
    features: body.features,
    constraints: body.constraints,
    algorithms: [...new Set(body.algorithms)],
    n_trials: body.n_trials,
    seed: body.seed,
    forbid_extrapolation: body.forbid_extrapolation,
    model_info: models.map(({ manifest: _m, dir: _d, ...m }) => m),
  };
  const row: OptimizationProjectTable = {
    id,
    organisation_id: auth.orgId,
    name: body.name,
    comment: body.comment,
    dataset_id: dataset.id,
    dataset_name: dataset.name,
    settings_json: JSON.stringify(settings),
    created_by: auth.userId,
    created_at: now(),
    updated_at: now(),
  };
  await optimizationRepo.insert(db, row);
  if (body.run) return evaluate(d, auth, id, undefined, lang);
  return view(auth, row, lang);
}

export async function evaluate(d: OptimizationDeps, auth: AuthContext, id: string, algorithms: string[] | undefined, lang: Lang) {
  const { db, jobs, storage, getRow, view, prepared } = d;
  const p = await getRow(auth, id);
  const s = projectSettings(p);
  const current = await view(auth, p, lang);
  if (current.state === 'running') throw new AppError(409, M.running);
  // the models are resolved again: one deleted since registration is refused now, by name
  const { spec } = await prepared(auth, s);
  for (const algorithm of algorithms ?? s.algorithms) {
    const runId = crypto.randomUUID();
    const resultKey = `org/${auth.orgId}/optimization/${p.id}/${runId}`;
    await jobs.create({
      orgId: auth.orgId,
      userId: auth.userId,
      kind: optimizeJob,
      subjectType: SUBJECT,
      subjectId: runId,
      spec: { ...spec, algorithm, output_dir: storage.pathOf(resultKey), lang }, // lang: the engine says its progress in it
      beforeEnqueue: async (job) => {
        await optimizationRepo.replaceRun(db, { id: runId, organisation_id: auth.orgId, project_id: p.id, algorithm, job_id: job.id, result_key: resultKey, created_at: now() });
      },
    });
  }
  await optimizationRepo.touch(db, auth.orgId, p.id, now());
  return view(auth, await getRow(auth, id), lang);
}

/** A run by its id, or a project's latest run of one algorithm. */
export async function result(d: OptimizationDeps, auth: AuthContext, id: string, algorithm: string | undefined, lang: Lang) {
  const { db, jobs, getRow } = d;
  let run = await optimizationRepo.run(db, auth.orgId, id);
  if (!run && algorithm) {
    const p = await getRow(auth, id);
    run = await optimizationRepo.runOf(db, auth.orgId, p.id, algorithm);
  }
  if (!run) throw new AppError(404, M.runNotFound);
  const job = await jobs.get(auth.orgId, run.job_id);
  const v = runView(run, job, lang);
  return { run: v, project_id: run.project_id, result: v.state === 'done' && job ? optimizeJob.resultOf(job) : null };
}

export async function resultCsv(d: OptimizationDeps, auth: AuthContext, datasetId: string, runId: string | undefined) {
  const { storage, getRun, getRow } = d;
  if (runId) {
    const run = await getRun(auth, runId);
    const p = await getRow(auth, run.project_id);
    if (p.dataset_id !== datasetId) throw new AppError(404, M.runNotFound);
    const file = storage.pathOf(`${run.result_key}/best.csv`);
    if (!fs.existsSync(file)) throw new AppError(409, M.notDone);
    return { body: await fs.promises.readFile(file, 'utf8'), fileName: `${p.name}-${run.algorithm}-conditions.csv` };
  }
  // no run: the dataset's columns as a feature-settings template with their ranges
  const dataset = await d.datasets.getRow(auth, datasetId);
  return { body: featureTemplate(datasetStats(dataset)), fileName: `${dataset.name}-features.csv` };
}

export async function predict(d: OptimizationDeps, auth: AuthContext, projectId: string, conditions: Record<string, string | number>[]) {
  const { jobs, getRow, prepared } = d;
  if (!conditions.length) throw new AppError(422, M.conditionEmpty, {}, 'conditions');
  const p = await getRow(auth, projectId);
  const { spec } = await prepared(auth, projectSettings(p));
  const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: optimizePredictJob, subjectType: 'optimization_project', subjectId: p.id, spec: { ...spec, conditions } });
  return { id: job.id, state: runState(job), progress: 0, error: null, result: null };
}

export async function predictionResult(d: OptimizationDeps, auth: AuthContext, taskId: string, lang: Lang) {
  const { jobs } = d;
  const job = await jobs.get(auth.orgId, taskId);
  if (!job || job.kind !== optimizePredictJob.kind) throw new AppError(404, M.taskNotFound);
  const state = runState(job);
  return { id: job.id, state, progress: job.progress, error: state === 'failed' ? engineErrorText(job.error, lang) : null, result: state === 'done' ? optimizePredictJob.resultOf(job) : null };
}
