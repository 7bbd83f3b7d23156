import { z } from 'zod';

/** A project's drift thresholds and window; every field has a default, so {} is the defaults. */
export const driftSettings = z
  .object({
    psi: z.number().min(0.01).max(10).default(0.2).describe('A feature shifted when its PSI is at least this and the two-sample test says p below p_value'),
    p_value: z.number().gt(0).max(0.5).default(0.01).describe('Significance of the two-sample test (KS for numbers, chi-square for categories)'),
    outside: z.number().min(0).max(1).default(0.05).describe('Warn when at least this share of served values lies outside the training range (or is an unseen category)'),
    missing: z.number().min(0).max(1).default(0.05).describe('Warn when at least this share of served rows lacks the feature'),
    window_rows: z.number().int().min(50).max(5000).default(1000).describe('The window: at most the last this many sampled rows...'),
    window_hours: z.number().int().min(1).max(720).default(24).describe('...of the last this many hours'),
    min_rows: z.number().int().min(10).max(5000).default(100).describe('Fewer sampled rows in the window: figures are shown, no warning is raised'),
    auto_every: z.number().int().min(0).max(1_000_000).default(1000).describe('A check starts by itself after this many new sampled rows (0: only by the button)...'),
    auto_minutes: z.number().int().min(0).max(10_080).default(60).describe('...and at least this many minutes after the last check started (a busy API is not checked again and again)'),
  })
  .meta({ id: 'PlatformDriftSettings' });
export type DriftSettings = z.infer<typeof driftSettings>;
/** The settings a PUT changes: only the fields sent (no defaults filled in). */
export const driftSettingsBody = z.object(Object.fromEntries(Object.entries(driftSettings.shape).map(([k, v]) => [k, v.unwrap().optional()])) as { [K in keyof typeof driftSettings.shape]: z.ZodOptional<ReturnType<(typeof driftSettings.shape)[K]['unwrap']>> });

const n = z.number().nullable();
export const WARNINGS = ['shift', 'outside', 'missing'] as const;

export const driftFeature = z.object({
  feature: z.string(),
  kind: z.enum(['numeric', 'categorical', 'score']).describe('score: the served scores of an image model against its validation OK scores'),
  rows: z.number().int(),
  psi: n.describe('Population stability index against the training data'),
  test: z.enum(['ks', 'chi2']),
  statistic: n,
  p_value: n,
  outside: n.describe('Share of served values outside the training range, or of categories unseen in training'),
  missing: n.describe('Share of served rows without the feature'),
  train_min: n.optional(),
  train_max: n.optional(),
  mean: n.optional(),
  train_mean: n.optional(),
  warnings: z.array(z.enum(WARNINGS)).describe("Thresholds this feature crosses with the project's current settings"),
});
export type DriftFeature = z.infer<typeof driftFeature>;

export const driftCheckView = z.object({
  id: z.string(),
  state: z.enum(['running', 'done', 'failed']),
  trigger: z.enum(['manual', 'auto']),
  rows: z.number().int().describe('Sampled rows compared'),
  window_from: z.string().nullable(),
  window_to: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable().describe("Why the check failed, in the caller's language"),
  enough_rows: z.boolean().describe('At least min_rows rows: only then are warnings raised'),
  condition_applied: z.boolean().describe("The served rows went through the training data's preprocessing condition"),
  features: z.array(driftFeature),
  warning: z.boolean().describe('Some feature crosses a threshold'),
});
export type DriftCheckView = z.infer<typeof driftCheckView>;

export const driftView = z
  .object({
    settings: driftSettings,
    sampled_rows: z.number().int().describe('Sampled rows kept for this API (the last rows, bounded per project)'),
    new_rows: z.number().int().describe('Rows sampled since the last check started'),
    running: z.boolean(),
    latest: driftCheckView.nullable().describe('The newest check'),
    warning: z.boolean().describe('The newest finished check has a feature over a threshold'),
    warned_features: z.array(z.string()),
    history: z
      .array(z.object({ time: z.string(), rows: z.number().int(), psi: z.record(z.string(), n), warned: z.array(z.string()) }))
      .describe('Finished checks, oldest first: each feature’s PSI (the time chart)'),
  })
  .meta({ id: 'PlatformDrift' });
export type DriftView = z.infer<typeof driftView>;

/** The platform_drift job's result as the engine writes it (tasks/platform_drift.py): the figures without warnings,
 * which the server adds with the project's current thresholds. */
export const driftJobResult = z
  .object({ rows: z.number().int(), features: z.array(driftFeature.omit({ warnings: true })), condition_applied: z.boolean() })
  .meta({ id: 'PlatformDriftJobResult' });
