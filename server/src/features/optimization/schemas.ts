import { z } from 'zod';
import { IdView, storedEnum } from '../../http/responses.js';

export const ALGORITHMS = ['tpe', 'cmaes', 'nsga2', 'gp', 'random', 'grid'] as const;
export const GOALS = ['maximize', 'minimize', 'target', 'range'] as const;
export const FEATURE_KINDS = ['range', 'discrete', 'fixed'] as const;
export const DEFAULT_TRIALS = 10; // SPEC §9
export const MAX_TRIALS = 1_000_000;

const name = z.string().trim().min(1).max(500);
const num = z.number().finite();
const value = z.union([z.number(), z.string().max(500)]);

export const modelRef = z.object({ project_id: z.string().max(64), model_key: z.string().max(100) });

export const targetSetting = z.object({
  name,
  goal: z.enum(GOALS).describe('maximize | minimize | target (a target value) | range (lower..upper)'),
  value: num.nullish(),
  lower: num.nullish(),
  upper: num.nullish(),
  weight: num.positive().optional().default(1).describe('Weight of this target in the overall desirability'),
});

export const featureSetting = z.object({
  name,
  kind: z.enum(FEATURE_KINDS).describe('range (lower..upper) | discrete (a list of values) | fixed (held at value); categorical features list their levels under values'),
  lower: num.nullish(),
  upper: num.nullish(),
  values: z.array(value).max(1000).optional(),
  value: value.nullish(),
  unit: z.string().max(50).optional().default(''),
  weight: num.nonnegative().optional().default(1).describe('Importance shown beside the feature (not part of the objective)'),
});

export const constraintSetting = z.object({
  name: z.string().trim().max(200).optional(),
  type: z.enum(['sum', 'linear']).describe('sum: the features add up to value; linear: Σ coefficient·feature (operator) value'),
  features: z.array(name).max(200).optional(),
  coefficients: z.record(z.string(), num).optional(),
  operator: z.enum(['<=', '>=', '=']).optional().default('<='),
  value: num,
});

export const settingsBody = z.object({
  models: z.array(modelRef).max(20).describe('Trained regression / soft-sensor models of one source dataset, one per target'),
  targets: z.array(targetSetting).max(20),
  features: z.array(featureSetting).max(500),
  constraints: z.array(constraintSetting).max(50).optional().default([]),
  algorithms: z.array(z.enum(ALGORITHMS)).min(1).max(6).optional().default(['tpe']).describe('tpe | cmaes | nsga2 (Pareto) | gp (Gaussian-process BO) | random | grid'),
  n_trials: z.number().int().min(1).max(MAX_TRIALS).optional().default(DEFAULT_TRIALS),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().default(0),
  forbid_extrapolation: z.boolean().optional().default(false).describe('Keep every candidate inside the training data ranges'),
});
export type Settings = z.infer<typeof settingsBody>;

export const registerBody = settingsBody.extend({
  name: z.string().trim().max(200),
  comment: z.string().max(2000).optional().default(''),
  run: z.boolean().optional().default(true).describe('Start the runs at once'),
});
export type RegisterBody = z.infer<typeof registerBody>;

export const featuresBody = z.object({ models: z.array(modelRef).max(20) });
export const evaluateBody = z.object({ algorithms: z.array(z.enum(ALGORITHMS)).min(1).max(6).optional() }).nullish();
export const predictionBody = z.object({ conditions: z.array(z.record(z.string(), value)).max(1000) });
export const downloadBody = z.object({ run_id: z.string().max(64).optional() }).nullish();
export const idParams = z.object({ id: z.string().max(64) });
export const listQuery = z.object({
  query: z.string().max(200).optional(),
  state: z.enum(['ready', 'running', 'done', 'failed']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});

// ---- responses -------------------------------------------------------------------------------------------
// The run's result is the engine's (engine/mitate_engine/tasks/optimize.py, optimization/report.py). Engine floats
// that can be non-finite (an infeasible candidate's objective, a model's NaN) arrive as null (engine encoding.py).

const wrap = <T extends z.ZodType>(t: T) => z.object({ detail: z.object({ response: t }) });
const figure = z.number().nullable();
const byTarget = z.record(z.string(), figure).describe('target → value');
const featureValues = z.record(z.string(), z.union([z.number(), z.string()])).describe('feature → value');

/** A candidate condition: its feature values and the predicted targets. */
export const candidate = z
  .object({
    features: featureValues,
    predictions: byTarget,
    evaluation: z.number().int().describe('Which evaluation of the search (from 1)'),
    objective: figure.describe('The prediction (one target, oriented: larger is better) or the overall desirability'),
  })
  .meta({ id: 'OptimizationCandidate' });

/** One of the ranked best conditions. */
export const bestCondition = candidate
  .extend({
    rank: z.number().int(),
    uncertainty: byTarget.describe('target → standard deviation of the prediction, null when the model gives none'),
    desirability: byTarget.nullable().describe('target → desirability (several targets only)'),
    extrapolation: z.array(z.string()).describe('Features outside their training range'),
    constraints: z.record(z.string(), z.number()).describe('constraint → its left-hand side at this condition'),
  })
  .meta({ id: 'OptimizationBest' });

/** The profiler: each target as one feature moves with the others held at the best condition. */
export const profile = z
  .object({ x: z.array(z.union([z.number(), z.string()])), feasible: z.array(z.boolean()), targets: z.record(z.string(), z.array(figure)) })
  .meta({ id: 'OptimizationProfile' });

export const optimizationResult = z
  .object({
    algorithm: z.enum(ALGORITHMS),
    n_trials: z.number().int(),
    search_evaluations: z.number().int().optional().describe('Trials the algorithm proposed (n_trials)'),
    evaluations: z.number().int().describe('Every model evaluation of the run: the trials and the refinement'),
    refinement: z
      .object({
        screen_evaluations: z.number().int(),
        local_evaluations: z.number().int(),
        polish_evaluations: z.number().int(),
        gradient_points_outside: z.number().int(),
        starts: z.number().int(),
        local_rounds: z.number().int(),
        best_before: figure,
        best_after: figure,
      })
      .nullish()
      .describe('After the trials (all algorithms but NSGA-II): random screening, a batched local search from the best and an SLSQP polish, each with its number of evaluations'),
    implied_equalities: z.array(z.string()).optional().describe('Constraints and bounds the constraints hold tight at every condition; the search ran in the region they leave'),
    seed: z.number().int(),
    seconds: z.number(),
    search_seconds: z.number(),
    evaluations_per_second: z.number().nullable(),
    model_seconds: z.number(),
    max_violation: figure,
    extrapolated_share: z.number(),
    objective: z.enum(['prediction', 'desirability']),
    targets: z.array(
      z.object({ name: z.string(), goal: z.enum(GOALS), value: z.number().nullable(), lower: z.number().nullable(), upper: z.number().nullable(), weight: z.number(), training_min: figure, training_max: figure }),
    ),
    features: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['range', 'discrete', 'categorical', 'fixed']),
        lower: z.number().nullable(),
        upper: z.number().nullable(),
        values: z.array(z.union([z.number(), z.string()])).nullable(),
        value: z.union([z.number(), z.string()]).nullable(),
        unit: z.string().nullable(),
        training_min: figure,
        training_max: figure,
      }),
    ),
    constraints: z.array(z.object({ name: z.string(), coefficients: z.record(z.string(), z.number()), operator: z.enum(['<=', '>=', '=']), value: z.number() })),
    best: z.array(bestCondition),
    convergence: z.array(z.object({ evaluation: z.number().int(), best: figure, value: figure })),
    pareto: z.array(candidate).describe('Non-dominated candidates (several targets only)'),
    trials: z.array(candidate).describe('The evaluations (a sample of at most 1000)'),
    profiles: z.record(z.string(), profile).describe('feature → profile'),
    sensitivity: z.record(z.string(), z.record(z.string(), figure)).describe('feature → target → spread of the prediction over the feature’s range'),
  })
  .meta({ id: 'OptimizationResult' });

