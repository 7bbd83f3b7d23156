import { z } from 'zod';
import { said } from '../../http/errors.js';
import { decimalsOk, STEP_METHODS } from '@mitate/rules';

// What a dataset's preprocess history records (the engine writes it; the dataset answers show it): the tabular
// steps' vocabulary (kinds, methods, parameters, fitted figures) and an image run's operations. The areas that make
// datasets (preprocessing, images) validate their requests with these, so the history and the requests agree.

/** Every step kind and its methods (one list with the web app's step editor: @mitate/rules). */
export const METHODS = STEP_METHODS;
export type ProcessType = keyof typeof METHODS;
export const PROCESS_TYPES = Object.keys(METHODS) as ProcessType[];

const numberish = z.union([z.number(), z.string().max(100)]);
const scalar = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);

/** Each parameter some step reads (engine preprocessing/steps/), with its type. Numbers may arrive as text (form fields); the engine reads both. */
export const PARAM = {
  action: z.string().max(20).describe('outliers: remove, set_missing or clip'),
  k: numberish.describe('outliers (iqr): the fence in IQRs'),
  threshold: numberish.describe('outliers (zscore, hampel): the limit; missing (drop_columns): the share of missing values'),
  window: numberish.describe('outliers (hampel), window: rows in the window'),
  value: scalar.describe('missing (constant): the fill value; filter: the value to compare with'),
  value2: scalar.describe('filter (between): the upper value'),
  name: z.string().max(512).describe("computed: the new column; window: the new columns' name"),
  expression: z.string().max(10_000).describe('computed: the expression'),
  lag: numberish.describe('window (lag): rows back'),
  span: z.string().max(100).describe('window: a time span (e.g. 10min) instead of a row count'),
  min_periods: z.union([numberish, z.null()]).describe('window: values needed for a result'),
  mapping: z.record(z.string(), z.string().max(512)).describe('columns (rename): old name → new name'),
  dtype: z.string().max(40).describe('columns (retype): float, integer, string, datetime or boolean'),
  column: z.string().max(512).describe('filter: the column compared'),
  op: z.string().max(40).describe('filter: the operator'),
  ascending: z.union([z.boolean(), z.string().max(10)]).describe('sort: ascending (true) or descending'),
};
export type ParamName = keyof typeof PARAM;

/**
 * Every parameter any step reads, each optional: what a dataset's history shows of a step (StepChanges). A key no
 * step reads is dropped here, never echoed back.
 */
export const StepParams = z
  .object({
    action: PARAM.action.optional(),
    k: PARAM.k.optional(),
    threshold: PARAM.threshold.optional(),
    window: PARAM.window.optional(),
    value: PARAM.value.optional(),
    value2: PARAM.value2.optional(),
    name: PARAM.name.optional(),
    expression: PARAM.expression.optional(),
    lag: PARAM.lag.optional(),
    span: PARAM.span.optional(),
    min_periods: PARAM.min_periods.optional(),
    mapping: PARAM.mapping.optional(),
    dtype: PARAM.dtype.optional(),
    column: PARAM.column.optional(),
    op: PARAM.op.optional(),
    ascending: PARAM.ascending.optional(),
  })
  .meta({ id: 'PreprocessStepParams' });

/** What a step learnt from the training data (preprocessing/steps.py fit), reused unchanged on new data; {} when it learns nothing. */
export const StepFitted = z
  .object({
    bounds: z.record(z.string(), z.object({ lower: z.number().nullable(), upper: z.number().nullable() })).optional().describe('outliers (iqr, zscore): column → bounds'),
    columns: z
      .union([z.array(z.string()), z.record(z.string(), z.object({ center: z.number(), scale: z.number() }))])
      .optional()
      .describe('outliers (hampel): the columns; scaling: column → centre and scale'),
    drop: z.array(z.string()).optional().describe('missing (drop_columns): the columns dropped'),
    values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional().describe('missing (mean, median, mode): column → fill value'),
  })
  .meta({ id: 'PreprocessStepFitted' });

/** What one step did, in a dataset's preprocess history (engine Condition.history): its columns, parameters and
 * fitted figures, with the rows before and after and the columns it added or dropped. */
export const StepChanges = z.object({
  ...StepParams.shape,
  columns: z.array(z.string()).optional(),
  fitted: StepFitted.optional(),
  rows_before: z.number().int().optional(),
  rows_after: z.number().int().optional(),
  columns_added: z.array(z.string()).optional(),
  columns_dropped: z.array(z.string()).optional(),
  skipped: z.boolean().optional().describe('Applied to data without the columns it concerns: left out'),
}).meta({ id: 'PreprocessStepChanges' });

const dec = (lo: number, hi: number) => z.number().min(lo).max(hi).refine(decimalsOk, { message: said('decimals_max') });

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

/** One preprocessing step that made a dataset (written by the engine; an image dataset's runs hold their operations). */
export const PreprocessStep = z
  .discriminatedUnion('process_type', [
    z.object({ process_type: z.enum(PROCESS_TYPES as [ProcessType, ...ProcessType[]]), action_name: z.string().describe("The step's method"), changes: StepChanges, modified_at: z.string() }),
    z.object({ process_type: z.literal('image'), action_name: z.literal('image_preprocess'), changes: imageOperations, modified_at: z.string() }),
  ])
  .meta({ id: 'PreprocessStep' });
