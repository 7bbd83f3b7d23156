import crypto from 'node:crypto';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { datasetKey, toView } from '../datasets/service.js';
import type { RegisterFields } from '../datasets/schemas.js';
import { M } from './messages.js';
import { skippedIn } from './skipped.js';
import { IMAGE_DIR, type ImageDeps, now } from './base.js';

// Image datasets: a ZIP registered, its summary, gallery pages and image files.

/** POST /dataset/register with a ZIP: images, thumbnails and manifest in the dataset's folder. */
export async function registerZip(d: ImageDeps, auth: AuthContext, fields: RegisterFields, file: { path: string; fileName: string; size: number }, tempDir: string, lang: Lang = 'en') {
  const { datasets, storage, unpackZip } = d;
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
    await datasets.insertRow(row);
  } catch (e) {
    storage.remove(key);
    throw e;
  }
  return { ...toView(row), image: { classes: manifest.classes, counts: manifest.counts, skipped: skippedIn(manifest.skipped, lang), total: manifest.total } };
}

export async function summary(d: ImageDeps, auth: AuthContext, id: string, lang: Lang = 'en') {
  const { row, manifest } = await d.getImageDataset(auth, id);
  return { ...toView(row), image: { kind: manifest.kind, classes: manifest.classes, counts: manifest.counts, skipped: skippedIn(manifest.skipped, lang), total: manifest.total, presplit: manifest.presplit } };
}

export async function gallery(d: ImageDeps, auth: AuthContext, id: string, q: { page: number; page_size: number; split?: string; label?: string }) {
  const { manifest } = await d.getImageDataset(auth, id);
  const items = manifest.items.filter((it) => (!q.split || it.split === q.split) && (!q.label || it.label === q.label));
  const start = (q.page - 1) * q.page_size;
  return {
    total: items.length,
    items: items.slice(start, start + q.page_size).map((it) => ({ id: it.id, name: it.name, label: it.label, split: it.split, width: it.width, height: it.height, mode: it.mode })),
  };
}

/** The absolute path of an image or its thumbnail, found through the manifest only (ids never become paths). */
export async function imageFile(d: ImageDeps, auth: AuthContext, datasetId: string, imageId: string, thumb: boolean) {
  const { row, manifest } = await d.getImageDataset(auth, datasetId);
  const it = manifest.items.find((x) => x.id === imageId);
  if (!it) throw new AppError(404, M.imageNotFound);
  return path.join(d.datasetDir(row), thumb ? it.thumb : it.file);
}
