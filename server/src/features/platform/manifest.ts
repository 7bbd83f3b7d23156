import { z } from 'zod';

/**
 * The manifest.json of a hosted model, copied from its training run (the engine's ml/model.py and timeseries/model.py
 * `manifest`): the keys the hosted API reads, each optional as a model kind or an older run may leave it out (a
 * tabular model has no time column, `outputs` came later); the others are kept as written.
 */
export const hostedManifest = z.looseObject({
  project_type: z.string().optional(),
  algorithm: z.string().optional(),
  features: z.array(z.string()).optional(),
  /** model column -> numeric | category */
  model_columns: z.record(z.string(), z.string()).optional(),
  outputs: z.array(z.string()).optional(),
  /** a time-series detector's */
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
export type HostedManifest = z.output<typeof hostedManifest>;
