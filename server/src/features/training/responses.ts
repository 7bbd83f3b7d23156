import { z } from 'zod';
import { storedAsWritten } from '../../db/stored.js';
import { page } from '../../http/responses.js';
import { JobBrief } from '../../jobs/responses.js';

/**
 * Answers of the training calls. Metrics, CV figures and reports are written by the engine (engine/mitate_engine/ml
 * trainer.py, tasks/train.py); their shapes are declared here so the web app's types come from one place.
 * Projects of every kind share the list (time-series and image projects keep other settings: the tabular settings
 * are then empty or null).
 */

const n = z.number().nullable();
/** Hyper-parameter → value (engine ml/catalogue.json: int, float, choice or bool; null where the algorithm's default is none). */
const HyperParameters = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).meta({ id: 'HyperParameters' });

/** One hyper-parameter of an algorithm (engine/mitate_engine/ml/catalogue.json). */
export const ParamSpec = z
  .object({
    name: z.string(),
    kind: z.enum(['int', 'float', 'choice', 'bool']),
    default: z.union([z.number(), z.string(), z.boolean(), z.null()]),
    low: z.number().optional(),
    high: z.number().optional(),
    log: z.boolean().optional(),
    choices: z.array(z.union([z.string(), z.number()])).optional(),
    choice_labels: z.array(z.string()).optional().describe('Each choice in the reader’s language, in the order of choices'),
    tune: z.boolean().optional(),
    label: z.string().describe('The parameter in the reader’s language'),
    help: z.string().optional().describe('What the parameter does, in the reader’s language'),
  })
  .meta({ id: 'ParamSpec' });

export const AlgorithmSpec = z.object({ key: z.string(), label: z.string().describe('The algorithm’s name in the reader’s language'), tree: z.boolean(), params: z.array(ParamSpec) }).meta({ id: 'AlgorithmSpec' });
export type ParamSpec = z.infer<typeof ParamSpec>;
export type AlgorithmSpec = z.infer<typeof AlgorithmSpec>;

/** Cross-validation of a model: the score that chose it (the mean; for a soft sensor the pooled forward Q²). */
export const CrossValidation = z
  .object({
    metric: z.string(),
    folds: z.array(z.number()),
    mean: n,
    aggregate: z.enum(['mean', 'pooled_forward']).optional().describe('mean: the fold mean; pooled_forward: a soft sensor’s Q² over every forward fold'),
    fold_mean: n.optional(),
    std: n,
  })
  .meta({ id: 'CrossValidation' });

/** How far a model's figures can be trusted: below `threshold` test rows, or with no test set, repeated cross-validation is the headline. */
export const Evaluation = z
  .object({
    mode: z.enum(['holdout', 'cv_only']),
    test_rows: z.number(),
    threshold: z.number(),
    small_test: z.boolean(),
    headline: z.enum(['test', 'repeated_cv', 'forward_validation']),
    repeated_cv: z.object({ metric: z.string(), mean: z.number(), std: z.number(), folds: z.number(), repeats: z.number(), low: z.number(), high: z.number() }).nullable(),
  })
  .meta({ id: 'ModelEvaluation' });

/** Metrics of a tabular model: figures (null when undefined), a confusion matrix, cluster sizes, explained variance ratios, the averaging rule. */
export const Metrics = z
  .record(z.string(), z.union([z.number(), z.string(), z.null(), z.array(z.number().nullable()), z.array(z.array(z.number())), z.record(z.string(), z.number())]))
  .meta({ id: 'ModelMetrics' });
/** An image figure that the engine may leave undefined (non-finite floats arrive as null). */
const imageFigure = z.number().nullable();
/** Test-image imageFigures: OK/NG analysis (NG positive, with the threshold, miss and over-detection rates) or the
 * classes' macro averages; every key is absent when there was no test image. */
export const imageMetrics = z
  .object({
    threshold: z.number().optional(),
    n: z.number().int().optional(),
    accuracy: imageFigure.optional(),
    precision: imageFigure.optional(),
    recall: imageFigure.optional(),
    f1: imageFigure.optional(),
    roc_auc: imageFigure.optional(),
    miss_rate: imageFigure.optional().describe('NG images passed as OK'),
    over_detection_rate: imageFigure.optional().describe('OK images flagged as NG'),
    confusion_matrix: z.object({ labels: z.array(z.string()), matrix: z.array(z.array(z.number().int())) }).optional().describe('Rows: true class; columns: predicted'),
  })
  .meta({ id: 'ImageMetrics' });

