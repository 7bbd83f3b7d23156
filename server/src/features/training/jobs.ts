import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { CrossValidation, Evaluation, Metrics } from './responses.js';

const scalars = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]));

/** One model of a training job (tasks/train.py, tsad_train.py): done with its figures, or failed with its reason. */
export const modelOutcome = <M extends z.ZodType>(metrics: M) =>
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

/** The models a training job trains: each with its key, algorithm and parameters. */
// params: absent means the algorithm's defaults (the engine reads `m.get("params") or {}`); the server always sends them.
export const modelsSpec = z.array(z.looseObject({ key: z.string(), algorithm: z.string(), params: z.record(z.string(), z.unknown()).optional() }));

const TrainJobSpec = jobSpec({ project_type: z.string(), parquet: z.string(), target: z.unknown(), features: z.array(z.string()), models: modelsSpec, lang: jobLang });

/** tasks/train.py: the models of a tabular project. */
export const trainJob = jobKind('train', {
  spec: TrainJobSpec,
  result: z.object({ models: z.array(modelOutcome(Metrics)), train_rows: z.number().int(), test_rows: z.number().int(), seconds: z.number() }).meta({ id: 'TrainJobResult' }),
});

/** tasks/tune_helper.py: auto-tune trials of a train job run on another worker (the train job's spec, shared study). */
export const tuneHelperJob = jobKind('tune_helper', {
  spec: TrainJobSpec,
  result: z
    .object({ trials: z.record(z.string(), z.number().int()).describe('model key → trials run on this worker'), total: z.number().int() })
    .meta({ id: 'TuneHelperJobResult' }),
});
