import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { M } from './messages.js';
import { IMAGE_ALGORITHMS, IMAGE_TYPES, type ImageRegister, type ImageType } from './schemas.js';
import { imageRepo } from './repo.js';
import { imageTrainJob } from './jobs.js';
import { engineError, type ImageConfig, type ImageDeps, now } from './base.js';
import { imageConfig } from './stored.js';
import { modelParams } from '../training/stored.js';

// Image projects: listed, registered, trained, stopped, renamed and removed.

/** Image projects, newest first (the training list holds the table types). */
export async function list(d: ImageDeps, auth: AuthContext, type?: ImageType) {
  const rows = await d.runs.ofTypes(auth.orgId, type ? [type] : IMAGE_TYPES, 500);
  return Promise.all(
    rows.map(async (p) => {
      const v = await d.view(auth, p);
      return { project_id: v.project_id, name: v.name, project_type: v.project_type, training_state: v.training_state, dataset_id: v.dataset_id, created_at: v.created_at };
    }),
  );
}

/** The models a project of `type` trains: the ones asked for, else the type's default; each must be the type's. */
function modelsFor(type: ImageType, asked: ImageRegister['models']) {
  const models = asked.length ? asked : type === 'analysis' ? [{ algorithm: 'patchcore' }] : [{ algorithm: 'finetune' }];
  const allowed = IMAGE_ALGORITHMS[type] as readonly string[];
  for (const m of models) if (!allowed.includes(m.algorithm)) throw engineError('unknown_algorithm', { algorithm: m.algorithm }, 422, 'models');
  return models;
}

export async function register(d: ImageDeps, auth: AuthContext, datasetId: string, body: ImageRegister) {
  const { row, manifest } = await d.getImageDataset(auth, datasetId);
  const type = body.project_type;
  if (manifest.kind !== type) throw new AppError(422, M.wrongDatasetType, { type: type === 'analysis' ? 'OK/NG analysis' : 'image classification' }, 'dataset_id');
  const models = modelsFor(type, body.models);
  const cfg: ImageConfig = { image: true, settings: body.settings, classes: manifest.classes, dataset_dir: '' };
  const project = await d.runs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    type,
    name: body.name,
    dataset: row,
    numberOfData: manifest.total,
    config: cfg,
    models,
  });
  return d.view(auth, project);
}

export async function train(d: ImageDeps, auth: AuthContext, id: string, modelKeys?: string[], lang: Lang = 'en') {
  const { storage, datasets, runs, getProject, view, modelsOf, datasetDir, stopFile } = d;
  const p = await getProject(auth, id);
  if (await runs.activeJob(auth, p)) return view(auth, p);
  const dataset = await datasets.getRow(auth, p.dataset_id);
  const cfg = imageConfig(p);
  let models = await modelsOf(auth.orgId, id);
  if (modelKeys?.length) models = models.filter((m) => modelKeys.includes(m.model_key));
  if (!models.length) throw new AppError(422, { en: 'At least one model must be selected', ja: 'モデルを1つ以上選択してください' }, {}, 'model_keys');
  const runKey = runs.newRunKey(auth.orgId, id);
  await runs.start(auth, id, {
    kind: imageTrainJob,
    runKey,
    modelKeys: models.map((m) => m.model_key),
    resetMetrics: true,
    spec: {
      project_type: p.project_type,
      dataset_dir: datasetDir(dataset),
      output_dir: storage.pathOf(runKey),
      stop_file: stopFile(runKey),
      project_name: p.name,
      settings: { ...cfg.settings, weights_dir: d.weightsDir },
      models: models.map((m) => ({ key: m.model_key, algorithm: m.algorithm, params: modelParams(m) })),
      lang, // the engine says its progress in the language of the person starting the job
    },
  });
  return view(auth, await getProject(auth, id));
}

/** The name only, in any state: the one project row's owner (runs) writes it. */
export async function rename(d: ImageDeps, auth: AuthContext, id: string, name: string) {
  await d.runs.rename(auth.orgId, (await d.getProject(auth, id)).id, name);
  return d.view(auth, await d.getProject(auth, id));
}

/** The project, its epoch curves, models and files. */
export async function remove(d: ImageDeps, auth: AuthContext, id: string) {
  const p = await d.getProject(auth, id);
  return d.runs.remove(auth, p, () => imageRepo.deleteEpochs(d.db, auth.orgId, p.id));
}

/** Asks the running training to stop: the engine ends within one batch and keeps the best checkpoint. */
export async function stop(d: ImageDeps, auth: AuthContext, id: string) {
  const { jobs, getProject, modelsOf, stopFile, view } = d;
  const p = await getProject(auth, id);
  const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
  if (!job || (job.state !== 'queued' && job.state !== 'running')) throw new AppError(409, M.notTraining);
  const models = await modelsOf(auth.orgId, id);
  const runKey = models.find((m) => m.state === 'training')?.run_key;
  if (!runKey) throw new AppError(409, M.notTraining);
  if (job.state === 'queued') {
    await jobs.cancel(auth.orgId, job.id); // nothing trained yet: nothing to keep
  } else {
    fs.mkdirSync(path.dirname(stopFile(runKey)), { recursive: true });
    fs.writeFileSync(stopFile(runKey), now());
  }
  return view(auth, p);
}
