import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { engineErrorMessage, engineErrorText, isEngineCode } from '../../i18n/engine-errors.js';
import { type Lang, localize } from '../../i18n/messages.js';
import { datasetKey, type DatasetService, toView } from '../datasets/service.js';
import type { RegisterFields } from '../datasets/schemas.js';
import type { RunService } from '../training/runs.js';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { M } from './messages.js';
import { IMAGE_ALGORITHMS, IMAGE_TYPES, type ImageRegister, type ImageSettings, type ImageType } from './schemas.js';
import { figuresAt, percentile, rates, thresholdForMissRate } from '@mitate/rules';
import { imageRepo } from './repo.js';
import { type Skipped, skippedIn } from './skipped.js';
import { imageIngestJob, imageTrainJob } from './jobs.js';

/** A threshold rule in `lang`: a code of the engine catalogue (image_threshold_rule_<code>) with its parameters, as the
 * engine's report and POST update/threshold store it; a text stored before rules were codes is shown as it is. */
function ruleText(rule: unknown, params: unknown, lang: Lang): string | null {
  if (typeof rule !== 'string' || !rule) return null;
  const code = `image_threshold_rule_${rule}`;
  if (!isEngineCode(code)) return rule;
  return engineErrorText(JSON.stringify({ code, params: params && typeof params === 'object' ? params : {} }), lang);
}

export interface ImageItem {
  id: string;
  file: string;
  thumb: string;
  name: string;
  label: string | null;
  split: string;
  width: number;
  height: number;
  mode: string;
}
interface Manifest {
  kind: string;
  classes: string[];
  items: ImageItem[];
  skipped: Skipped[];
  counts: Record<string, Record<string, number>>;
  total: number;
  presplit: boolean;
}
interface ImageConfig {
  image: true;
  settings: ImageSettings;
  classes: string[];
  dataset_dir: string;
}
/** An event of the image training worker: a model's state ("model") or one epoch's figures ("epoch"). */
interface ImageEvent {
  type?: string;
  key?: string;
  state?: string;
  metrics?: unknown;
  threshold?: number | null;
  stopped?: boolean;
  seconds?: number | null;
  error?: string;
  log?: string;
  code?: string | null;
  params?: Record<string, unknown>;
  epoch?: number;
  train_loss?: unknown;
  train_accuracy?: unknown;
  val_loss?: unknown;
  val_accuracy?: unknown;
  learning_rate?: unknown;
}

const now = () => new Date().toISOString();
const parse = <T>(s: string | null, d: T): T => (s ? (JSON.parse(s) as T) : d);

type HeldScore = { label: string; score: number; split: string };
type ThresholdedReport = { threshold?: number; metrics: Record<string, unknown>; gallery: { score: number; predicted: string }[] };
/** An OK/NG report seen at the threshold in force: its test figures (all but ROC AUC, which no threshold changes) and
 * the gallery's predicted classes. At the threshold training chose, the engine's own figures are kept. */
function atThreshold<R extends ThresholdedReport>(report: R, test: HeldScore[], threshold: number): R {
  if (report.threshold === threshold || !test.length) return report;
  const figures = figuresAt(test.map((s) => s.label), test.map((s) => s.score), threshold);
  return {
    ...report,
    metrics: { ...report.metrics, ...figures },
    gallery: report.gallery.map((g) => ({ ...g, predicted: g.score >= threshold ? 'NG' : 'OK' })),
  };
}
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
  const s = parse<Record<string, unknown>>(m.summary_json, {});
  return {
    id: m.id,
    model_key: m.model_key,
    algorithm: m.algorithm,
    params: parse(m.params_json, {}),
    state: m.state,
    metrics: parse<Record<string, unknown> | null>(m.metrics_json, null),
    threshold: (s.threshold as number | undefined) ?? null,
    stopped: !!s.stopped,
    seconds: (s.seconds as number | undefined) ?? null,
    error: m.error,
    /** the engine's refusal in both languages when it gave a code */
    error_message: m.state === 'failed' && s.error_code && isEngineCode(String(s.error_code)) ? engineErrorMessage({ code: String(s.error_code), params: (s.error_params ?? {}) as Record<string, unknown> }) : null,
    log: m.state === 'failed' ? m.log : null,
    trained_at: m.trained_at,
    epochs,
  };
}