/** A model row's metrics: a tabular model's (Metrics; a time-series detector's figures are flat too), or an image model's, whose confusion matrix names its classes. */
export const AnyMetrics = z.union([Metrics, imageMetrics]).meta({ id: 'ModelRowMetrics' });

export const TrainingModel = z
  .object({
    id: z.string(),
    model_key: z.string(),
    model_name: z.string(),
    model_index: z.number(),
    algorithm: z.string(),
    label: z.string().optional().describe('The algorithm’s name in the reader’s language (given with a report)'),
    params: HyperParameters.describe('The hyper-parameters asked for'),
    hyperparameters: HyperParameters.nullable().describe('The hyper-parameters used (after auto-tune)'),
    cv: CrossValidation.nullable(),
    evaluation: Evaluation.nullable(),
    seconds: n,
    pending: z.boolean().describe('Trained and usable; cross-validation and importances are still being computed'),
    state: z.enum(['ready', 'training', 'done', 'failed']),
    metrics: AnyMetrics.nullable(),
    error: z.string().nullable(),
    log: z.string().nullable(),
    trained_at: z.string().nullable(),
  })
  .meta({ id: 'TrainingModel' });

export const TrainingProject = z
  .object({
    project_id: z.string(),
    id: z.string(),
    name: z.string(),
    project_type: z.string(),
    training_state: z.enum(['ready', 'training', 'done', 'failed']),
    dataset_id: z.string(),
    parent_dataset_name: z.string(),
    number_of_data: z.number(),
    target_variables: z.array(z.string()),
    feature_variables: z.array(z.string()),
    split_ratio: n,
    split_time: z.string().nullable(),
    cross_validation: z.union([z.literal('default'), z.number()]).nullable(),
    significance_level: n,
    number_of_trials: n,
    auto_tune: z.boolean().nullable(),
    balance_data: z.boolean().nullable(),
    variance_threshold: n,
    lags: z.array(z.number()),
    windows: z.array(z.union([z.number(), z.string()])).describe('Rows, or a time span such as 5min (time series)'),
    datetime_column: z.string().nullable(),
    models: z.array(TrainingModel),
    best_model_key: z.string().nullable(),
    best_model_basis: z.enum(['cross_validation', 'forward_validation', 'silhouette', 'trustworthiness']).describe('What chose the best model (never the test score)'),
    evaluation: z.enum(['holdout', 'cv_only']).describe('holdout: a test set was kept; cv_only: every row trained, metrics out of fold'),
    models_done: z.number(),
    models_failed: z.number(),
    job: JobBrief,
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'TrainingProject' });

export const TrainingProjectPage = page(TrainingProject);
export type TrainingModelView = z.infer<typeof TrainingModel>;
export type TrainingProjectView = z.infer<typeof TrainingProject>;
export type TrainingReportView = z.infer<typeof TrainingReport>;
export const Catalogue = z
  .object({ types: z.array(z.object({ type: z.string(), prefix: z.string(), supervised: z.boolean(), algorithms: z.array(AlgorithmSpec) })) })
  .meta({ id: 'TrainingCatalogue' });
export const ProjectConfigView = z.object({ project: TrainingProject, algorithms: z.array(AlgorithmSpec) });

// ---- report.json (engine ml/trainer.py) -------------------------------------------------------------------------

const nums = z.array(z.number());
const xs = z.array(z.number().nullable());
const Importance = z.object({ feature: z.string(), mean: n, std: n });
const Fit = z.object({ time: z.array(z.union([z.string(), z.number(), z.null()])), actual: xs, predicted: xs });

