import fs from 'node:fs';
import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { TrainingModelTable, TrainingProjectTable } from './db.js';
import { CrossValidation, Evaluation, imageMetrics, Metrics, ParamSpec } from './responses.js';

/**
 * The JSON this area stores for every kind of project (tables, time series, images share training_projects and
 * training_models) and the model manifest the engine writes beside each trained model, read through one declaration
 * each. Loose objects, optional where a kind or an older writer leaves a key out (see db/stored.ts).
 */

const scalar = z.union([z.number(), z.string(), z.boolean(), z.null()]);

/** A tabular project's settings (config_json), as validateProject writes them; `evaluation` came later. */
export const TabularConfig = z.looseObject({
  target: z.string().nullable(),
  features: z.array(z.string()),
  split_ratio: z.number(),
  split_time: z.string().nullable(),
  cv_folds: z.union([z.literal('default'), z.number()]),
  significance_level: z.number(),
  n_trials: z.number(),
  auto_tune: z.boolean(),
  balance: z.boolean(),
  variance_threshold: z.number(),
  lags: z.array(z.number()),
  windows: z.array(z.number()),
  datetime_column: z.string().nullable(),
  /** holdout: a test set is kept apart; cv_only: every row trains, repeated cross-validation estimates (small tables) */
  evaluation: z.enum(['holdout', 'cv_only']).optional(),
});
export type ProjectConfig = z.output<typeof TabularConfig>;

/**
 * The settings of a project of any kind, as the list and other areas read them: the tabular keys where the kind has
 * them (a time series' windows may be spans such as 5min; an image project has none), and the time series' time column
 * (timeseries/settings.ts declares a time series' settings whole).
 */
export const AnyProjectConfig = TabularConfig.partial().extend({
  windows: z.array(z.union([z.number(), z.string()])).optional(),
  time_column: z.string().optional(),
  time_is_datetime: z.boolean().optional(),
});

/** A tabular project's settings (the tabular calls only). */
export const tabularConfig = (p: Pick<TrainingProjectTable, 'config_json'>) => storedJson('tabular project settings', TabularConfig, p.config_json);
/** A project's settings, whatever its kind. */
export const projectConfig = (p: Pick<TrainingProjectTable, 'config_json'>) => storedJson('project settings', AnyProjectConfig, p.config_json);

/** A model's hyper-parameters as asked for (params_json): every kind's register body takes a record of scalars. */
export const ModelParams = z.record(z.string(), scalar);
export const modelParams = (m: Pick<TrainingModelTable, 'params_json'>) => storedJson('model parameters', ModelParams, m.params_json);

/**
 * A model's figures (metrics_json): a tabular or time-series model's flat record (Metrics), or an image model's
 * (its keys kept: the strict answer check of the tests still sees one the declaration misses).
 */
export const ModelMetrics = z.union([Metrics, z.looseObject(imageMetrics.shape)]);
export const ImageModelMetrics = z.looseObject(imageMetrics.shape);
export const modelMetrics = (m: Pick<TrainingModelTable, 'metrics_json'>) => (m.metrics_json ? storedJson('model metrics', ModelMetrics, m.metrics_json) : null);

/**
 * A model's summary (summary_json). A tabular or time-series model's `model` event writes cv, evaluation,
 * hyper-parameters, seconds and pending (runs.ts); an image model's its threshold, stopped and seconds, or its
 * refusal's code (images/events.ts), and a saved threshold adds its rule (images/threshold.ts).
 */
export const ModelSummary = z.looseObject({
  cv: z.looseObject(CrossValidation.shape).nullable().optional(),
  evaluation: z.looseObject(Evaluation.shape).nullable().optional(),
  hyperparameters: z.record(z.string(), scalar).nullable().optional(),
  seconds: z.number().nullable().optional(),
  pending: z.boolean().optional(),
  threshold: z.number().nullable().optional(),
  stopped: z.boolean().optional(),
  error_code: z.string().nullable().optional(),
  error_params: z.record(z.string(), z.unknown()).optional(),
  threshold_rule: z.unknown().optional(),
  threshold_rule_params: z.unknown().optional(),
});
export const modelSummary = (m: Pick<TrainingModelTable, 'summary_json'>) => (m.summary_json ? storedJson('model summary', ModelSummary, m.summary_json) : {});

/**
 * The manifest.json the engine writes beside a trained tabular or time-series model (ml/model.py manifest and
 * manifest_head, timeseries/model.py): read by prediction, optimisation and the platform. `outputs` came later;
 * a time-series model names its time column; clustering and compression have no target.
 */
export const ModelManifest = z.looseObject({
  format: z.string().optional(),
  project_type: z.string(),
  algorithm: z.string().optional(),
  target: z.string().nullable(),
  features: z.array(z.string()),
  model_columns: z.record(z.string(), z.string()),
  categories: z.record(z.string(), z.array(z.string())),
  outputs: z.array(z.string()).optional(),
  /** a time-series detector's (timeseries/model.py manifest) */
  time_column: z.string().nullable().optional(),
  time_features: z
    .looseObject({
      lags: z.array(z.number()).optional(),
      windows: z.array(z.union([z.number(), z.string()])).optional(),
      drift_signals: z.array(z.string()).optional(),
      drift_rows: z.number().nullable().optional(),
      resample: z.string().nullable().optional(),
    })
    .optional(),
  hyperparameters: z.record(z.string(), z.unknown()).optional(),
  /** a time-series detector's trained threshold (null: a non-finite one) */
  threshold: z.number().nullable().optional(),
});
/** The manifest of a supervised model (regression, soft sensor, ...): its target is named. */
export const SupervisedManifest = ModelManifest.extend({ target: z.string() });
export type ModelManifest = z.output<typeof ModelManifest>;
export type SupervisedManifest = z.output<typeof SupervisedManifest>;

/** An algorithm as the engine's catalogue holds it: figures and message keys of engine/mitate_engine/messages.json. */
const CatalogueParam = z.looseObject({
  ...ParamSpec.omit({ label: true, help: true, choice_labels: true }).shape,
  label_key: z.string(),
  help_key: z.string(),
  choice_keys: z.array(z.string().nullable()).optional(),
});
const CatalogueAlgorithm = z.looseObject({ key: z.string(), name_key: z.string(), tree: z.boolean(), params: z.array(CatalogueParam) });
export type CatalogueParam = z.output<typeof CatalogueParam>;
export type CatalogueAlgorithm = z.output<typeof CatalogueAlgorithm>;

/** The engine's algorithm catalogue: each tabular type's algorithms. */
const algorithms = z.array(CatalogueAlgorithm);
const Catalogue = z.looseObject({ regression: algorithms, soft_sensor: algorithms, discriminant_analysis: algorithms, clustering: algorithms, dimensional_compression: algorithms });
export type Catalogue = z.output<typeof Catalogue>;

/** The catalogue file (the setting MITATE_ML_CATALOGUE, default engine/mitate_engine/ml/catalogue.json, generated from
 * the Python registry); read once, when the training service is built. */
export const readCatalogue = (file: string): Catalogue => storedJson('algorithm catalogue', Catalogue, fs.readFileSync(file, 'utf8'));
