import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { engineErrorMessage, isEngineCode } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import { datasetKey, type DatasetService } from '../datasets/service.js';
import type { RunService } from '../training/runs.js';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { M } from './messages.js';
import { IMAGE_TYPES, type ImageType } from './schemas.js';
import { imageRepo } from './repo.js';
import { imageIngestJob } from './jobs.js';
import { modelParams, modelSummary } from '../training/stored.js';
import { storedFileMemo } from '../../db/stored.js';
import { ImageManifest, imageConfig, imageModelMetrics, type Manifest } from './stored.js';

export type { ImageConfig, Manifest } from './stored.js';

export const now = () => new Date().toISOString();

export const isImageType = (t: string): t is ImageType => (IMAGE_TYPES as readonly string[]).includes(t);
export const IMAGE_DIR = 'images';
/** ZIP registration waits this long for the engine to unpack (8 MB of JPEGs take a few seconds). */
const INGEST_TIMEOUT_MS = 15 * 60_000;

/** An engine refusal ({code, params}) as an AppError in the caller's language (texts from the engine catalogue). */
export function engineError(code: string, params: Record<string, unknown> = {}, status = 422, field = 'file'): AppError {
  return isEngineCode(code) ? new AppError(status, engineErrorMessage({ code, params }), {}, field) : new AppError(status, M.ingestFailed, { reason: code }, field);
}

/** One model as the page and the API show it. */
function modelView(m: TrainingModelTable, epochs: unknown[]) {
  const s = modelSummary(m);
  return {
    id: m.id,
    model_key: m.model_key,
    algorithm: m.algorithm,
    params: modelParams(m),
    state: m.state,
    metrics: imageModelMetrics(m),
    threshold: s.threshold ?? null,
    stopped: !!s.stopped,
    seconds: s.seconds ?? null,
    error: m.error,
    /** the engine's refusal in both languages when it gave a code */
    error_message: m.state === 'failed' && s.error_code && isEngineCode(String(s.error_code)) ? engineErrorMessage({ code: String(s.error_code), params: s.error_params ?? {} }) : null,
    log: m.state === 'failed' ? m.log : null,
    trained_at: m.trained_at,
    epochs,
  };
}

/** What the service's modules share: the app's database, storage and jobs, the areas used, the dataset folders and
 * manifests, and the project reads and view. */
export function makeImageBase(ctx: AppContext, { datasets, runs }: { datasets: DatasetService; runs: RunService }) {
  const { db, storage, jobs } = ctx;

  const datasetDir = (row: DatasetTable) => storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/${IMAGE_DIR}`);

  /** A manifest of a dataset folder or a pre-processing run: written once, read by every thumbnail request. */
  const readManifest = storedFileMemo('image manifest', ImageManifest, 4);

  async function manifestOf(row: DatasetTable): Promise<Manifest> {
    const file = path.join(datasetDir(row), 'manifest.json');
    if (!fs.existsSync(file)) throw new AppError(422, M.notImageDataset, {}, 'dataset_id');
    return readManifest(file);
  }

  /** Unpacks a ZIP with the engine into `outDir` (images, thumbnails, manifest); a refusal is said on `field`. */
  async function ingestZip(auth: AuthContext, zipPath: string, kind: string, outDir: string, lang: Lang, field = 'file') {
    const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: imageIngestJob, spec: { zip: zipPath, kind, output_dir: outDir, lang } });
    const done = await jobs.waitFor(job.id, INGEST_TIMEOUT_MS);
    if (done.state !== 'succeeded') throw new AppError(422, M.ingestFailed, { reason: done.error ?? done.state }, field);
    const res = imageIngestJob.resultOf(done);
    if (res && 'error' in res) throw engineError(res.error.code, res.error.params, 422, field);
  }

  /** Unpacks a ZIP with the engine into a temporary folder, then commits it as a dataset (nothing kept on refusal). */
  async function unpackZip(auth: AuthContext, zipPath: string, kind: string, outDir: string, lang: Lang): Promise<Manifest> {
    await ingestZip(auth, zipPath, kind, outDir, lang);
    return readManifest(path.join(outDir, 'manifest.json'));
  }

  async function getImageDataset(auth: AuthContext, id: string) {
    const row = await datasets.getRow(auth, id);
    return { row, manifest: await manifestOf(row) };
  }

  async function getProject(auth: AuthContext, id: string): Promise<TrainingProjectTable> {
    const p = await runs.find(auth.orgId, id);
    if (!p || !isImageType(p.project_type)) throw new AppError(404, M.notImageProject);
    return p;
  }

  const modelsOf = (orgId: string, projectId: string) => runs.modelsOf(orgId, projectId);

  async function getModel(auth: AuthContext, projectId: string, key: string): Promise<TrainingModelTable> {
    const m = await runs.findModel(auth.orgId, projectId, key);
    if (!m) throw new AppError(404, { en: 'The model does not exist.', ja: 'モデルが見つかりません。' });
    return m;
  }

  const runDir = (m: TrainingModelTable) => (m.run_key ? storage.pathOf(`${m.run_key}/${m.model_key}`) : null);
  const stopFile = (runKey: string) => storage.pathOf(`${runKey}/STOP`);

  async function epochsOf(orgId: string, projectId: string, runKeys: Map<string, string | null>) {
    const rows = await imageRepo.epochsOf(db, orgId, projectId);
    const by: Record<string, unknown[]> = {};
    for (const r of rows) {
      if (runKeys.get(r.model_key) !== r.run_key) continue; // curves of the latest run only
      (by[r.model_key] ??= []).push({
        epoch: r.epoch,
        train_loss: r.train_loss,
        train_accuracy: r.train_accuracy,
        val_loss: r.val_loss,
        val_accuracy: r.val_accuracy,
        learning_rate: r.learning_rate,
      });
    }
    return by;
  }

  async function view(auth: AuthContext, p: TrainingProjectTable) {
    const [models, job] = await Promise.all([modelsOf(auth.orgId, p.id), p.job_id ? jobs.get(auth.orgId, p.job_id) : undefined]);
    const cfg = imageConfig(p);
    const epochs = await epochsOf(auth.orgId, p.id, new Map(models.map((m) => [m.model_key, m.run_key])));
    const active = job && (job.state === 'queued' || job.state === 'running');
    const done = models.filter((m) => m.state === 'done').length;
    const state = active ? 'training' : done ? 'done' : models.some((m) => m.state === 'failed') || job?.state === 'failed' ? 'failed' : 'ready';
    const stopping = !!(active && models[0]?.run_key && fs.existsSync(stopFile(models[0].run_key)));
    return {
      project_id: p.id,
      name: p.name,
      project_type: p.project_type,
      training_state: state,
      stopping,
      dataset_id: p.dataset_id,
      parent_dataset_name: p.dataset_name,
      number_of_data: Number(p.number_of_data),
      classes: cfg.classes ?? [],
      settings: cfg.settings,
      models: models.map((m) => modelView(m, epochs[m.model_key] ?? [])),
      job: job ? { id: job.id, state: job.state, progress: job.progress, message: job.message, error: job.error, started_at: job.started_at, finished_at: job.finished_at } : null,
      error: state === 'failed' ? p.error : null,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  // MITATE_IMAGE_WEIGHTS_DIR: where training finds pretrained weights (null: none)
  const weightsDir = ctx.config.imageWeightsDir;
  return { db, storage, jobs, datasets, runs, weightsDir, datasetDir, readManifest, manifestOf, ingestZip, unpackZip, getImageDataset, getProject, modelsOf, getModel, runDir, stopFile, view };
}
export type ImageDeps = ReturnType<typeof makeImageBase>;
