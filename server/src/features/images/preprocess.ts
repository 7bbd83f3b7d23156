import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { engineErrorText } from '../../i18n/engine-errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import { datasetKey, type DatasetService, toView } from '../datasets/service.js';
import { M } from './messages.js';
import type { ImageOperations } from '../datasets/history.js';
import { preprocessHistory } from '../datasets/stored.js';
import { IMAGE_DIR, type ImageService } from './service.js';
import { skippedIn } from './skipped.js';
import { imagePreprocessJob } from './jobs.js';
import type { JobView } from '../../jobs/service.js';
import { storedJson } from '../../db/stored.js';
import { Registered } from './stored.js';

/**
 * Image pre-processing (SPEC §7 'Image'): POST image/preprocess/{dataset_id} runs the engine task
 * `image_preprocess` over every image into the job's folder (its id is the temp_id); POST
 * image/new_dataset/register/{temp_id} makes that folder a new image dataset. Previews run the same task on a few
 * images and answer at once. The job row (organisation, kind, subject = source dataset) is the run's record.
 */
const PREVIEW_TIMEOUT_MS = 120_000;
const DISPLAY_TIMEOUT_MS = 120_000;
const now = () => new Date().toISOString();

/** An engine failure (JSON {code, params} or plain text) as a message in both languages. */
export function engineFailure(error: string | null | undefined, fallback: string): LocalText {
  return { en: engineErrorText(error, 'en') ?? fallback, ja: engineErrorText(error, 'ja') ?? fallback };
}

/** The processed dataset of a finished apply run (its result), or null while it runs or when it failed. */
function appliedOf(job: JobView) {
  const r = imagePreprocessJob.resultOf(job);
  if (r && !('total' in r)) throw new Error(`image_preprocess job ${job.id} is not an apply run`);
  return r;
}

