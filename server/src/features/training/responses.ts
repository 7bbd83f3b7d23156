import { z } from 'zod';
import { EngineJson, page } from '../../http/responses.js';

/** Answers of the training calls. Metrics, CV figures and reports are the engine's (EngineJson). */

export const TrainingModel = z
  // Loose: the engine adds evaluation details (repeated CV, small-test flags) a client may read but need not know.
  .looseObject({
    id: z.string(),
    model_key: z.string(),
    model_name: z.string(),
    model_index: z.number(),
    algorithm: z.string(),
    params: EngineJson.describe('The hyper-parameters asked for'),
    hyperparameters: EngineJson.describe('The hyper-parameters used (after auto-tune)'),
    cv: EngineJson,
    seconds: EngineJson,
    pending: z.boolean().describe('Trained and usable; cross-validation and importances are still being computed'),
    state: z.string().describe('ready, training, done or failed'),
    metrics: z.record(z.string(), z.unknown()).nullable(),
    error: z.string().nullable(),
    log: z.string().nullable(),
    trained_at: z.string().nullable(),
  })
  .meta({ id: 'TrainingModel' });

export const TrainingProject = z
  .looseObject({
    project_id: z.string(),
    id: z.string(),
    name: z.string(),
    project_type: z.string(),
    training_state: z.string().describe('ready, training, done or failed'),
    dataset_id: z.string(),
    parent_dataset_name: z.string(),
    number_of_data: z.number(),
    target_variables: z.array(z.string()),
    feature_variables: EngineJson,
    split_ratio: EngineJson,
    split_time: EngineJson,
    cross_validation: EngineJson,
    significance_level: EngineJson,
    number_of_trials: EngineJson,
    auto_tune: EngineJson,
    balance_data: EngineJson,
    variance_threshold: EngineJson,
    lags: EngineJson,
    windows: EngineJson,
    datetime_column: EngineJson,
    models: z.array(TrainingModel),
    best_model_key: z.string().nullable(),
    best_model_basis: z.string().describe('What chose the best model: cross_validation, forward_validation, silhouette or trustworthiness'),
    evaluation: z.enum(['holdout', 'cv_only']).describe('holdout: a test set was kept; cv_only: every row trained, metrics out of fold'),
    models_done: z.number(),
    models_failed: z.number(),
    job: z
      .object({ id: z.string(), state: z.string(), progress: z.number(), message: z.string(), error: z.string().nullable(), started_at: z.string().nullable(), finished_at: z.string().nullable() })
      .nullable(),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'TrainingProject' });

export const TrainingProjectPage = page(TrainingProject);
export const Catalogue = z.object({ types: z.array(z.object({ type: z.string(), prefix: z.string(), supervised: z.boolean(), algorithms: EngineJson })) });
export const ProjectConfigView = z.object({ project: TrainingProject, algorithms: EngineJson });
export const ModelReport = z.object({ project: TrainingProject, model: TrainingModel, report: EngineJson.describe('report.json of the model (engine task train)') });
