import { z } from 'zod';
import { decimalsOk } from '../training/schemas.js';
import { said } from '../../http/errors.js';

export const IMAGE_TYPES = ['analysis', 'classification'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
export const IMAGE_ALGORITHMS = { analysis: ['patchcore', 'finetune', 'compact_cnn'], classification: ['finetune', 'compact_cnn'] } as const;

const dec = (lo: number, hi: number) => z.number().min(lo).max(hi).refine(decimalsOk, { message: said('decimals_max') });

export const augmentation = z.object({
  hflip: z.boolean().default(false),
  vflip: z.boolean().default(false),
  rotate: z.number().min(0).max(180).default(0),
  brightness: dec(0, 0.9).default(0),
  contrast: dec(0, 0.9).default(0),
  crop: dec(0, 0.5).default(0),
});

/** SPEC §3 augmentation and image settings. */
export const imageSettings = z.object({
  image_size: z.number().int().min(32).max(512).default(128),
  epochs: z.number().int().min(1).max(500).default(10),
  batch_size: z.number().int().min(2).max(256).default(16),
  learning_rate: dec(0.0000001, 1).default(0.001),
  schedule: z.enum(['cosine', 'step', 'constant']).default('cosine'),
  early_stopping: z.number().int().min(0).max(100).default(5),
  balance: z.boolean().default(true),
  coreset_ratio: dec(0.001, 1).default(0.1),
  ok_percentile: dec(50, 100).default(99),
  train_layers: z.enum(['head', 'top', 'all']).default('top'),
  augmentation: augmentation.default({ hflip: false, vflip: false, rotate: 0, brightness: 0, contrast: 0, crop: 0 }),
});
export type ImageSettings = z.infer<typeof imageSettings>;

export const imageRegisterBody = z.object({
  project_type: z.enum(IMAGE_TYPES),
  name: z.string().trim().min(1).max(200),
  models: z.array(z.object({ algorithm: z.string().max(64), params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional() })).max(10).default([]),
  settings: imageSettings.default(imageSettings.parse({})),
});
export type ImageRegister = z.infer<typeof imageRegisterBody>;

export const thresholdBody = z
  .object({ threshold: z.number().finite().optional(), target_miss_rate: dec(0, 1).optional(), ok_percentile: dec(0, 100).optional() })
  .refine((b) => [b.threshold, b.target_miss_rate, b.ok_percentile].filter((v) => v !== undefined).length === 1, { message: said('one_threshold_rule') });

export const galleryQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(24),
  split: z.enum(['train', 'validation', 'test']).optional(),
  label: z.string().max(200).optional(),
});

/** Image pre-processing (engine images/preprocess.py), applied in this order: crop, rotate, flip, resize, grayscale,
 * brightness, contrast, normalise. Crops are the share of each side removed. */
const cropSide = dec(0, 0.45).default(0);
export const imageOperations = z.object({
  crop: z.object({ left: cropSide, top: cropSide, right: cropSide, bottom: cropSide }).default({ left: 0, top: 0, right: 0, bottom: 0 }),
  rotate: z.number().int().min(-359).max(359).default(0).describe('Degrees clockwise; quarter turns are lossless'),
  hflip: z.boolean().default(false),
  vflip: z.boolean().default(false),
  resize: z.object({ width: z.number().int().min(8).max(4096), height: z.number().int().min(8).max(4096), mode: z.enum(['stretch', 'fit', 'pad']).default('stretch') }).nullable().default(null),
  grayscale: z.boolean().default(false),
  brightness: dec(0.1, 3).default(1),
  contrast: dec(0.1, 3).default(1),
  normalize: z.enum(['none', 'autocontrast', 'equalize']).default('none'),
}).meta({ id: 'ImageOperations' });
export type ImageOperations = z.infer<typeof imageOperations>;
export const imagePreprocessBody = z.object({
  operations: imageOperations.default(imageOperations.parse({})),
  preview: z.boolean().default(false).describe('true: before/after of a few images at once, nothing kept'),
  ids: z.array(z.string().regex(/^\d{1,9}$/)).max(8).default([]).describe('Images to preview (default: the first four)'),
});
export const imageDatasetRegisterBody = z.object({ name: z.string().trim().min(1).max(200), comment: z.string().max(2000).default('') });

export const anyObject = z.record(z.string(), z.unknown());
export const projectIdParams = z.object({ project_id: z.string().max(64) });
export const modelParams = z.object({ project_id: z.string().max(64), model_key: z.string().max(100) });
