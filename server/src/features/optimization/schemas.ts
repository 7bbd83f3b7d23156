import { z } from 'zod';

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

const wrap = <T extends z.ZodType>(t: T) => z.object({ detail: z.object({ response: t }) });
const json = z.unknown();

export const runView = z.object({
  id: z.string(),
  algorithm: z.string(),
  job_id: z.string(),
  state: z.enum(['queued', 'running', 'done', 'failed']),
  progress: z.number(),
  message: z.string(),
  error: z.string().nullable(),
  best: json.describe('The best condition (features, predictions) once done'),
  evaluations: z.number().nullable(),
  seconds: z.number().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});

export const projectView = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  comment: z.string(),
  dataset_id: z.string(),
  dataset_name: z.string(),
  state: z.enum(['ready', 'running', 'done', 'failed']),
  models: z.array(z.object({ project_id: z.string(), model_key: z.string(), project_name: z.string(), algorithm: z.string(), target: z.string() })),
  targets: z.array(json),
  features: z.array(json),
  constraints: z.array(json),
  algorithms: z.array(z.string()),
  n_trials: z.number(),
  seed: z.number(),
  forbid_extrapolation: z.boolean(),
  runs: z.array(runView),
  created_at: z.string(),
  updated_at: z.string(),
});

export const featureInfo = z.object({
  name: z.string(),
  kind: z.enum(['numeric', 'category']),
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  levels: z.array(z.string()),
});

export const responses = {
  project: { 200: wrap(projectView), 201: wrap(projectView) },
  list: { 200: wrap(z.object({ items: z.array(projectView), total: z.number(), counts: z.record(z.string(), z.number()) })) },
  features: {
    200: wrap(z.object({ dataset_id: z.string(), dataset_name: z.string(), targets: z.array(z.object({ name: z.string(), min: z.number().nullable(), max: z.number().nullable(), model_key: z.string(), project_id: z.string() })), features: z.array(featureInfo) })),
  },
  result: { 200: wrap(z.object({ run: runView, project_id: z.string(), result: z.record(z.string(), json) })) },
  task: { 200: wrap(z.object({ id: z.string(), state: z.string(), progress: z.number(), error: z.string().nullable(), result: json })) },
  deleted: { 200: wrap(z.object({ id: z.string() })) },
  csvFeatures: { 200: wrap(z.object({ features: z.array(featureSetting) })) },
};
