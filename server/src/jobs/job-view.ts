import { z } from 'zod';
import { StatisticsResult } from '../features/datasets/responses.js';
import { imageEpoch, imageMetrics, imageOperations } from '../features/images/schemas.js';
import { designEvaluation, designResult } from '../features/optimal-design/schemas.js';
import { conditionPredictions, optimizationResult } from '../features/optimization/schemas.js';
import { driftJobResult } from '../features/platform/drift/schemas.js';
import { FittedCondition, PreviewView, RunResult } from '../features/preprocessing/responses.js';
import { TestResult } from '../features/statistical-analysis/responses.js';
import { driftSuggestionView, tsModelMetrics } from '../features/timeseries/schemas.js';
import { CrossValidation, Evaluation, Metrics } from '../features/training/responses.js';
import { JobStateEnum } from './responses.js';

/**
 * A job as GET /jobs/{id} answers it, with its result as the engine task of its kind wrote it
 * (engine/mitate_engine/tasks/<kind>.py; null until the job succeeds). Each kind's result is declared here, reusing
 * the area's schema where the area answers the same result.
 */

const n = z.number().nullable();
const scalars = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]));

/** One model of a training job (tasks/train.py, tsad_train.py): done with its figures, or failed with its reason. */
const modelOutcome = <M extends z.ZodType>(metrics: M) =>
  z.object({
    key: z.string(),
    state: z.enum(['done', 'failed']),
    metrics: metrics.nullable(),
    cv: CrossValidation.nullable().optional(),
    evaluation: Evaluation.nullable().optional(),
    hyperparameters: scalars.optional(),
    seconds: z.number(),
    error: z.string().nullable(),
    log: z.string().optional().describe('A failed model: its log'),
  });

const TrainJobResult = z
  .object({ models: z.array(modelOutcome(Metrics)), train_rows: z.number().int(), test_rows: z.number().int(), seconds: z.number() })
  .meta({ id: 'TrainJobResult' });

/** tasks/tsad_drift_suggest.py: the suggestion as the engine wrote it, each reason a catalogue code with its parameters
 * (the route puts it in the caller's language). */
const TsadDriftSuggestJobResult = driftSuggestionView
  .extend({
    signals: z.array(
      driftSuggestionView.shape.signals.element.extend({
        reason: z.object({ code: z.string(), params: z.record(z.string(), z.union([z.string(), z.number(), z.object({ code: z.string(), params: z.object({}) })])).optional() }),
      }),
    ),
  })
  .meta({ id: 'TsadDriftSuggestJobResult' });

const TsadTrainJobResult = z
  .object({
    models: z.array(modelOutcome(tsModelMetrics)),
    rows: z.number().int(),
    notes: z.array(z.string()).describe('What was done to the data (resampled, sorted), in the language of the person who started it'),
    seconds: z.number(),
  })
  .meta({ id: 'TsadTrainJobResult' });

const TuneHelperJobResult = z
  .object({ trials: z.record(z.string(), z.number().int()).describe('model key → trials run on this worker'), total: z.number().int() })
  .meta({ id: 'TuneHelperJobResult' });

/** The rows a preprocessing run writes, with where the new file is (tasks/preprocess.py). */
const PreprocessJobResult = RunResult.shape.result
  .unwrap()
  .extend({
    output_dir: z.string(),
    parquet: z.string(),
    changed_columns: z.array(z.string()).nullable().describe('Only these columns were written anew (the others are the source’s), or null: the whole table'),
    column_figures: z
      .record(z.string(), z.object({ count: z.number().int(), unique: z.number().int(), min: n, max: n, mean: n, std: n }))
      .optional()
      .describe('changed column → its figures'),
    condition: FittedCondition,
  })
  .meta({ id: 'PreprocessJobResult' });

const PredictJobResult = z
  .object({
    rows: z.number().int(),
    columns: z.array(z.string()),
    outputs: z.array(z.string()),
    condition_applied: z.string().nullable(),
    counts: z.record(z.string(), z.number().int()).optional().describe('Classification, clustering: rows per class or cluster'),
    stats: z.object({ mean: n, min: n, max: n, missing: z.number().int() }).optional().describe('Regression, soft sensor'),
    anomaly: z
      .object({ threshold: n, alarm_rows: z.number().int(), alarms: z.number().int(), first_alarm_row: z.number().int().nullable(), scored_rows: z.number().int() })
      .optional()
      .describe('Time-series anomaly detection'),
  })
  .meta({ id: 'PredictJobResult' });