/** The charts of a report; each type fills its own (regression, soft sensor, classification, clustering, compression). */
export const ReportCharts = z
  .object({
    predicted_vs_actual: z.object({ actual: xs, predicted: xs }).optional(),
    residuals: z.object({ predicted: xs, residual: xs }).optional(),
    residual_histogram: z.object({ counts: nums, edges: nums }).optional(),
    time_series: z.object({ train: Fit, test: Fit }).optional().describe('Soft sensor: actual and predicted over time'),
    coefficients: z
      .array(z.object({ feature: z.string(), coefficient: n, std_error: n.optional(), p_value: n.optional(), significant: z.boolean().optional() }))
      .optional()
      .describe('Linear models, on standardised inputs; ordinary least squares adds p-values'),
    confusion_matrix: z.object({ labels: z.array(z.string()), matrix: z.array(nums) }).optional(),
    roc: z.array(z.object({ class: z.string(), fpr: nums, tpr: nums, auc: n })).optional(),
    per_class: z
      .record(z.string(), z.union([z.number(), z.record(z.string(), z.number())]))
      .optional()
      .describe("scikit-learn's classification_report: per class precision, recall, f1-score, support; accuracy; averages"),
    pca_scatter: z.object({ x: xs, y: xs, cluster: nums, explained: xs }).optional(),
    profiles: z.object({ features: z.array(z.string()), clusters: z.array(z.string()), means: z.array(xs) }).optional(),
    elbow: z.object({ k: nums, inertia: xs, silhouette: xs }).optional(),
    dendrogram: z.object({ icoord: z.array(nums), dcoord: z.array(nums), leaves: z.array(z.string()) }).optional(),
    map: z.object({ x: xs, y: xs, color: z.array(z.union([z.number(), z.string(), z.null()])).nullable(), color_label: z.string().nullable() }).optional(),
    scree: z.object({ ratio: xs, cumulative: xs }).optional(),
    loadings: z.object({ features: z.array(z.string()), components: z.array(xs) }).optional(),
    biplot: z.object({ features: z.array(z.string()), x: xs, y: xs }).optional(),
  })
  .meta({ id: 'ReportCharts' });

/** A model's report.json: what the report page, the HTML and the PDF show. */
export const TrainingReport = z
  .object({
    algorithm: z.string(),
    label: z.string(),
    metrics: Metrics,
    train_metrics: Metrics,
    charts: ReportCharts,
    permutation_importance: z.array(Importance).describe('Permutation importance on the test rows (clustering: of a forest predicting the cluster; PCA: weighted loadings)'),
    shap: z.array(z.object({ feature: z.string(), mean_abs: n })).nullable(),
    cv: CrossValidation.nullable().optional(),
    evaluation: Evaluation.optional(),
    target_units: z.object({ scaled: z.boolean(), target: z.string().nullable(), method: z.string().nullable() }).optional().describe('Supervised: whether the condition scaled the target (figures are in its original units)'),
    hyperparameters: HyperParameters,
    defaults: HyperParameters,
    param_labels: z.record(z.string(), z.string()).optional().describe('Each hyper-parameter’s label in the reader’s language (the server adds it; `label` is then the algorithm’s name in that language)'),
    auto_tune: z.object({
      enabled: z.boolean(),
      trials: z.array(
        z.object({
          number: z.number(),
          value: n,
          params: HyperParameters,
          state: z.string(),
          worker: z.string().optional().describe('which worker ran the trial when trials are shared (main, or a helper job)'),
        }),
      ),
      objective: z.string(),
    }),
    train_rows: z.number(),
    test_rows: z.number(),
    fit_seconds: z.number(),
    trained_on: z
      .object({ engine: z.literal('dask'), scheduler: z.string(), workers: z.number() })
      .nullable()
      .optional()
      .describe('Where the final fit ran when not in the engine worker: the Dask cluster of MITATE_DASK_SCHEDULER (address, workers)'),
    seconds: z.number(),
    features: z.array(z.string()),
    target: z.string().nullable(),
    pending: z.boolean().describe('Cross-validation and importances still being computed'),
    sampling: z
      .object({
        large: z.boolean(),
        final_fit_rows: z.number(),
        test_rows: z.number(),
        cv: z.object({ rows: z.number(), of: z.number(), folds: z.number(), sample: z.enum(['all', 'random', 'stratified', 'recent']) }).nullable(),
        train_metric_rows: z.number(),
        importance_rows: z.number(),
        shap_rows: z.number().nullable(),
        chart_points: z.number(),
      })
      .nullable()
      .optional()
      .describe('The rows each step used: on a large table cross-validation (and auto-tune) on a sample, the final model on every training row'),
    profile: z.record(z.string(), z.number()).optional().describe('Seconds per step of the training job (read, conversion, final_fit, cv_folds, prediction, ...)'),
  })
  .meta({ id: 'TrainingReport' });

/** Reads a report.json (its text) as a TrainingReport, kept as the engine wrote it (db/stored.ts storedAsWritten): the
 * one definition the report page, the HTML and the PDF use. */
export const readTrainingReport = (text: string): TrainingReportView => storedAsWritten('training report', TrainingReport, text);

export const ModelReport = z.object({ project: TrainingProject, model: TrainingModel, report: TrainingReport }).meta({ id: 'ModelReport' });