export function makeImagePreprocess(ctx: AppContext, { images: svc, datasets }: { images: ImageService; datasets: DatasetService }) {
  const { jobs } = ctx;
  const jobDir = (id: string) => path.join(ctx.config.dataDir, 'jobs', id); // where jobs.create puts a job's output
  const registeredFile = (id: string) => path.join(jobDir(id), 'registered.json');

  async function getRun(auth: AuthContext, tempId: string) {
    const job = await jobs.get(auth.orgId, tempId);
    if (!job || job.kind !== imagePreprocessJob.kind || job.subject_type !== 'image_preprocess_run' || !job.subject_id) throw new AppError(404, M.preprocessRunNotFound);
    return job;
  }

  async function outputItem(auth: AuthContext, tempId: string, imageId: string) {
    await getRun(auth, tempId);
    const file = path.join(jobDir(tempId), 'manifest.json');
    if (!fs.existsSync(file)) throw new AppError(404, M.imageNotFound);
    const m = await svc.readManifest(file);
    const it = m.items.find((x) => x.id === imageId);
    if (!it) throw new AppError(404, M.imageNotFound);
    return { thumb: path.join(jobDir(tempId), it.thumb), file: path.join(jobDir(tempId), it.file) };
  }

  return {
    /** Before/after of up to eight images of the dataset (default: four, from every class), as PNG data URLs (nothing is kept). */
    async preview(auth: AuthContext, datasetId: string, operations: ImageOperations, ids: string[]) {
      const { row, manifest } = await svc.getImageDataset(auth, datasetId);
      const known = new Set(manifest.items.map((i) => i.id));
      const chosen = (ids.length ? ids.filter((i) => known.has(i)) : spread(manifest.items, 4)).slice(0, 8);
      if (!chosen.length) throw new AppError(422, M.imageNotFound, {}, 'ids');
      const done = await jobs.runAndWait(
        {
          orgId: auth.orgId,
          userId: auth.userId,
          kind: imagePreprocessJob,
          subjectType: 'dataset',
          subjectId: row.id,
          spec: { mode: 'preview', dataset_dir: svc.datasetDir(row), operations, ids: chosen },
        },
        PREVIEW_TIMEOUT_MS,
        () => new AppError(504, M.previewTimeout),
      );
      const dir = jobDir(done.id);
      try {
        if (done.state !== 'succeeded') throw new AppError(422, engineFailure(done.error, done.state), {}, 'operations');
        const r = imagePreprocessJob.resultOf(done);
        if (!r || !('items' in r)) throw new Error(`image_preprocess job ${done.id} answered no preview`);
        const items = r.items;
        const dataUrl = (f: string) => `data:image/png;base64,${fs.readFileSync(path.join(dir, f)).toString('base64')}`;
        return {
          items: items.map((it) => ({
            id: it.id,
            name: it.name,
            label: it.label,
            before_size: it.before,
            after_size: it.after,
            mode: it.mode,
            before: dataUrl(`${it.id}-before.png`),
            after: dataUrl(`${it.id}-after.png`),
          })),
        };
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },

    /** Starts the run over every image; the answer's temp_id is polled with GET image/preprocess/result/{temp_id}. */
    async start(auth: AuthContext, datasetId: string, operations: ImageOperations, lang: Lang = 'en') {
      const { row } = await svc.getImageDataset(auth, datasetId);
      const job = await jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: imagePreprocessJob,
        subjectType: 'image_preprocess_run',
        subjectId: row.id,
        spec: { mode: 'apply', dataset_dir: svc.datasetDir(row), operations, lang }, // lang: the engine says its progress in it
      });
      return { temp_id: job.id, job_id: job.id, state: job.state, source_dataset_id: row.id };
    },

    async result(auth: AuthContext, tempId: string, lang: Lang = 'en') {
      const job = await getRun(auth, tempId);
      const r = appliedOf(job);
      let datasetId: string | null = null;
      if (fs.existsSync(registeredFile(tempId))) datasetId = storedJson('registered image dataset', Registered, fs.readFileSync(registeredFile(tempId), 'utf8')).dataset_id;
      let sample: SampleItem[] = [];
      const manifestFile = path.join(jobDir(tempId), 'manifest.json');
      if (r && !datasetId && fs.existsSync(manifestFile)) sample = sampleOf((await svc.readManifest(manifestFile)).items);
      return {
        temp_id: job.id,
        source_dataset_id: job.subject_id!,
        state: job.state,
        progress: job.progress,
        error: job.error,
        dataset_id: datasetId,
        result: r ? { total: r.total, counts: r.counts, classes: r.classes, skipped: skippedIn(r.skipped, lang), operations: r.operations } : null,
        sample,
      };
    },

    thumbFile: async (auth: AuthContext, tempId: string, imageId: string) => (await outputItem(auth, tempId, imageId)).thumb,

    /** The run's folder becomes the images of a new dataset (preprocessed, with its parent's name and the operations). */
    async register(auth: AuthContext, tempId: string, b: { name: string; comment: string }, lang: Lang = 'en') {
      const job = await getRun(auth, tempId);
      if (fs.existsSync(registeredFile(tempId))) throw new AppError(409, M.preprocessRegistered);
      if (job.state !== 'succeeded') throw new AppError(409, M.preprocessNotReady, { state: job.state });
      const out = jobDir(tempId);
      if (!fs.existsSync(path.join(out, 'manifest.json'))) throw new AppError(410, M.preprocessGone);
      const parent = await svc.getImageDataset(auth, job.subject_id!).catch(() => null);
      if (!parent) throw new AppError(404, 'dataset_not_found');
      const r = appliedOf(job)!;
      const fileSize = fs.existsSync(path.join(out, 'dataset.zip')) ? fs.statSync(path.join(out, 'dataset.zip')).size : dirSize(out);
      const row = processedRow(parent.row, r, b, fileSize, auth.userId);
      await commitRun(ctx.storage, datasets, out, datasetKey(auth.orgId, row.id), row);
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(registeredFile(tempId), JSON.stringify({ dataset_id: row.id }));
      return { ...toView(row), image: { classes: r.classes, counts: r.counts, skipped: skippedIn(r.skipped, lang), total: r.total } };
    },

    /**
     * A browser cannot show TIFF: the viewer gets a PNG made once by the engine beside the dataset's images
     * (display/{image_id}.png); the original stays as uploaded.
     */
    async displayFile(auth: AuthContext, datasetId: string, imageId: string) {
      const { row, manifest } = await svc.getImageDataset(auth, datasetId);
      const it = manifest.items.find((x) => x.id === imageId);
      if (!it) throw new AppError(404, M.imageNotFound);
      const source = path.join(svc.datasetDir(row), it.file);
      if (!/\.tiff?$/i.test(it.file)) return source;
      const dest = path.join(svc.datasetDir(row), 'display', `${it.id}.png`);
      if (fs.existsSync(dest)) return dest;
      const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: imagePreprocessJob, subjectType: 'dataset', subjectId: row.id, spec: { mode: 'display', files: [{ source, dest }] } });
      const done = await jobs.waitFor(job.id, DISPLAY_TIMEOUT_MS).catch(() => null);
      fs.rmSync(jobDir(job.id), { recursive: true, force: true });
      if (!done || done.state !== 'succeeded' || !fs.existsSync(dest)) throw new AppError(422, M.displayFailed, { reason: engineErrorText(done?.error, 'en') ?? 'timeout' });
      return dest;
    },
  };
}
export type ImagePreprocess = ReturnType<typeof makeImagePreprocess>;

