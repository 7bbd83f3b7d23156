import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { storedAsWritten, storedJson } from '../../db/stored.js';
import { ImageModelMetrics } from '../training/stored.js';
import { augmentation, imageReport, imageSettings } from './schemas.js';

/**
 * The JSON the image area stores or the engine writes for it, read through one declaration each: a dataset's
 * manifest.json (engine images/zipsafe.py, images/preprocess.py), an image project's settings (config_json, projects.ts)
 * and registered.json of a pre-processing run (preprocess.ts). Loose objects, optional where a writer leaves a key out.
 */

/** A ZIP entry or image the engine left out: its code and parameters; entries written before codes have only `reason`. */
const Skipped = z.looseObject({ entry: z.string(), reason: z.string(), code: z.string().optional(), params: z.record(z.string(), z.unknown()).optional() });

/** One image of a dataset folder; an inference ZIP's images may have no label. */
export const ImageItem = z.looseObject({
  id: z.string(),
  file: z.string(),
  thumb: z.string(),
  name: z.string(),
  label: z.string().nullable(),
  split: z.string(),
  width: z.number(),
  height: z.number(),
  mode: z.string(),
});
export type ImageItem = z.output<typeof ImageItem>;

/** A dataset folder's manifest.json: kind, classes, images, left-out entries and counts per split and class. */
export const ImageManifest = z.looseObject({
  kind: z.string(),
  classes: z.array(z.string()),
  items: z.array(ImageItem),
  skipped: z.array(Skipped),
  counts: z.record(z.string(), z.record(z.string(), z.number())),
  total: z.number(),
  presplit: z.boolean(),
});
export type Manifest = z.output<typeof ImageManifest>;


/**
 * The settings an image project was registered with (imageSettings with its defaults filled then); settings added
 * since (patchcore_backbone) are absent from older projects, so every key is optional and no default is filled here.
 */
const s = imageSettings.shape;
const a = augmentation.shape;
const StoredImageSettings = z.looseObject({
  image_size: z.number().optional(),
  epochs: z.number().optional(),
  batch_size: z.number().optional(),
  learning_rate: z.number().optional(),
  schedule: s.schedule.unwrap().optional(),
  early_stopping: z.number().optional(),
  balance: z.boolean().optional(),
  coreset_ratio: z.number().optional(),
  patchcore_backbone: s.patchcore_backbone.unwrap().optional(),
  ok_percentile: z.number().optional(),
  train_layers: s.train_layers.unwrap().optional(),
  augmentation: z
    .looseObject({ hflip: a.hflip.unwrap().optional(), vflip: a.vflip.unwrap().optional(), rotate: z.number().optional(), brightness: z.number().optional(), contrast: z.number().optional(), crop: z.number().optional() })
    .optional(),
});

/** An image project's config_json. */
export const ImageConfig = z.looseObject({ image: z.literal(true), settings: StoredImageSettings, classes: z.array(z.string()), dataset_dir: z.string() });
export type ImageConfig = z.output<typeof ImageConfig>;
export const imageConfig = (p: Pick<TrainingProjectTable, 'config_json'>) => storedJson('image project settings', ImageConfig, p.config_json);

/** An image model's figures (metrics_json: the engine's, or those at the threshold in force), declared with training's. */
export const imageModelMetrics = (m: Pick<TrainingModelTable, 'metrics_json'>) => (m.metrics_json ? storedJson('image model metrics', ImageModelMetrics, m.metrics_json) : null);

/** registered.json of a pre-processing run: the dataset it was registered as. */
export const Registered = z.looseObject({ dataset_id: z.string() });

/** A trained image model's report.json (engine tasks/image_train.py), kept as written: the model page answers it whole. */
export const readImageReport = async (runDir: string) => storedAsWritten('image model report', imageReport, await fs.promises.readFile(path.join(runDir, 'report.json'), 'utf8'));
