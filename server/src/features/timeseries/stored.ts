import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { TrainingProjectTable } from '../training/db.js';
import { WINDOW_STATS } from './schemas.js';

// The time-series area's stored JSON: a project's settings (config_json) and the engine's detector catalogue.

const timeValue = z.union([z.string(), z.number()]);

/** Settings of a time-series project (config_json, as validate.ts writes them); the keys shared with tabular projects
 * keep the training views working. Loose: keys another writer adds are kept. */
const tsConfig = z.looseObject({
  target: z.string().nullable(),
  features: z.array(z.string()),
  time_column: z.string(),
  time_is_datetime: z.boolean(),
  lags: z.array(z.number()),
  windows: z.array(z.union([z.number(), z.string()])),
  /** Regular periods (pandas rule such as 1s, 5min) the series is resampled to before the windows, or null. */
  resample: z.string().nullable().optional(),
  /** Statistics of each rolling window (absent in projects stored before: all four). */
  window_stats: z.array(z.enum(WINDOW_STATS)).optional(),
  /** Slowly drifting signals: each enters as its change over drift_rows rows only (engine timeseries/features.py). */
  drift_signals: z.array(z.string()).optional(),
  drift_rows: z.number().nullable().optional(),
  normal: z
    .union([z.looseObject({ mode: z.literal('rows'), rows: z.number() }), z.looseObject({ mode: z.literal('range'), start: timeValue, end: timeValue })])
    .nullable(),
  split_ratio: z.number(),
  split_time: z.null(),
  cv_folds: z.literal('default'),
  significance_level: z.number(),
  n_trials: z.number(),
  auto_tune: z.boolean(),
  balance: z.boolean(),
  variance_threshold: z.number(),
  datetime_column: z.string().nullable(),
  notes: z.array(z.string()),
});
export type TsConfig = z.output<typeof tsConfig>;

/** A time-series project's settings. */
export const tsConfigOf = (p: Pick<TrainingProjectTable, 'config_json'>): TsConfig => storedJson('time-series project settings', tsConfig, p.config_json);

/** A detector as the engine's catalogue holds it: message keys of engine/mitate_engine/messages.json, no free text. */
const TsAlgorithm = z.looseObject({
  key: z.string(),
  name_key: z.string(),
  contributions: z.boolean(),
  params: z.array(
    z.looseObject({ name: z.string(), kind: z.enum(['int', 'float']), default: z.number(), low: z.number(), high: z.number(), label_key: z.string(), help_key: z.string().optional() }),
  ),
});
export type TsAlgorithm = z.output<typeof TsAlgorithm>;
export const TsCatalogue = z.looseObject({ supervised: z.array(TsAlgorithm), unsupervised: z.array(TsAlgorithm) });
