import { z } from 'zod';
import { storedEnum } from '../../http/responses.js';
import { TrainingModel, TrainingProject } from '../training/responses.js';
import { decimalsOk } from '@mitate/rules';
import { modelInput } from '../training/schemas.js';
import { said } from '../../http/errors.js';

export const TS_TYPES = ['time_series_anomaly_detection_supervised', 'time_series_anomaly_detection_unsupervised'] as const;
export type TsType = (typeof TS_TYPES)[number];

/** The statistics of a rolling window (engine timeseries/features.py STATS, in that order). */
export const WINDOW_STATS = ['mean', 'std', 'min', 'max'] as const;
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
  window_stats: z.array(z.enum(WINDOW_STATS)).min(1).max(4).nullish().describe('Statistics of each rolling window (all four when absent)'),
  drift_signals: z
    .array(z.string().max(500))
    .max(2000)
    .default([])
    .describe('Slowly drifting signals (temperatures, levels that wander): each enters only as its change over drift_rows rows, x[t] − x[t−drift_rows], not its level, lags or windows'),
  drift_rows: z.number().int().min(1).max(100_000_000).nullish().describe('The rows of the change of the drifting signals (needed when there are any; shorter than the normal period, which is checked against the dataset)'),
  normal: normalPeriod.nullish(),
  split_ratio: z.number().min(0.5).max(0.95).refine(decimalsOk, { message: said('decimals_max') }).default(0.7),
  models: z.array(modelInput).max(20).default([]),
});
export type RegisterBody = z.infer<typeof registerBody>;

// Engine figures that can be non-finite arrive as null (engine encoding.py).
const figure = z.number().nullable();

/** What the drift suggestion needs: the wizard's signals and the period the models learn from (nothing is stored). */
export const driftSuggestBody = registerBody
  .pick({ project_type: true, time_column: true, feature_variables: true, resample: true, normal: true, split_ratio: true })
  .extend({ feature_variables: z.array(z.string().max(500)).min(1).max(2000).describe('The chosen signals') });
export type DriftSuggestBody = z.infer<typeof driftSuggestBody>;

/** The engine's suggestion (engine/mitate_engine/timeseries/drift.py): per signal the figures and the reason in the caller's language. */
export const driftSuggestionView = z
  .object({
    period: z.enum(['normal', 'train']).describe('normal: the unsupervised normal period; train: the supervised training part'),
    rows: z.number().int().describe('Rows of that period'),
    sample_rows: z
      .number()
      .int()
      .describe('Rows the figures were computed on: all of the period up to 200,000 rows, else a sample of evenly spaced blocks of consecutive rows (window and the signals\' rows count sample rows; rows_per_sd and drift_rows count the period\'s)'),
    drift_signals: z.array(z.string()).describe('The suggested slowly drifting signals (in the order of the signals)'),
    drift_rows: z.number().int().nullable().describe('The suggested L, the rows of their change; null when none drifts'),
    defaults: z
      .object({
        windows: z.array(z.number().int()).describe('Rolling windows (rows) of the other signals'),
        alarm_k: z.number().int().describe('Alarm rule: k of the last alarm_n rows over the threshold, for every detector'),
        alarm_n: z.number().int(),
      })
      .nullable()
      .describe('What the unsupervised default adds when signals drift (the wizard fills these in with the drifting signals and L unless changed); null when none drifts or for the supervised training part'),
    signals: z.array(
      z.object({
        signal: z.string(),
        drifts: z.boolean(),
        reason: z.string().describe("Why, in the caller's language"),
        rows: z.number().int().describe('Values of the signal in the period'),
        move: figure.describe("The slow trend's move (max - min of the mean over `window` rows) in short-term standard deviations"),
        short_sd: figure.describe('Short-term variation: standard deviation of the first differences / √2'),
        window: z.number().int().nullable().describe('Rows of the long window of the trend'),
        step_share: figure.describe('Largest change between consecutive 5-row means, as a share of the move (a step when large)'),
        crossings: z.number().int().nullable().describe("Times the trend crosses its median by a margin (a level it swings around when many)"),
        rows_per_sd: figure.describe('Rows over which the trend moves by one short-term standard deviation'),
      }),
    ),
  })
  .meta({ id: 'TsDriftSuggestion' });