export function makeImageService(ctx: AppContext, { datasets, runs }: { datasets: DatasetService; runs: RunService }) {
  const { db, storage, jobs } = ctx;

  const datasetDir = (row: DatasetTable) => storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/${IMAGE_DIR}`);

  async function manifestOf(row: DatasetTable): Promise<Manifest> {
    const file = path.join(datasetDir(row), 'manifest.json');
    if (!fs.existsSync(file)) throw new AppError(422, M.notImageDataset, {}, 'dataset_id');
    return JSON.parse(await fs.promises.readFile(file, 'utf8')) as Manifest;
  }

  /** Unpacks a ZIP with the engine into a temporary folder, then commits it as a dataset (nothing kept on refusal). */
  async function unpackZip(auth: AuthContext, zipPath: string, kind: string, outDir: string, lang: Lang): Promise<Manifest> {
    const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: imageIngestJob, spec: { zip: zipPath, kind, output_dir: outDir, lang } });
    const done = await jobs.waitFor(job.id, INGEST_TIMEOUT_MS);
    if (done.state !== 'succeeded') throw new AppError(422, M.ingestFailed, { reason: done.error ?? done.state }, 'file');
    const res = imageIngestJob.resultOf(done);
    if (res && 'error' in res) throw engineError(res.error.code, res.error.params);
    return JSON.parse(await fs.promises.readFile(path.join(outDir, 'manifest.json'), 'utf8')) as Manifest;
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
    const cfg = parse<ImageConfig>(p.config_json, {} as ImageConfig);
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

  return {
    datasetDir,
    manifestOf,
    getImageDataset,
    getProject,
    getModel,
    runDir,
    view,

    /** Image projects, newest first (the training list holds the table types). */
    async list(auth: AuthContext, type?: ImageType) {
      const rows = await runs.ofTypes(auth.orgId, type ? [type] : IMAGE_TYPES, 500);
      return Promise.all(
        rows.map(async (p) => {
          const v = await view(auth, p);
          return { project_id: v.project_id, name: v.name, project_type: v.project_type, training_state: v.training_state, dataset_id: v.dataset_id, created_at: v.created_at };
        }),
      );
    },

    /** POST /dataset/register with a ZIP: images, thumbnails and manifest in the dataset's folder. */
    async registerZip(auth: AuthContext, fields: RegisterFields, file: { path: string; fileName: string; size: number }, tempDir: string, lang: Lang = 'en') {
      const kind = fields.data_type === 'inference_data' ? 'inference' : fields.training_type;
      if (kind !== 'inference' && kind !== 'analysis' && kind !== 'classification') throw new AppError(422, M.zipNeedsImageType, {}, 'training_type');
      const outDir = path.join(tempDir, IMAGE_DIR);
      const manifest = await unpackZip(auth, file.path, kind, outDir, lang);
      const id = crypto.randomUUID();
      const t = now();
      const row: DatasetTable = {
        id,
        organisation_id: auth.orgId,
        name: fields.name,
        category: fields.category,
        training_type: kind === 'inference' ? fields.training_type : kind,
        data_type: fields.data_type,
        type: fields.type,
        comment: fields.comment,
        file_name: file.fileName,
        file_size: file.size,
        encoding: 'binary',
        delimiter: '',
        row_count: manifest.total,
        column_count: manifest.classes.length,
        schema_json: '[]',
        stats_json: '[]', // no columns: classes and counts live in the manifest
        datetime_column: null,
        preprocessed: 0,
        preprocess_history: '[]',
        parent_dataset_name: null,
        statistics_job_id: null,
        created_by: auth.userId,
        created_at: t,
        updated_at: t,
      };
      const key = datasetKey(auth.orgId, id);
      await storage.commitDir(tempDir, key);
      try {
        await db.insertInto('datasets').values(row).execute();
      } catch (e) {
        storage.remove(key);
        throw e;
      }
      return { ...toView(row), image: { classes: manifest.classes, counts: manifest.counts, skipped: skippedIn(manifest.skipped, lang), total: manifest.total } };
    },

    async summary(auth: AuthContext, id: string, lang: Lang = 'en') {
      const { row, manifest } = await getImageDataset(auth, id);
      return { ...toView(row), image: { kind: manifest.kind, classes: manifest.classes, counts: manifest.counts, skipped: skippedIn(manifest.skipped, lang), total: manifest.total, presplit: manifest.presplit } };
    },

    async gallery(auth: AuthContext, id: string, q: { page: number; page_size: number; split?: string; label?: string }) {
      const { manifest } = await getImageDataset(auth, id);
      const items = manifest.items.filter((it) => (!q.split || it.split === q.split) && (!q.label || it.label === q.label));
      const start = (q.page - 1) * q.page_size;
      return {
        total: items.length,
        items: items.slice(start, start + q.page_size).map((it) => ({ id: it.id, name: it.name, label: it.label, split: it.split, width: it.width, height: it.height, mode: it.mode })),
      };
    },

    /** The absolute path of an image or its thumbnail, found through the manifest only (ids never become paths). */
    async imageFile(auth: AuthContext, datasetId: string, imageId: string, thumb: boolean) {
      const { row, manifest } = await getImageDataset(auth, datasetId);
      const it = manifest.items.find((x) => x.id === imageId);
      if (!it) throw new AppError(404, M.imageNotFound);
      return path.join(datasetDir(row), thumb ? it.thumb : it.file);
    },

    async register(auth: AuthContext, datasetId: string, body: ImageRegister) {
      const { row, manifest } = await getImageDataset(auth, datasetId);
      const type = body.project_type;
      if (manifest.kind !== type) throw new AppError(422, M.wrongDatasetType, { type: type === 'analysis' ? 'OK/NG analysis' : 'image classification' }, 'dataset_id');
      const models = body.models.length ? body.models : type === 'analysis' ? [{ algorithm: 'patchcore' }] : [{ algorithm: 'finetune' }];
      const allowed = IMAGE_ALGORITHMS[type] as readonly string[];
      for (const m of models) if (!allowed.includes(m.algorithm)) throw engineError('unknown_algorithm', { algorithm: m.algorithm }, 422, 'models');
      const cfg: ImageConfig = { image: true, settings: body.settings, classes: manifest.classes, dataset_dir: '' };
      const project = await runs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        type,
        name: body.name,
        dataset: row,
        numberOfData: manifest.total,
        config: cfg,
        models,
      });
      return view(auth, project);
    },

    async train(auth: AuthContext, id: string, modelKeys?: string[], lang: Lang = 'en') {
      const p = await getProject(auth, id);
      if (await runs.activeJob(auth, p)) return view(auth, p);
      const dataset = await datasets.getRow(auth, p.dataset_id);
      const cfg = parse<ImageConfig>(p.config_json, {} as ImageConfig);
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
          settings: { ...cfg.settings, weights_dir: process.env.MITATE_IMAGE_WEIGHTS_DIR || null },
          models: models.map((m) => ({ key: m.model_key, algorithm: m.algorithm, params: JSON.parse(m.params_json) })),
          lang, // the engine says its progress in the language of the person starting the job
        },
      });
      return view(auth, await getProject(auth, id));
    },

    /** The name only, in any state: the one project row's owner (runs) writes it. */
    async rename(auth: AuthContext, id: string, name: string) {
      await runs.rename(auth.orgId, (await getProject(auth, id)).id, name);
      return view(auth, await getProject(auth, id));
    },

    /** The project, its epoch curves, models and files. */
    async remove(auth: AuthContext, id: string) {
      const p = await getProject(auth, id);
      return runs.remove(auth, p, () => imageRepo.deleteEpochs(db, auth.orgId, p.id));
    },

    /** Asks the running training to stop: the engine ends within one batch and keeps the best checkpoint. */
    async stop(auth: AuthContext, id: string) {
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
    },

    async detail(auth: AuthContext, projectId: string, key: string, lang: Lang = 'en') {
      const p = await getProject(auth, projectId);
      const m = await getModel(auth, projectId, key);
      const dir = runDir(m);
      if (m.state !== 'done' || !dir || !fs.existsSync(path.join(dir, 'report.json'))) {
        throw new AppError(409, { en: 'The model "{model}" has not been trained yet.', ja: 'モデル「{model}」はまだ学習されていません。' }, { model: m.model_key });
      }
      const report = JSON.parse(await fs.promises.readFile(path.join(dir, 'report.json'), 'utf8'));
      const v = await view(auth, p);
      const model = v.models.find((x) => x.model_key === key)!;
      const threshold = model.threshold ?? report.threshold ?? null;
      // the rule of the threshold in force: the one saved by POST update/threshold, else the one training used
      const saved = parse<Record<string, unknown>>(m.summary_json, {});
      const rule = saved.threshold_rule !== undefined ? ruleText(saved.threshold_rule, saved.threshold_rule_params, lang) : ruleText(report.threshold_rule, report.threshold_rule_params, lang);
      const held = (report.scores ?? []) as { label: string; score: number; split: string }[];
      const test = held.filter((s) => s.split === 'test');
      return {
        project: v,
        model,
        report: p.project_type === 'analysis' && threshold !== null ? atThreshold(report, test, threshold) : report,
        threshold,
        threshold_rule: threshold === null ? null : rule,
        rates: p.project_type === 'analysis' && threshold !== null ? rates(test.map((s) => s.label), test.map((s) => s.score), threshold) : null,
      };
    },

    /** The HTML report is made at training: when another threshold is in force, a notice in `lang` saying so and
     * what it gives on the test images (the figures of the result page), to open the report with; else null. */
    async reportNotice(auth: AuthContext, projectId: string, key: string, lang: Lang): Promise<string | null> {
      const d = await this.detail(auth, projectId, key, lang);
      if (d.project.project_type !== 'analysis' || d.threshold === null || d.report.threshold === undefined || d.report.threshold === d.threshold) return null;
      const m = d.report.metrics as Record<string, number | null | undefined>;
      const pct = (v: number | null | undefined) => (v == null ? '—' : `${(v * 100).toFixed(1)} %`);
      const fig = (v: number | null | undefined) => (v == null ? '—' : v.toFixed(3));
      const t = (v: number) => String(Number(v.toFixed(4)));
      return localize(lang, M.reportThresholdInForce, {
        trained: t(d.report.threshold),
        current: t(d.threshold),
        rule: d.threshold_rule ?? '',
        miss: pct(m.miss_rate),
        over: pct(m.over_detection_rate),
        accuracy: fig(m.accuracy),
        f1: fig(m.f1),
      });
    },

    /** POST update/threshold: a threshold, or one derived from a target miss rate / an OK percentile on validation scores. */
    async updateThreshold(auth: AuthContext, projectId: string, key: string, b: { threshold?: number; target_miss_rate?: number; ok_percentile?: number }, lang: Lang = 'en') {
      const p = await getProject(auth, projectId);
      if (p.project_type !== 'analysis') throw new AppError(422, M.thresholdNeedsAnalysis, {}, 'threshold');
      const d = await this.detail(auth, projectId, key);
      const val = (d.report.scores as { label: string; score: number; split: string }[]).filter((s) => s.split === 'validation');
      let t: number;
      // the rule is stored as a catalogue code with its parameters (image_threshold_rule_<code>), said in the reader's language
      let rule: string;
      let params: Record<string, number> = {};
      if (b.threshold !== undefined) {
        t = b.threshold;
        rule = 'manual';
      } else if (b.target_miss_rate !== undefined) {
        const ng = val.filter((s) => s.label === 'NG');
        if (!ng.length) throw new AppError(422, M.noNgScores, {}, 'target_miss_rate');
        t = thresholdForMissRate(val.map((s) => s.label), val.map((s) => s.score), b.target_miss_rate);
        rule = 'target_miss_rate';
        params = { miss_rate: b.target_miss_rate };
      } else if (b.ok_percentile !== undefined) {
        const ok = val.filter((s) => s.label === 'OK').map((s) => s.score);
        if (!ok.length) throw new AppError(422, M.thresholdInput, {}, 'ok_percentile');
        t = percentile(ok, b.ok_percentile);
        rule = 'ok_percentile';
        params = { percentile: b.ok_percentile };
      } else throw new AppError(422, M.thresholdInput, {}, 'threshold');
      const m = await getModel(auth, projectId, key);
      const summary = { ...parse<Record<string, unknown>>(m.summary_json, {}), threshold: t, threshold_rule: rule, threshold_rule_params: params };
      // the model's figures (project page, training list) follow the threshold in force, as the result page's do
      const metrics = atThreshold(d.report, (d.report.scores as { label: string; score: number; split: string }[]).filter((s) => s.split === 'test'), t).metrics;
      await runs.setModelFigures(auth.orgId, m.id, { summary_json: JSON.stringify(summary), metrics_json: JSON.stringify(metrics) });
      return this.detail(auth, projectId, key, lang);
    },

    /** Keeps model rows and epoch curves in step with the engine's events. */
    installJobHandlers() {
      const projectOf = runs.projectOfJob;
      const apply = async (orgId: string, projectId: string, e: ImageEvent) => {
        if (!e.key || !e.state) return;
        const patch: Record<string, unknown> = { state: e.state === 'running' ? 'training' : e.state };
        if (e.state === 'done') {
          patch.metrics_json = JSON.stringify(e.metrics ?? {});
          patch.summary_json = JSON.stringify({ threshold: e.threshold ?? null, stopped: !!e.stopped, seconds: e.seconds ?? null });
          patch.trained_at = now();
          patch.error = null;
        } else if (e.state === 'failed') {
          patch.error = e.error ?? 'failed';
          patch.log = e.log ?? e.error ?? '';
          patch.summary_json = JSON.stringify({ error_code: e.code ?? null, error_params: e.params ?? {} });
        }
        await runs.recordModel(orgId, projectId, e.key, patch);
      };
      jobs.onEvent(imageTrainJob, async (job, event) => {
        const e = event as ImageEvent;
        const p = await projectOf(job.orgId, job.id);
        if (!p) return;
        if (e.type === 'model') return apply(job.orgId, p.id, e);
        if (e.type === 'epoch' && e.key) {
          const m = await runs.findModel(job.orgId, p.id, e.key);
          if (!m?.run_key) return;
          const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
          await imageRepo.insertEpoch(db, {
              id: crypto.randomUUID(),
              organisation_id: job.orgId,
              project_id: p.id,
              model_key: e.key,
              run_key: m.run_key,
              epoch: Number(e.epoch),
              train_loss: num(e.train_loss),
              train_accuracy: num(e.train_accuracy),
              val_loss: num(e.val_loss),
              val_accuracy: num(e.val_accuracy),
              learning_rate: num(e.learning_rate),
              created_at: now(),
            });
        }
      });
      jobs.onFinished(imageTrainJob, async (job, orgId) => {
        const p = await projectOf(orgId, job.id);
        if (!p) return;
        for (const m of job.result?.models ?? []) await apply(orgId, p.id, m);
        if (job.state !== 'succeeded') await runs.fail(orgId, p.id, job);
      });
    },
  };
}
export type ImageService = ReturnType<typeof makeImageService>;
