import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { TrainingProjectTable } from '../training/db.js';
import { WINDOW_STATS } from './schemas.js';

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

export const SPAN = /^(\d+)\s*(ms|s|min|h|d|D)$/;
/** The engine's timeseries.model.RESAMPLE_RULE: a fixed period pandas floors timestamps to. */
export const RESAMPLE = /^(\d{1,6})?(ms|s|min|h)$/;
const INTERVAL_UNIT = { ms: 'milliseconds', s: 'seconds', min: 'minutes', h: 'hours' } as const;
/** The DuckDB time bucket of a resampling rule, aligned as pandas' floor (from the epoch). */
export const bucketSql = (rule: string, column: string) => {
  const m = RESAMPLE.exec(rule)!;
  return `time_bucket(INTERVAL '${Number(m[1] ?? 1)} ${INTERVAL_UNIT[m[2] as keyof typeof INTERVAL_UNIT]}', CAST(${column} AS TIMESTAMP), TIMESTAMP '1970-01-01')`;
};
/** The engine's timeseries/features.py warmup: the longest lag, window (rows) - 1 and change of drifting signals. */
export const warmupOf = (lags: number[], windows: (number | string)[], driftRows = 0) =>
  Math.max(0, ...lags, ...windows.filter((w): w is number => typeof w === 'number').map((w) => w - 1), driftRows);
