import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { modelsSpec } from '../training/jobs.js';
import { imageOperations } from '../datasets/history.js';
import { imageEpoch } from './schemas.js';
import { imageMetrics } from '../training/responses.js';

const n = z.number().nullable();
const scalars = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]));
const imageCounts = z.record(z.string(), z.record(z.string(), z.number().int())).describe('split → class → images');
const skipped = z.array(z.object({ entry: z.string(), reason: z.string().describe('In English; code and params say it in any language'), code: z.string().optional(), params: z.record(z.string(), z.union([z.string(), z.number()])).optional() }));
/** A refused archive: its catalogue code and parameters. */
const refusal = z.object({ code: z.string(), params: scalars, message: z.string() });

/** tasks/image_ingest.py: a ZIP of images unpacked into a dataset folder (manifest.json). */
export const imageIngestJob = jobKind('image_ingest', {
  spec: jobSpec({ zip: z.string(), kind: z.string(), output_dir: z.string(), lang: jobLang }),
  result: z
    .union([
      z.object({ classes: z.array(z.string()), counts: imageCounts, total: z.number().int(), skipped, presplit: z.boolean() }),
      z.object({ error: refusal }).describe('A refused archive'),
    ])
    .meta({ id: 'ImageIngestJobResult' }),
});

/** The processed dataset an apply run wrote (tasks/image_preprocess.py, mode apply). */
const imagePreprocessApplied = z
  .object({ total: z.number().int(), counts: imageCounts, classes: z.array(z.string()), skipped, kind: z.string(), operations: imageOperations })
  .describe('apply: the processed dataset');
/** Before/after sizes of a few images (mode preview). */
const imagePreprocessPreview = z
  .object({
    items: z.array(z.object({ id: z.string(), name: z.string(), label: z.string().nullable(), before: z.array(z.number().int()), after: z.array(z.number().int()), mode: z.string() })),
  })
  .describe('preview: before/after sizes of a few images');

/** tasks/image_preprocess.py: TIFFs converted for display, a preview, or a whole dataset processed. */
export const imagePreprocessJob = jobKind('image_preprocess', {
  spec: jobSpec({ mode: z.enum(['display', 'preview', 'apply']), lang: jobLang }),
  result: z
    .union([z.object({ converted: z.number().int() }).describe('display: TIFFs converted for the browser'), imagePreprocessPreview, imagePreprocessApplied])
    .meta({ id: 'ImagePreprocessJobResult' }),
});

/** tasks/image_train.py: the models of an image project. */
export const imageTrainJob = jobKind('image_train', {
  spec: jobSpec({ project_type: z.string(), dataset_dir: z.string(), models: modelsSpec, lang: jobLang }),
  result: z
    .object({
      models: z.array(
        z.object({
          key: z.string(),
          state: z.enum(['done', 'failed']),
          metrics: imageMetrics.optional(),
          threshold: n.optional(),
          stopped: z.boolean().optional(),
          seconds: z.number().optional(),
          epochs: z.array(imageEpoch.extend({ partial: z.boolean().describe('The epoch was stopped part-way') })).optional(),
          error: z.string().optional(),
          log: z.string().optional(),
          code: z.string().optional(),
          params: z.record(z.string(), z.string()).optional(),
        }),
      ),
    })
    .meta({ id: 'ImageTrainJobResult' }),
});

/** tasks/image_predict.py: a trained image model over a dataset folder or uploaded files. */
export const imagePredictJob = jobKind('image_predict', {
  spec: jobSpec({ model: z.string(), threshold: n, dataset_dir: z.string().optional(), files: z.array(z.object({ path: z.string(), name: z.string() })).optional(), lang: jobLang }),
  result: z
    .object({
      algorithm: z.string(),
      kind: z.string(),
      threshold: n,
      classes: z.array(z.string()),
      rows: z.array(
        z.object({
          name: z.string(),
          label: z.string().nullable(),
          predicted: z.string(),
          score: z.number(),
          heatmap: z.string(),
          probabilities: z.record(z.string(), z.number()).optional(),
        }),
      ),
      failed: skipped.optional().describe('Images that could not be read, under the user’s file names'),
      skipped: skipped.optional().describe('ZIP entries left out at unpacking'),
    })
    .meta({ id: 'ImagePredictJobResult' }),
});
