import { z } from 'zod';
import { page, storedEnum } from '../../http/responses.js';
import { Cell } from '../datasets/responses.js';
import { IMAGE_TYPES } from '../images/schemas.js';
import { TS_TYPES } from '../timeseries/schemas.js';

/**
 * Answers of the prediction calls (SPEC §7 'Inference' and each type's prediction calls). Every kind of project shares
 * the prediction views; the summary of a finished prediction is the one its engine task writes, so a prediction is
 * declared per kind (discriminated by project_type): tables (engine task predict: counts of classes or clusters,
 * statistics of a predicted value, none for coordinates), time series (the same task: alarms) and images (task
 * image_predict: every image with its class and score).
 */

const TABLE_BASE = {
  rows: z.number().describe('Rows of the result table'),
  columns: z.array(z.string()),
  outputs: z.array(z.string()).describe('The prediction columns (the rest are the input rows as uploaded)'),
  condition_applied: z.string().nullable().describe("The training dataset's preprocessing condition applied to raw rows, if any"),
};

export const ValueSummary = z
  .object({
    ...TABLE_BASE,
    stats: z.object({ mean: z.number().nullable(), min: z.number().nullable(), max: z.number().nullable(), missing: z.number() }).describe('Of the predicted value, in the target’s original units'),
  })
  .meta({ id: 'PredictionValueSummary' });
export const CountSummary = z
  .object({ ...TABLE_BASE, counts: z.record(z.string(), z.number()).describe('Rows per predicted class or cluster') })
  .meta({ id: 'PredictionCountSummary' });
export const TableSummary = z.object(TABLE_BASE).meta({ id: 'PredictionTableSummary' });
export const AlarmSummary = z
  .object({
    ...TABLE_BASE,
    anomaly: z.object({
      threshold: z.number().nullable(),
      alarm_rows: z.number(),
      alarms: z.number().describe('Runs of consecutive alarm rows'),
      first_alarm_row: z.number().nullable(),
      scored_rows: z.number(),
    }),
  })
  .meta({ id: 'PredictionAlarmSummary' });
export const ImageSummary = z
  .object({
    algorithm: z.string(),
    kind: z.enum(IMAGE_TYPES),
    threshold: z.number().nullable().describe('OK/NG: a score at or above it is NG'),
    classes: z.array(z.string()),
    rows: z.array(
      z.object({
        name: z.string(),
        label: z.string().nullable().describe('The known class, when the images came labelled'),
        predicted: z.string(),
        score: z.number(),
        heatmap: z.string(),
        probabilities: z.record(z.string(), z.number()).optional().describe('Classification: the probability of each class'),
      }),
    ),
    failed: z.array(z.object({ entry: z.string().describe("The user's file name"), reason: z.string() })).describe('Images that could not be read (the others were predicted), with why, in the reader’s language'),
    skipped: z.array(z.object({ entry: z.string(), reason: z.string() })).describe('ZIP entries left out at unpacking (zip-slip, symbolic link, nested ZIP, not an image…), with why, in the reader’s language'),
  })
  .meta({ id: 'PredictionImageSummary' });

const common = {
  id: z.string(),
  name: z.string(),
  project_id: z.string(),
  project_name: z.string(),
  report_type: z.string(),
  model_key: z.string(),
  dataset_id: z.string(),
  test_dataset: z.string(),
  state: storedEnum(['queued', 'running', 'done', 'failed']),
  progress: z.number(),
  message: z.string(),
  error: z.string().nullable(),
  log: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
};
const kind = <T extends readonly [string, ...string[]], S extends z.ZodType>(types: T, summary: S) =>
  z.object({ ...common, project_type: z.enum(types), result: summary.nullable().describe('The summary its engine task wrote, when done') });

export const Prediction = z
  .discriminatedUnion('project_type', [
    kind(['regression', 'soft_sensor'], ValueSummary),
    kind(['discriminant_analysis', 'clustering'], CountSummary),
    kind(['dimensional_compression'], TableSummary),
    kind(TS_TYPES, AlarmSummary),
    kind(IMAGE_TYPES, ImageSummary),
  ])
  .meta({ id: 'Prediction' });
export type PredictionView = z.infer<typeof Prediction>;

export const PredictionPage = page(Prediction);
export const PredictionProgress = z.object({ id: z.string(), state: common.state, progress: z.number(), message: z.string(), error: z.string().nullable() });
export const PredictionRows = z
  .object({ columns: z.array(z.string()), outputs: z.array(z.string()), rows: z.array(z.array(Cell)), total: z.number(), page: z.number(), page_size: z.number() })
  .meta({ id: 'PredictionRows' });
