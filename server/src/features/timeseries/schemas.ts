import { z } from 'zod';
import { decimalsOk, modelInput } from '../training/schemas.js';
import { said } from '../../http/errors.js';

export const TS_TYPES = ['time_series_anomaly_detection_supervised', 'time_series_anomaly_detection_unsupervised'] as const;
export type TsType = (typeof TS_TYPES)[number];

const windowItem = z.union([z.number().int().min(2).max(100000), z.string().trim().min(1).max(16)]);

export const normalPeriod = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('rows'), rows: z.number().int().min(1) }),
  z.object({ mode: z.literal('range'), start: z.union([z.string().max(64), z.number()]), end: z.union([z.string().max(64), z.number()]) }),
]);

export const registerBody = z.object({
  name: z.string().trim().min(1).max(200),
  project_type: z.enum(TS_TYPES),
  time_column: z.string().max(500).nullish(),
  feature_variables: z.array(z.string().max(500)).max(2000).default([]),
  target_variables: z.array(z.string().max(500)).max(1).default([]),
  lags: z.array(z.number().int().min(1).max(10000)).max(20).default([]),
  windows: z.array(windowItem).max(20).default([]),
  resample: z.string().trim().max(16).nullish().describe('Regular periods to resample an irregular series to (e.g. 1s, 5min): signals averaged, a period anomalous when any of its rows is'),
  normal: normalPeriod.nullish(),
  split_ratio: z.number().min(0.5).max(0.95).refine(decimalsOk, { message: said('decimals_max') }).default(0.7),
  models: z.array(modelInput).max(20).default([]),
});
export type RegisterBody = z.infer<typeof registerBody>;

export const thresholdBody = z.object({ threshold: z.number().refine(Number.isFinite) });
export const thresholdQuery = z.object({ threshold: z.coerce.number().optional(), target_far: z.coerce.number().min(0).max(1).optional() });
export const rangeQuery = z.object({
  start: z.coerce.number().int().min(0).optional(),
  end: z.coerce.number().int().min(0).optional(),
  points: z.coerce.number().int().min(10).max(5000).default(1000),
  columns: z.string().max(20000).optional(),
});
export const pid = z.object({ id: z.string().max(64) });
export const pm = z.object({ project_id: z.string().max(64), model_key: z.string().max(100) });

/** `{detail: {response: ...}}` with the response described; extra keys pass through unchanged. */
export const wrap = <T extends z.ZodType>(response: T) => ({ 200: z.object({ detail: z.object({ response }) }) });
const loose = z.looseObject;

export const projectView = loose({
  project_id: z.string(),
  name: z.string(),
  project_type: z.string(),
  training_state: z.string(),
  dataset_id: z.string(),
  parent_dataset_name: z.string(),
  number_of_data: z.number(),
  feature_variables: z.array(z.string()),
  target_variables: z.array(z.string()),
  time_column: z.string().nullable(),
  models: z.array(loose({ model_key: z.string(), algorithm: z.string(), state: z.string(), threshold: z.number().nullable() })),
});
export const thresholdView = loose({
  threshold: z.number(),
  trained_threshold: z.number(),
  saved_threshold: z.number().nullable(),
  evaluated_part: z.enum(['test', 'train']),
  evaluated_rows: z.number(),
  labelled: z.boolean(),
  counts: z.object({ tp: z.number(), fp: z.number(), fn: z.number(), tn: z.number() }).nullable(),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  f1: z.number().nullable(),
  far: z.number().nullable(),
  mar: z.number().nullable(),
  alarms: z.number(),
  alarms_per_day: z.number().nullable().describe('null when the time column is not a date/time (see alarms_per_1000_rows)'),
  alarms_per_1000_rows: z.number().nullable(),
  spans: z.array(z.tuple([z.number(), z.number()])),
  seconds: z.number(),
});
export const seriesView = loose({
  rows: z.number(),
  start: z.number(),
  end: z.number(),
  points: z.array(z.tuple([z.number(), z.number().nullable(), z.number().nullable()])),
  times: z.array(z.union([z.string(), z.number(), z.null()])),
});
