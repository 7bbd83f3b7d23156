import crypto from 'node:crypto';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { M as TM } from '../training/messages.js';
import { M } from './messages.js';
import type { RegisterBody } from './schemas.js';
import { WINDOW_STATS } from './schemas.js';
import { thresholdForFar, thresholdStats } from './scores.js';
import { tsadTrainJob } from './jobs.js';
import { modeOf } from './detectors.js';
import { tsConfigOf } from './stored.js';
import type { TsDeps } from './base.js';
import { validate } from './validate.js';
import { thresholdRepo } from './repo.js';
import { modelParams } from '../training/stored.js';

const now = () => new Date().toISOString();

// A project registered, trained, and its threshold read and saved.

export async function register(d: TsDeps, auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang = 'en') {
  const { datasets, runs, view } = d;
  const dataset = await datasets.getRow(auth, datasetId);
  const cfg = await validate(d, body, dataset);
  const project = await runs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    type: body.project_type,
    name: body.name,
    dataset,
    numberOfData: Number(dataset.row_count),
    config: cfg,
    models: body.models,
  });
  return view(auth, project, lang);
}

/** One `tsad_train` job for every model; the training area's handlers keep the model rows in step. */
export async function train(d: TsDeps, auth: AuthContext, id: string, modelKeys?: string[], lang: Lang = 'en') {
  const { db, storage, datasets, training, runs, getProject, view } = d;
  const p = await getProject(auth, id);
  if (await runs.activeJob(auth, p)) return view(auth, p, lang);
  const dataset = await datasets.getRow(auth, p.dataset_id);
  const cfg = tsConfigOf(p);
  let models = await training.modelsOf(auth.orgId, id);
  if (modelKeys?.length) models = models.filter((m) => modelKeys.includes(m.model_key));
  if (!models.length) throw new AppError(422, TM.noModels, {}, 'model_keys');
  const runKey = runs.newRunKey(auth.orgId, id);
  const keys = models.map((m) => m.model_key);
  await runs.start(auth, id, {
    kind: tsadTrainJob,
    runKey,
    modelKeys: keys,
    spec: {
      project_type: p.project_type,
      project_name: p.name,
      parquet: datasets.parquetPath(dataset),
      condition_path: training.conditionPath(auth.orgId, dataset.id),
      time_column: cfg.time_column,
      features: cfg.features,
      target: cfg.target,
      lags: cfg.lags,
      windows: cfg.windows,
      resample: cfg.resample ?? null,
      window_stats: cfg.window_stats ?? [...WINDOW_STATS],
      drift_signals: cfg.drift_signals ?? [],
      drift_rows: cfg.drift_rows ?? null,
      normal: cfg.normal,
      split_ratio: cfg.split_ratio,
      output_dir: storage.pathOf(runKey),
      models: models.map((m) => ({ key: m.model_key, algorithm: m.algorithm, params: modelParams(m) })),
      // the language of the person starting the job: the engine says its progress, log lines and notes in it
      // (detectors and parameters by their catalogue names) and writes the HTML report in both languages
      lang,
    },
    beforeStart: async () => {
      // a new run has new scores: a threshold saved for the old ones no longer means the same
      await thresholdRepo.remove(db, auth.orgId, id, keys);
    },
  });
  return view(auth, await getProject(auth, id), lang);
}

/** Exact metrics at a threshold (given, or from a target false-alarm rate, or the saved/trained one). */
export async function threshold(d: TsDeps, auth: AuthContext, projectId: string, key: string, q: { threshold?: number; target_far?: number }) {
  const { savedThresholds, trainedThreshold, doneModel, loadScores } = d;
  const started = performance.now();
  const { p, m, dir, cfg } = await doneModel(auth, projectId, key);
  const s = await loadScores(dir, cfg);
  const trained = trainedThreshold(m);
  const saved = (await savedThresholds(auth.orgId, p.id)).get(m.model_key) ?? null;
  let threshold = q.threshold ?? saved ?? trained ?? NaN;
  const supervised = modeOf(p.project_type) === 'supervised';
  if (q.target_far !== undefined) threshold = thresholdForFar(s, q.target_far, supervised);
  if (!Number.isFinite(threshold)) throw new AppError(422, M.badThreshold, {}, 'threshold');
  const stats = thresholdStats(s, threshold, supervised);
  return { threshold, trained_threshold: trained, saved_threshold: saved, ...stats, seconds: (performance.now() - started) / 1000 };
}

export async function saveThreshold(d: TsDeps, auth: AuthContext, projectId: string, key: string, threshold: number, lang: Lang = 'en') {
  const { db, view, doneModel } = d;
  const { p, m } = await doneModel(auth, projectId, key);
  if (!Number.isFinite(threshold)) throw new AppError(422, M.badThreshold, {}, 'threshold');
  const t = now();
  const existing = await thresholdRepo.find(db, auth.orgId, p.id, m.model_key);
  if (existing) await thresholdRepo.update(db, existing.id, { threshold, updated_by: auth.userId, updated_at: t });
  else await thresholdRepo.insert(db, { id: crypto.randomUUID(), organisation_id: auth.orgId, project_id: p.id, model_key: m.model_key, threshold, updated_by: auth.userId, updated_at: t });
  const v = await view(auth, p, lang);
  return v.models.find((x) => x.model_key === m.model_key)!;
}