export type DriftSuggestion = z.infer<typeof driftSuggestionView>;

export const thresholdQuery = z.object({ threshold: z.coerce.number().optional(), target_far: z.coerce.number().min(0).max(1).optional() });
export const rangeQuery = z.object({
  start: z.coerce.number().int().min(0).optional(),
  end: z.coerce.number().int().min(0).optional(),
  points: z.coerce.number().int().min(10).max(5000).default(1000),
  columns: z.string().max(20000).optional(),
});
export const pid = z.object({ id: z.string().max(64) });
export const pm = z.object({ project_id: z.string().max(64), model_key: z.string().max(100) });

/** `{detail: {response: ...}}` with the response described. */
export const wrap = <T extends z.ZodType>(response: T) => ({ 200: z.object({ detail: z.object({ response }) }) });

/** [row position, min, max] of a bucket: no spike is lost when a long series is drawn with few points. */
const bucket = z.tuple([z.number(), figure, figure]);
const timeValue = z.union([z.string(), z.number(), z.null()]).describe('The time column’s value (ISO text for a date/time)');

/** A detector of the catalogue (engine/mitate_engine/timeseries/catalogue.json), named in the caller's language. */
export const tsAlgorithm = z
  .object({
    key: z.string(),
    label: z.string().describe("The detector's name in the caller's language (Accept-Language)"),
    contributions: z.boolean().describe('Whether the detector explains an alarm by the signals’ contributions'),
    params: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['int', 'float']),
        default: z.number(),
        low: z.number(),
        high: z.number(),
        label: z.string().describe("The parameter's label in the caller's language"),
        help: z.string().optional().describe('What the value means, in the same language'),
      }),
    ),
  })
  .meta({ id: 'TsAlgorithm' });
export const tsCatalogueView = z.object({ supervised: z.array(tsAlgorithm), unsupervised: z.array(tsAlgorithm) }).meta({ id: 'TsCatalogue' });

export const normalDefaultQuery = z.object({
  time_column: z.string().max(500).nullish().describe("The column that orders the rows (default: the dataset's date/time column)"),
  target: z.string().max(500).nullish().describe('The label column, if any'),
});
export const normalDefaultView = z
  .object({
    mode: z.literal('rows'),
    rows: z.number().int().describe('The first rows in time order'),
    total: z.number().int(),
    source: z
      .enum(['label_before_first_anomaly', 'label_all_normal', 'first_half'])
      .describe('Where it comes from: the label (every row before the first anomalous one, or all rows when none is), else the first half for the person to confirm'),
    end: timeValue.nullable().describe("The time column's value at the period's last row (a date-time text or a number)"),
  })
  .meta({ id: 'TsNormalDefault' });

/** The summary the engine keeps as a detector's metrics (timeseries/trainer.py write_model); null figures need labels. */
export const tsModelMetrics = z
  .object({
    f1: figure.describe('Point-wise F1 on the test part; null without an anomalous label there'),
    far: figure.describe('The false-alarm rate shown first, on rows the model was not fitted on (see far_basis)'),
    far_basis: z
      .enum(['test', 'held_back_normal'])
      .nullable()
      .optional()
      .describe("What far was measured on: the test part's normal rows, or the held-back last part of the normal period (not fitted on), cross-checked: the threshold set on one half and counted on the other; null when neither exists"),
    heldout_far: figure.optional().describe('Unsupervised: false-alarm rate on the held-back part of the normal period at the trained threshold (set on those rows)'),
    train_alarm_rate: figure.optional().describe('Alarm rate on the rows the model was fitted on: in sample, optimistic'),
    validation_f1: figure.optional().describe('Supervised: F1 on the validation period at the chosen threshold (chooses the best model)'),
    mar: figure,
    precision: figure,
    recall: figure,
    event_f1: figure.describe('Event F1 on the test part; null without a labelled event there'),
    alarms: z.number().int(),
    threshold: figure,
  })
  .meta({ id: 'TsModelMetrics' });