const imageCounts = z.record(z.string(), z.record(z.string(), z.number().int())).describe('split → class → images');
const skipped = z.array(z.object({ entry: z.string(), reason: z.string().describe('In English; code and params say it in any language'), code: z.string().optional(), params: z.record(z.string(), z.union([z.string(), z.number()])).optional() }));

const ImageIngestJobResult = z
  .union([
    z.object({ classes: z.array(z.string()), counts: imageCounts, total: z.number().int(), skipped, presplit: z.boolean() }),
    z.object({ error: z.object({ code: z.string(), params: scalars, message: z.string() }) }).describe('A refused archive'),
  ])
  .meta({ id: 'ImageIngestJobResult' });

const ImageTrainJobResult = z
  .object({
    models: z.array(
      z.object({
        key: z.string(),
        state: z.enum(['done', 'failed']),
        metrics: imageMetrics.optional(),
        threshold: n.optional(),
        stopped: z.boolean().optional(),
        seconds: z.number().optional(),
        epochs: z.array(imageEpoch.extend({ partial: z.boolean().describe('The epoch was stopped part-way') })).optional(),
        error: z.string().optional(),
        log: z.string().optional(),
        code: z.string().optional(),
        params: z.record(z.string(), z.string()).optional(),
      }),
    ),
  })
  .meta({ id: 'ImageTrainJobResult' });

const ImagePreprocessJobResult = z
  .union([
    z.object({ converted: z.number().int() }).describe('display: TIFFs converted for the browser'),
    z
      .object({
        items: z.array(z.object({ id: z.string(), name: z.string(), label: z.string().nullable(), before: z.array(z.number().int()), after: z.array(z.number().int()), mode: z.string() })),
      })
      .describe('preview: before/after sizes of a few images'),
    z.object({ total: z.number().int(), counts: imageCounts, classes: z.array(z.string()), skipped, kind: z.string(), operations: imageOperations }).describe('apply: the processed dataset'),
  ])
  .meta({ id: 'ImagePreprocessJobResult' });

const ImagePredictJobResult = z
  .object({
    algorithm: z.string(),
    kind: z.string(),
    threshold: n,
    classes: z.array(z.string()),
    rows: z.array(
      z.object({
        name: z.string(),
        label: z.string().nullable(),
        predicted: z.string(),
        score: z.number(),
        heatmap: z.string(),
        probabilities: z.record(z.string(), z.number()).optional(),
      }),
    ),
    failed: skipped.optional().describe('Images that could not be read, under the user’s file names'),
    skipped: skipped.optional().describe('ZIP entries left out at unpacking'),
  })
  .meta({ id: 'ImagePredictJobResult' });

const OptimizeCheckJobResult = z
  .object({ features: z.array(z.string()), targets: z.array(z.string()), range_features: z.array(z.string()), center: z.record(z.string(), z.number()) })
  .meta({ id: 'OptimizeCheckJobResult' });

const DiagnosticsJobResult = z
  .object({ slept: z.number().optional(), blocked: z.boolean().optional(), printed: z.boolean().optional(), nan: n.optional(), inf: n.optional() })
  .describe('Test-only task')
  .meta({ id: 'DiagnosticsJobResult' });

const base = {
  id: z.string(),
  state: JobStateEnum,
  progress: z.number(),
  message: z.string(),
  log: z.string(),
  error: z.string().nullable(),
  subject_type: z.string().nullable(),
  subject_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
};
const of = <K extends string, R extends z.ZodType>(kind: K, result: R) => z.object({ ...base, kind: z.literal(kind), result: result.nullable() });

export const Job = z
  .discriminatedUnion('kind', [
    of('statistics', StatisticsResult),
    of('preprocess', PreprocessJobResult),
    of('preprocess_preview', PreviewView),
    of('train', TrainJobResult),
    of('tune_helper', TuneHelperJobResult),
    of('tsad_train', TsadTrainJobResult),
    of('tsad_drift_suggest', TsadDriftSuggestJobResult),
    of('predict', PredictJobResult),
    of('statistical_analysis', TestResult),
    of('optimize', optimizationResult),
    of('optimize_check', OptimizeCheckJobResult),
    of('optimize_predict', conditionPredictions),
    of('optimal_design', z.union([designResult, designEvaluation])),
    of('image_ingest', ImageIngestJobResult),
    of('image_preprocess', ImagePreprocessJobResult),
    of('image_train', ImageTrainJobResult),
    of('image_predict', ImagePredictJobResult),
    of('platform_drift', driftJobResult),
    of('diagnostics', DiagnosticsJobResult),
  ])
  .meta({ id: 'Job' });