type SampleItem = { id: string; label: string | null; split: string; width: number; height: number };

/** A few processed images of each class, so the result shows every class. */
function sampleOf(items: SampleItem[]): SampleItem[] {
  const by = new Map<string, SampleItem[]>();
  for (const it of items) {
    const list = by.get(it.label ?? '') ?? [];
    if (list.length < 6) list.push({ id: it.id, label: it.label, split: it.split, width: it.width, height: it.height });
    by.set(it.label ?? '', list);
  }
  return [...by.values()].flat().slice(0, 24);
}

/** The new dataset's row: its parent's, with the run's counts, the operations added to its history, and a new name. */
function processedRow(parent: DatasetTable, r: NonNullable<ReturnType<typeof appliedOf>>, b: { name: string; comment: string }, fileSize: number, userId: string): DatasetTable {
  const t = now();
  const history = [...preprocessHistory(parent), { process_type: 'image', action_name: 'image_preprocess', changes: r.operations, modified_at: t }];
  return {
    ...parent,
    id: crypto.randomUUID(),
    name: b.name,
    comment: b.comment,
    file_name: `${b.name.replace(/[\\/:*?"<>|]/g, '_')}.zip`,
    file_size: fileSize,
    row_count: r.total,
    column_count: r.classes.length,
    schema_json: '[]',
    stats_json: '[]',
    datetime_column: null,
    preprocessed: 1,
    preprocess_history: JSON.stringify(history),
    parent_dataset_name: parent.name,
    statistics_job_id: null,
    created_by: userId,
    created_at: t,
    updated_at: t,
  };
}

/** Moves a run's folder `out` into the dataset `key` and inserts its row; on failure the run's output is put back, so
 * registering can be tried again. */
async function commitRun(storage: AppContext['storage'], datasets: DatasetService, out: string, key: string, row: DatasetTable) {
  const tempDir = storage.makeTempDir();
  fs.renameSync(out, path.join(tempDir, IMAGE_DIR));
  // the processed images as a ZIP in the upload layout: the dataset's "original file" for downloads
  const zip = path.join(tempDir, IMAGE_DIR, 'dataset.zip');
  if (fs.existsSync(zip)) fs.renameSync(zip, path.join(tempDir, 'original.zip'));
  try {
    storage.commitDir(tempDir, key);
    await datasets.insertRow(row);
  } catch (e) {
    const images = fs.existsSync(storage.pathOf(`${key}/${IMAGE_DIR}`)) ? storage.pathOf(`${key}/${IMAGE_DIR}`) : path.join(tempDir, IMAGE_DIR);
    if (fs.existsSync(images)) fs.renameSync(images, out);
    const orig = fs.existsSync(storage.pathOf(`${key}/original.zip`)) ? storage.pathOf(`${key}/original.zip`) : path.join(tempDir, 'original.zip');
    if (fs.existsSync(orig) && fs.existsSync(out)) fs.renameSync(orig, path.join(out, 'dataset.zip'));
    storage.remove(key);
    fs.rmSync(tempDir, { recursive: true, force: true });
    throw e;
  }
}

/** `n` images taken in turn from each class, so a preview shows every class. */
function spread(items: { id: string; label: string | null }[], n: number): string[] {
  const by = new Map<string, string[]>();
  for (const it of items) by.set(it.label ?? '', [...(by.get(it.label ?? '') ?? []), it.id]);
  const lists = [...by.values()];
  const out: string[] = [];
  for (let i = 0; out.length < n && lists.some((l) => l.length > i); i++) for (const l of lists) if (l[i] && out.length < n) out.push(l[i]);
  return out;
}

function dirSize(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return n;
}