export type TsModelMetrics = z.infer<typeof tsModelMetrics>;

const tsParams = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]));
export type TsParams = z.infer<typeof tsParams>;
export const tsModel = TrainingModel.extend({
  params: tsParams.describe('The hyper-parameters asked for'),
  hyperparameters: tsParams.nullable().describe('The hyper-parameters used'),
  metrics: tsModelMetrics.nullable(),
  label: z.string().describe('The detector’s name for people'),
  trained_threshold: z.number().nullable().describe('The threshold training chose'),
  saved_threshold: z.number().nullable().describe('The threshold a person saved, or null'),
  threshold: z.number().nullable().describe('The one in use: saved, else trained'),
}).meta({ id: 'TsModel' });

export const projectView = TrainingProject.extend({
  project_type: storedEnum(TS_TYPES),
  mode: z.enum(['supervised', 'unsupervised']),
  time_column: z.string(),
  time_is_datetime: z.boolean(),
  normal: normalPeriod.nullable().describe('The normal period the unsupervised detectors learn from'),
  resample: z.string().nullable(),
  window_stats: z.array(z.enum(WINDOW_STATS)).describe('Statistics of each rolling window'),
  drift_signals: z.array(z.string()).describe('Signals that enter as their change over drift_rows rows instead of their level'),
  drift_rows: z.number().int().nullable().describe('Rows of that change; null without drifting signals'),
  notes: z.array(z.string()).describe('What the server did to the data, e.g. sorted:<time column>'),
  models: z.array(tsModel),
  best_model_basis: z
    .enum(['validation_period', 'held_back_normal'])
    .describe('What chose best_model_key (never the test part): supervised, F1 on the validation period; unsupervised, the fewest false alarms on the held-back part of the normal period'),
}).meta({ id: 'TsProject' });

const pointwise = z.object({ tp: z.number().int(), fp: z.number().int(), fn: z.number().int(), tn: z.number().int(), precision: figure, recall: figure, f1: figure, far: figure, mar: figure });
const eventLevel = z.object({
  events: z.number().int(),
  events_detected: z.number().int(),
  alarm_spans: z.number().int(),
  alarm_spans_true: z.number().int(),
  precision: figure,
  recall: figure,
  f1: figure,
  per_event: z.array(z.object({ start: z.number().int(), end: z.number().int(), start_time: timeValue.optional(), end_time: timeValue.optional(), detected: z.boolean(), delay_rows: z.number().int().nullable(), delay_seconds: figure.optional() })),
});

