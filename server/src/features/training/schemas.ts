import { z } from 'zod';
import { decimalsOk } from '@mitate/rules';
import { PROJECT_TYPES } from './types.js';
import { said } from '../../http/errors.js';

const decimal = (lo: number, hi: number) =>
  z.number().min(lo).max(hi).refine(decimalsOk, { message: said('decimals_max') });

export const modelInput = z.object({
  algorithm: z.string().min(1).max(64),
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
});

const fieldTypes = {
  name: z.string().trim().min(1).max(200),
  target_variables: z.array(z.string().max(500)).max(1),
  feature_variables: z.array(z.string().max(500)).max(2000),
  split_ratio: decimal(0.5, 0.95),
  split_time: z.string().max(64).nullable(),
  cross_validation: z.union([z.literal('default'), z.number().int(), z.string().max(16)]),
  evaluation: z.enum(['holdout', 'cv_only']),
  significance_level: decimal(0.0000001, 0.5),
  number_of_trials: z.number().int().min(1).max(1000),
  auto_tune: z.boolean(),
  balance_data: z.boolean(),
  variance_threshold: decimal(0, 1e12),
  lags: z.array(z.number().int().min(1).max(1000)).max(20),
  windows: z.array(z.number().int().min(2).max(10000)).max(20),
  models: z.array(modelInput).max(30),
};

export const registerBody = z.object({
  name: fieldTypes.name,
  target_variables: fieldTypes.target_variables.default([]),
  feature_variables: fieldTypes.feature_variables.default([]),
  split_ratio: fieldTypes.split_ratio.default(0.85),
  split_time: fieldTypes.split_time.optional(),
  cross_validation: fieldTypes.cross_validation.default('default'),
  evaluation: fieldTypes.evaluation.default('holdout'),
  significance_level: fieldTypes.significance_level.default(0.05),
  number_of_trials: fieldTypes.number_of_trials.default(10),
  auto_tune: fieldTypes.auto_tune.default(false),
  balance_data: fieldTypes.balance_data.default(false),
  variance_threshold: fieldTypes.variance_threshold.default(0),
  lags: fieldTypes.lags.default([]),
  windows: fieldTypes.windows.default([]),
  models: fieldTypes.models.default([]),
});
export type ProjectFields = z.infer<typeof registerBody>;

export const genericRegisterBody = registerBody.extend({ project_type: z.enum(PROJECT_TYPES) });
export const updateBody = z.object(fieldTypes).partial();
/** Renaming a time-series or image project: the name alone, the rule of every project's name. */
export const renameBody = z.object({ name: fieldTypes.name });
export const trainBody = z.object({ model_keys: z.array(z.string().max(100)).optional() }).nullish();
export const reportBody = z.object({ model_key: z.string().max(100) });
export const listQuery = z.object({
  query: z.string().max(200).default(''),
  // every kind of project the list holds: table types, time series (features/timeseries) and images (features/images)
  project_type: z.string().max(64).optional().describe('regression, soft_sensor, discriminant_analysis, clustering, dimensional_compression, time_series_anomaly_detection_supervised, time_series_anomaly_detection_unsupervised, analysis or classification'),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});
