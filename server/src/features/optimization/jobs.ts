import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { conditionPredictions, optimizationResult } from './schemas.js';

/** What every optimisation task reads: the models (saved pipelines) and the dataset their ranges come from. */
const optimizeSpec = jobSpec({
  models: z.array(z.looseObject({ key: z.string(), path: z.string(), condition_path: z.string().nullable() })),
  parquet: z.string(),
  targets: z.array(z.unknown()),
  features: z.array(z.unknown()),
  lang: jobLang,
});

/** tasks/optimize.py: one algorithm's search for the best conditions. */
export const optimizeJob = jobKind('optimize', { spec: optimizeSpec, result: optimizationResult });

/** tasks/optimize_check.py: the engine builds the problem (its rules, constraint feasibility) before anything is stored. */
export const optimizeCheckJob = jobKind('optimize_check', {
  spec: optimizeSpec,
  result: z
    .object({ features: z.array(z.string()), targets: z.array(z.string()), range_features: z.array(z.string()), center: z.record(z.string(), z.number()) })
    .meta({ id: 'OptimizeCheckJobResult' }),
});

/** tasks/optimize_predict.py: the models' predictions for conditions the user entered. */
export const optimizePredictJob = jobKind('optimize_predict', { spec: optimizeSpec.extend({ conditions: z.array(z.unknown()) }), result: conditionPredictions });