/** A detector's report (engine/mitate_engine/timeseries/trainer.py write_model, metrics.py). */
export const tsReport = z
  .object({
    algorithm: z.string(),
    label: z.string(),
    project_type: z.enum(TS_TYPES),
    threshold: figure,
    detector: z
      .object({
        components: z.number().int().optional(),
        components_rule: z.enum(['fixed', 'explained_variance', 'parallel_analysis']).optional().describe('How PCA-MSPC chose its number of components'),
        validation_f1: figure.optional(),
        far_cross_checked: figure.optional().describe('Unsupervised: false-alarm rate of the threshold rule on held-back normal rows it was not set on (set on one half, counted on the other)'),
        explained_variance: figure.optional(),
        t2_limit: figure.optional(),
        q_limit: figure.optional(),
        confidence: figure.optional(),
        percentile: figure.optional(),
        window: z.number().int().optional(),
        quantile: figure.optional(),
        factor: figure.optional(),
        persistence: z.number().int().optional(),
        epochs_run: z.number().int().nullable().optional(),
        validation_loss: figure.optional(),
        fit_rows: z.number().int().optional().describe('LOF and the one-class SVM on a long normal period: the rows fitted on, a seeded random sample in time order (every row is scored)'),
        fit_sample_of: z.number().int().optional().describe('The normal-period fitting rows that sample was drawn from'),
      })
      .describe('What the detector learned (PCA-MSPC: components and limits; percentile detectors: the percentile; the autoencoder: window, quantile, epochs)'),
    hyperparameters: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
    metrics: z.object({
      threshold: figure,
      evaluated_part: z.enum(['test', 'validation', 'train']).describe('test; else the held-back part of the normal period (validation); train only in reports written before there was one'),
      evaluated_rows: z.number().int(),
      alarms: z.number().int(),
      alarms_per_day: figure,
      alarms_per_1000_rows: figure,
      train_alarm_rate: figure.describe('In sample: alarm rate on the rows the detector was fitted on'),
      heldout_far: figure.optional().describe('Unsupervised: alarm rate on the held-back normal rows (not fitted on; the threshold was set there)'),
      heldout_rows: z.number().int().optional(),
      pointwise: pointwise.optional().describe('With labels only'),
      event: eventLevel.optional().describe('With labels only'),
    }),
    notes: z.array(z.string()),
    signals: z.array(z.string()),
    time_column: z.string(),
    label_column: z.string().nullable(),
    features_settings: z
      .object({
        lags: z.array(z.number().int()),
        windows: z.array(z.union([z.number().int(), z.string()])),
        window_stats: z.array(z.enum(WINDOW_STATS)),
        drift_signals: z.array(z.string()),
        drift_rows: z.number().int().nullable(),
        warmup_rows: z.number().int(),
      })
      .optional()
      .describe('How the signals entered the detector (absent in reports written before these settings)'),
    rows: z.number().int(),
    profile: z
      .record(z.string(), z.number())
      .optional()
      .describe('Seconds of each step of the training (read, order, features, normal_period, fill, fit, score, threshold, evaluate, write_scores, write_model, report); absent in reports written before'),
    parts: z.object({ warmup: z.number().int(), train: z.number().int(), validation: z.number().int(), test: z.number().int() }).describe('Rows of each part'),
    contributions: z.boolean(),
    alarms: z.array(
      z.object({
        start: z.number().int(),
        end: z.number().int(),
        start_time: timeValue,
        end_time: timeValue,
        peak: z.number().int(),
        peak_score: figure,
        part: z.string(),
        contributions: z.array(z.object({ signal: z.string(), value: figure })).optional().describe('Mean contribution of the ten largest signals over the alarm'),
      }),
    ),
    overview: z.object({ score: z.array(bucket), signals_scaled_std: z.record(z.string(), figure) }),
  })
  .meta({ id: 'TsReport' });
export type TsReport = z.infer<typeof tsReport>;
export const tsReportView = z.object({ project: projectView, model: tsModel, report: tsReport }).meta({ id: 'TsModelReport' });

export const thresholdView = z
  .object({
    threshold: z.number(),
    trained_threshold: z.number().nullable().describe('null when training chose none'),
    saved_threshold: z.number().nullable(),
    evaluated_part: z.enum(['test', 'validation', 'train']).describe('test; else the held-back part of the normal period; train only for models trained before there was one'),
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
    heldout_far: z.number().nullable().describe('Unsupervised: share of the held-back normal rows (not fitted on) over this threshold'),
    heldout_rows: z.number(),
    seconds: z.number(),
  })
  .meta({ id: 'TsThresholdStats' });
export const seriesView = z
  .object({
    rows: z.number(),
    start: z.number(),
    end: z.number(),
    points: z.array(bucket),
    times: z.array(timeValue),
    events: z.array(z.tuple([z.number(), z.number()])).describe('Labelled events as [start, end] (at most 2000)'),
    parts: z.array(z.object({ part: z.string(), start: z.number(), end: z.number() })).describe('Consecutive rows of one part (warmup, train, validation, test)'),
  })
  .meta({ id: 'TsSeries' });
export const signalsView = z
  .object({ columns: z.array(z.string()), series: z.record(z.string(), z.array(bucket)).describe('signal → buckets') })
  .meta({ id: 'TsSignals' });
export const contributionsView = z
  .object({ available: z.boolean(), start: z.number(), end: z.number(), items: z.array(z.object({ signal: z.string(), value: z.number() })) })
  .meta({ id: 'TsContributions' });