/** A condition predicted by POST optimization/prediction. */
export const conditionPrediction = z
  .object({
    features: featureValues,
    predictions: byTarget,
    uncertainty: byTarget,
    extrapolation: z.array(z.string()),
    feasible: z.boolean(),
    constraints: z.record(z.string(), z.number()),
  })
  .meta({ id: 'OptimizationConditionPrediction' });
export const conditionPredictions = z.object({ predictions: z.array(conditionPrediction) });

export const runView = z
  .object({
    id: z.string(),
    algorithm: storedEnum(ALGORITHMS),
    job_id: z.string(),
    state: z.enum(['queued', 'running', 'done', 'failed']),
    progress: z.number(),
    message: z.string(),
    error: z.string().nullable(),
    best: bestCondition.nullable().describe('The best condition once done'),
    evaluations: z.number().nullable(),
    seconds: z.number().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'OptimizationRun' });

export const projectView = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    comment: z.string(),
    dataset_id: z.string(),
    dataset_name: z.string(),
    state: z.enum(['ready', 'running', 'done', 'failed']),
    models: z.array(z.object({ project_id: z.string(), model_key: z.string(), project_name: z.string(), algorithm: z.string(), target: z.string() })),
    targets: z.array(targetSetting),
    features: z.array(featureSetting),
    constraints: z.array(constraintSetting),
    algorithms: z.array(z.enum(ALGORITHMS)),
    n_trials: z.number(),
    seed: z.number(),
    forbid_extrapolation: z.boolean(),
    runs: z.array(runView),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'OptimizationProject' });

export const featureInfo = z
  .object({
    name: z.string(),
    kind: z.enum(['numeric', 'category']),
    min: z.number().nullable(),
    max: z.number().nullable(),
    mean: z.number().nullable(),
    levels: z.array(z.string()),
  })
  .meta({ id: 'OptimizationFeatureInfo' });

export const featuresStep = z
  .object({
    dataset_id: z.string(),
    dataset_name: z.string(),
    targets: z.array(z.object({ name: z.string(), min: z.number().nullable(), max: z.number().nullable(), model_key: z.string(), project_id: z.string() })),
    features: z.array(featureInfo),
  })
  .meta({ id: 'OptimizationFeaturesStep' });

export const predictionTask = z
  .object({
    id: z.string(),
    state: z.enum(['queued', 'running', 'done', 'failed']),
    progress: z.number(),
    error: z.string().nullable(),
    result: conditionPredictions.nullable().describe('Once done'),
  })
  .meta({ id: 'OptimizationPredictionTask' });

export const responses = {
  project: { 200: wrap(projectView), 201: wrap(projectView) },
  list: { 200: wrap(z.object({ items: z.array(projectView), total: z.number(), counts: z.record(z.string(), z.number()) }).meta({ id: 'OptimizationProjectPage' })) },
  features: { 200: wrap(featuresStep) },
  result: { 200: wrap(z.object({ run: runView, project_id: z.string(), result: optimizationResult.nullable().describe('null until the run is done') }).meta({ id: 'OptimizationRunResult' })) },
  task: { 200: wrap(predictionTask) },
  deleted: { 200: wrap(IdView) },
  csvFeatures: { 200: wrap(z.object({ features: z.array(featureSetting) })) },
};
