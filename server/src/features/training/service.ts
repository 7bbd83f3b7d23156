import { paramDecimalsOk } from '@mitate/rules';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { JobView } from '../../jobs/service.js';
import { ident, readParquet, withConnection } from '../../duck/index.js';
import { datasetKey, type DatasetService } from '../datasets/service.js';
import { datasetStats } from '../datasets/stored.js';
import type { TrainingModelTable, TrainingProjectTable } from './db.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import { M } from './messages.js';
import { type RunService, TUNE_HELPER_SUBJECT } from './runs.js';
import { readTrainingReport, type TrainingModelView, type TrainingProjectView } from './responses.js';
import type { ProjectFields } from './schemas.js';
import { algorithmName, catalogueText, catalogueWord, isTabular, localAlgorithms, paramLabels, type ProjectType, TYPES } from './types.js';
import { trainJob, tuneHelperJob } from './jobs.js';
import { reportFile } from './report-file.js';
import { type Catalogue, modelMetrics, modelParams, modelSummary, type ProjectConfig, projectConfig, readCatalogue, tabularConfig } from './stored.js';

export type { ProjectConfig } from './stored.js';
export { TUNE_HELPER_SUBJECT };

/**
 * How many helper jobs share a training job's auto-tune trials: only on PostgreSQL (Optuna's RDB storage lives there)
 * and when more than one worker can take jobs; MITATE_TUNE_HELPERS caps it (0 turns sharing off). Default: workers − 1.
 */
export function tuneHelpers(ctx: AppContext): number {
  if (ctx.dialect !== 'postgres' || !ctx.config.databaseUrl) return 0;
  if (ctx.config.tuneHelpers !== undefined) return ctx.config.tuneHelpers;
  // the local pool's size is known; BullMQ workers on other hosts are not, so there it is opt-in
  return ctx.jobs.mode === 'local' ? Math.max(0, ctx.config.workers - 1) : 0;
}

/** The database URL as SQLAlchemy (psycopg 3) wants it, on the server's own schema. */
export function optunaStorageUrl(ctx: AppContext): string {
  const url = new URL(ctx.config.databaseUrl!);
  url.protocol = 'postgresql+psycopg:';
  if (ctx.pgSchema) url.searchParams.set('options', `-csearch_path=${ctx.pgSchema}`);
  return url.toString();
}

/** Validation of the wizard's fields against the dataset, before anything is stored or queued. */
export function validateProject(catalogue: Catalogue, type: ProjectType, f: ProjectFields, dataset: DatasetTable): ProjectConfig {
  const info = TYPES[type];
  const stats = dataset.stats_json ? datasetStats(dataset) : [];
  const byName = new Map(stats.map((c) => [c.name, c]));
  const target = f.target_variables[0] ?? null;
  if (!f.models.length) throw new AppError(422, M.noModels, {}, 'models');
  if (info.supervised && !target) throw new AppError(422, M.noTarget, {}, 'target_variables');
  if (!f.feature_variables.length) throw new AppError(422, M.noFeatures, {}, 'feature_variables');
  let folds: 'default' | number = 'default';
  if (f.cross_validation !== 'default') {
    const n = Number(f.cross_validation);
    if (!Number.isInteger(n) || n < 2) throw new AppError(422, M.folds, {}, 'cross_validation');
    folds = n;
  }
  for (const c of [...f.feature_variables, ...(target ? [target] : [])]) {
    if (!byName.has(c)) throw new AppError(422, M.unknownColumn, { column: c }, c === target ? 'target_variables' : 'feature_variables');
  }
  if (target && f.feature_variables.includes(target)) throw new AppError(422, M.targetInFeatures, { column: target }, 'feature_variables');
  if (new Set(f.feature_variables).size !== f.feature_variables.length) throw new AppError(422, M.noFeatures, {}, 'feature_variables');
  for (const c of f.feature_variables) {
    const col = byName.get(c)!;
    if (col.type === 'datetime' || col.type === 'date') throw new AppError(422, M.datetimeFeature, { column: c }, 'feature_variables');
    if ((col.count ?? 1) === 0) throw new AppError(422, M.emptyColumn, { column: c }, 'feature_variables');
    if ((col.unique ?? 2) <= 1) throw new AppError(422, M.constantColumn, { column: c }, 'feature_variables');
  }
  if (target && (type === 'regression' || type === 'soft_sensor')) {
    const col = byName.get(target)!;
    if (col.type !== 'integer' && col.type !== 'float') {
      throw new AppError(422, M.targetNotNumeric, { column: target, type: catalogueWord(`ml_type_${type}`) }, 'target_variables');
    }
    if ((col.unique ?? 2) <= 1) throw new AppError(422, M.constantColumn, { column: target }, 'target_variables');
  }
  if (Number(dataset.row_count) < 10) throw new AppError(422, M.tooFewRows, { count: Number(dataset.row_count) }, 'dataset');
  if (f.split_time && !dataset.datetime_column) throw new AppError(422, M.splitTime, {}, 'split_time');
  const evaluation = f.evaluation ?? 'holdout';
  if (evaluation === 'cv_only') {
    if (type !== 'regression' && type !== 'discriminant_analysis') throw new AppError(422, M.cvOnlyType, {}, 'evaluation');
    if (Number(dataset.row_count) > CV_ONLY_MAX_ROWS) throw new AppError(422, M.cvOnlyTooLarge, { max: CV_ONLY_MAX_ROWS, rows: Number(dataset.row_count) }, 'evaluation');
  }
  const algos = new Map(catalogue[type].map((a) => [a.key, a]));
  for (const m of f.models) {
    const a = algos.get(m.algorithm);
    if (!a) throw new AppError(422, M.unknownAlgorithm, { algorithm: m.algorithm }, 'models');
    for (const [k, v] of Object.entries(m.params ?? {})) {
      const p = a.params.find((x) => x.name === k);
      // the algorithm and the parameter are named in the reader's language (catalogue words)
      const named = { algorithm: catalogueWord(a.name_key), param: p ? catalogueWord(p.label_key) : k };
      const bad = (text: LocalText, values: Record<string, string | number> = {}) => new AppError(422, text, { ...named, ...values }, 'models');
      if (!p) throw bad(M.paramUnknown);
      if (v === null || v === '') continue;
      if (p.kind === 'int' || p.kind === 'float') {
        const n = typeof v === 'number' ? v : Number(v);
        if (!Number.isFinite(n)) throw bad(M.paramNotNumber);
        if (p.kind === 'int' && !Number.isInteger(n)) throw bad(M.paramNotWhole);
        if (p.low !== undefined && n < p.low && !(p.name === 'max_depth' && n === 0)) throw bad(M.paramTooLow, { low: p.low });
        if (!paramDecimalsOk(n)) throw bad(M.paramDecimals);
      } else if (p.kind === 'choice' && !(p.choices ?? []).map(String).includes(String(v))) {
        throw bad(M.paramChoice, { choices: (p.choices ?? []).join(', ') });
      }
    }
  }
  return {
    target,
    features: f.feature_variables,
    split_ratio: f.split_ratio,
    split_time: type === 'soft_sensor' ? (f.split_time ?? null) : null,
    cv_folds: folds,
    significance_level: f.significance_level,
    n_trials: f.number_of_trials,
    auto_tune: f.auto_tune,
    balance: type === 'discriminant_analysis' ? f.balance_data : false,
    variance_threshold: f.variance_threshold,
    lags: type === 'soft_sensor' ? f.lags : [],
    windows: type === 'soft_sensor' ? f.windows : [],
    datetime_column: dataset.datetime_column,
    evaluation,
  };
}

/** Cross-validation-only evaluation is offered for small tables, where a hold-out test set would be a handful of rows. */
export const CV_ONLY_MAX_ROWS = 2000;


/** What the training service uses of other services (built once at start-up, services.ts). */
export interface TrainingDeps {
  datasets: DatasetService;
  runs: RunService;
}

/** A file of a model's run folder: 409 while the model is not trained, 404 when the engine wrote no such file. */
function trainedFile(m: TrainingModelTable, dir: string | null, name: string): string {
  if (m.state !== 'done' || !dir) throw new AppError(409, M.modelNotTrained, { model: m.model_key });
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) throw new AppError(404, M.reportMissing);
  return file;
}

/** `deps` are the services built at start-up (services.ts). */
export function makeTrainingService(ctx: AppContext, deps: TrainingDeps) {
  const { storage, jobs, duckdb } = ctx;
  const { datasets, runs } = deps;
  // The engine's algorithm catalogue (MITATE_ML_CATALOGUE), read once for this app.
  const catalogue = readCatalogue(ctx.config.mlCatalogue);

  async function getProject(auth: AuthContext, id: string, type?: ProjectType): Promise<TrainingProjectTable> {
    const row = await runs.find(auth.orgId, id);
    if (!row) throw new AppError(404, M.projectNotFound);
    if (type && row.project_type !== type) throw new AppError(404, M.projectNotFound);
    return row;
  }

  const modelsOf = (orgId: string, projectId: string) => runs.modelsOf(orgId, projectId);

  async function getModel(auth: AuthContext, projectId: string, key: string): Promise<TrainingModelTable> {
    const row = await runs.findModel(auth.orgId, projectId, key, true);
    if (!row) throw new AppError(404, M.modelNotFound);
    return row;
  }

  async function view(auth: AuthContext, p: TrainingProjectTable) {
    const [models, job] = await Promise.all([modelsOf(auth.orgId, p.id), p.job_id ? jobs.get(auth.orgId, p.job_id) : undefined]);
    return projectView(p, models, job);
  }

  function runDir(m: TrainingModelTable): string | null {
    return m.run_key ? storage.pathOf(`${m.run_key}/${m.model_key}`) : null;
  }

  function conditionPath(orgId: string, datasetId: string): string | null {
    const key = `${datasetKey(orgId, datasetId)}/condition.json`;
    return storage.exists(key) ? storage.pathOf(key) : null;
  }

  /** A model's report.json, with the model row's summary; the algorithm's name and parameter labels in `lang`. */
  async function report(auth: AuthContext, projectId: string, key: string, lang: Lang = 'en') {
    const p = await getProject(auth, projectId);
    const m = await getModel(auth, projectId, key);
    const file = trainedFile(m, runDir(m), 'report.json');
    const report = readTrainingReport(await fs.promises.readFile(file, 'utf8')); // the engine's report.json (ml/trainer.py)
    if (!isTabular(p.project_type)) return { project: projectView(p, await modelsOf(auth.orgId, projectId)), model: modelView(m), report };
    report.label = algorithmName(catalogue, m.algorithm, lang);
    report.param_labels = paramLabels(catalogue, p.project_type, m.algorithm, lang);
    // the model carries its name too: the page's breadcrumb calls it by that rather than its key
    return { project: projectView(p, await modelsOf(auth.orgId, projectId)), model: { ...modelView(m), label: report.label }, report };
  }

  return {
    getProject,
    getModel,
    modelsOf,
    /** The organisation's trained models with their project, newest first. */
    trainedModels: (auth: Pick<AuthContext, 'orgId'>) => runs.trainedModels(auth.orgId),
    view,
    projectView,
    runDir,
    conditionPath,
    /** The algorithms of a type as the wizard shows them, in `lang`. */
    algorithms: (type: ProjectType, lang: Lang) => localAlgorithms(catalogue, type, lang),
    /** Installed once at start-up (services.ts): model rows follow the tabular training job's events. */
    installJobHandlers: () => runs.installModelEventHandlers(trainJob),

    async register(auth: AuthContext, type: ProjectType, datasetId: string, f: ProjectFields) {
      const dataset = await datasets.getRow(auth, datasetId);
      const cfg = validateProject(catalogue, type, f, dataset);
      if (type === 'discriminant_analysis' && cfg.target) await checkClasses({ duckdb, datasets }, dataset, cfg.target);
      const project = await runs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        type,
        name: f.name,
        dataset,
        numberOfData: Number(dataset.row_count),
        config: cfg,
        models: f.models,
      });
      return projectView(project, await modelsOf(auth.orgId, project.id));
    },

    async update(auth: AuthContext, id: string, f: Partial<ProjectFields>) {
      const p = await getProject(auth, id);
      const current = projectView(p, await modelsOf(auth.orgId, id), p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined);
      const onlyName = Object.keys(f).every((k) => k === 'name');
      if (!onlyName && current.training_state === 'training') throw new AppError(409, M.training);
      if (onlyName) {
        if (f.name) await runs.rename(auth.orgId, id, f.name);
        return view(auth, await getProject(auth, id));
      }
      const models = await modelsOf(auth.orgId, id);
      const merged = mergedFields(p, models, f);
      const dataset = await datasets.getRow(auth, p.dataset_id);
      const cfg = validateProject(catalogue, p.project_type as ProjectType, merged, dataset);
      if (p.project_type === 'discriminant_analysis' && cfg.target) await checkClasses({ duckdb, datasets }, dataset, cfg.target);
      await runs.replaceSettings(auth.orgId, id, merged.name, cfg, f.models ?? null);
      return view(auth, await getProject(auth, id));
    },

    /** Queues one job that trains every model of the project (or the chosen ones); a second call joins it. */
    async train(auth: AuthContext, id: string, modelKeys?: string[], lang: Lang = 'en') {
      const p = await getProject(auth, id);
      // time-series projects train through their own job kind (timeseries/train/model)
      if (!(p.project_type in TYPES)) throw new AppError(409, M.wrongType, { type: p.project_type });
      const current = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
      if (current && (current.state === 'queued' || current.state === 'running')) return view(auth, p);
      const dataset = await datasets.getRow(auth, p.dataset_id);
      const cfg = tabularConfig(p);
      let models = await modelsOf(auth.orgId, id);
      if (modelKeys?.length) models = models.filter((m) => modelKeys.includes(m.model_key));
      if (!models.length) throw new AppError(422, M.noModels, {}, 'model_keys');
      const runKey = runs.newRunKey(auth.orgId, id);
      const helpers = cfg.auto_tune ? tuneHelpers(ctx) : 0;
      const tuneShared = helpers ? { storage: optunaStorageUrl(ctx), study: path.posix.basename(runKey) } : undefined;
      const spec = trainSpec(catalogue, p, cfg, models, { parquet: datasets.parquetPath(dataset), conditionPath: conditionPath(auth.orgId, dataset.id), runKey, outputDir: storage.pathOf(runKey), lang, timeBudget: ctx.config.trainTimeBudgetS, tuneShared });
      const main = await runs.start(auth, id, { kind: trainJob, runKey, modelKeys: models.map((m) => m.model_key), spec });
      // Auto-tune trials of this job also run on other workers (PostgreSQL: Optuna's RDB storage); queued after the
      // main job, so a helper never holds the only free worker while the main job waits.
      for (let i = 0; i < helpers; i++) {
        await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: tuneHelperJob, subjectType: TUNE_HELPER_SUBJECT, subjectId: main.id, spec: { ...spec, output_dir: undefined } });
      }
      return view(auth, await getProject(auth, id));
    },

    report,
    /** The report as a file to download (report-file.ts); `type` as getProject checks it. */
    async reportFile(auth: AuthContext, projectId: string, key: string, lang: Lang, format: 'html' | 'pdf', type?: ProjectType) {
      await getProject(auth, projectId, type);
      return reportFile(await report(auth, projectId, key, lang), lang, format);
    },

    /** A trained model's zip to download (the engine writes model.zip beside its report); `type` as getProject checks it. */
    async modelZip(auth: AuthContext, projectId: string, name: string, index: number, type?: ProjectType) {
      const p = await getProject(auth, projectId, type);
      const m = await getModel(auth, p.id, `${index}_${name}`);
      return { file: trainedFile(m, runDir(m), 'model.zip'), name: `${p.name}-${m.model_key}.zip` };
    },

    async remove(auth: AuthContext, id: string, type?: ProjectType) {
      return runs.remove(auth, await getProject(auth, id, type));
    },

    async list(auth: AuthContext, q: { query: string; project_type?: string; page: number; page_size: number }) {
      const { rows, total } = await runs.list(auth.orgId, q);
      const items = await Promise.all(rows.map((p) => view(auth, p)));
      return { items, total };
    },
  };
}

export type TrainingService = ReturnType<typeof makeTrainingService>;

/** A project as the pages and the API show it, with its models and its job. */
export function projectView(p: TrainingProjectTable, models: TrainingModelTable[], job?: JobView): TrainingProjectView {
  const cfg = projectConfig(p);
  const active = job && (job.state === 'queued' || job.state === 'running');
  const done = models.filter((m) => m.state === 'done').length;
  const failed = models.filter((m) => m.state === 'failed').length;
  const state = active ? 'training' : done ? 'done' : failed || (job && job.state === 'failed') ? 'failed' : 'ready';
  const best = bestModel(p.project_type as ProjectType, models);
  return {
    project_id: p.id,
    id: p.id,
    name: p.name,
    project_type: p.project_type,
    training_state: state,
    dataset_id: p.dataset_id,
    parent_dataset_name: p.dataset_name,
    number_of_data: Number(p.number_of_data),
    // image projects keep none of the tabular settings, time-series ones some: absent settings are empty or null
    target_variables: cfg.target ? [cfg.target] : [],
    feature_variables: cfg.features ?? [],
    split_ratio: cfg.split_ratio ?? null,
    split_time: cfg.split_time ?? null,
    cross_validation: cfg.cv_folds ?? null,
    evaluation: cfg.evaluation ?? 'holdout',
    significance_level: cfg.significance_level ?? null,
    number_of_trials: cfg.n_trials ?? null,
    auto_tune: cfg.auto_tune ?? null,
    balance_data: cfg.balance ?? null,
    variance_threshold: cfg.variance_threshold ?? null,
    lags: cfg.lags ?? [],
    windows: (cfg.windows ?? []) as (number | string)[],
    datetime_column: cfg.datetime_column ?? null,
    models: models.map(modelView),
    best_model_key: best?.model_key ?? null,
    /** what chose best_model_key (never the test score) */
    best_model_basis: selectionBasis(p.project_type as ProjectType),
    models_done: done,
    models_failed: failed,
    job: job
      ? { id: job.id, state: job.state, progress: job.progress, message: job.message, error: job.error, started_at: job.started_at, finished_at: job.finished_at }
      : null,
    error: state === 'failed' ? p.error : null,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}


/** Discriminant analysis: classes are counted in DuckDB on the Parquet file, before a job starts. */
async function checkClasses({ duckdb, datasets }: { duckdb: AppContext['duckdb']; datasets: DatasetService }, dataset: DatasetTable, target: string): Promise<void> {
  await withConnection(duckdb, async (c) => {
    const file = datasets.parquetPath(dataset);
    const r = await c.runAndReadAll(`SELECT CAST(${ident(target)} AS VARCHAR) AS v, COUNT(*) AS n FROM ${readParquet(file)} WHERE ${ident(target)} IS NOT NULL GROUP BY 1 ORDER BY 2, 1`);
    const rows = r.getRowObjectsJson() as { v: string; n: string | number }[];
    if (rows.length < 2) throw new AppError(422, M.singleClass, { column: target }, 'target_variables');
    if (rows.length > 100) throw new AppError(422, M.tooManyClasses, { column: target, count: rows.length }, 'target_variables');
    const single = rows.find((x) => Number(x.n) < 2);
    if (single) throw new AppError(422, M.singleRowClass, { column: target, value: single.v }, 'target_variables');
  });
}


/** A project's fields with the changes asked for: the settings stored and the models' stay where nothing is asked. */
function mergedFields(p: TrainingProjectTable, models: TrainingModelTable[], f: Partial<ProjectFields>): ProjectFields {
  const cfg0 = tabularConfig(p);
  return {
    name: f.name ?? p.name,
    target_variables: f.target_variables ?? (cfg0.target ? [cfg0.target] : []),
    feature_variables: f.feature_variables ?? cfg0.features,
    split_ratio: f.split_ratio ?? cfg0.split_ratio,
    split_time: f.split_time ?? cfg0.split_time,
    cross_validation: f.cross_validation ?? cfg0.cv_folds,
    evaluation: f.evaluation ?? cfg0.evaluation ?? 'holdout',
    significance_level: f.significance_level ?? cfg0.significance_level,
    number_of_trials: f.number_of_trials ?? cfg0.n_trials,
    auto_tune: f.auto_tune ?? cfg0.auto_tune,
    balance_data: f.balance_data ?? cfg0.balance,
    variance_threshold: f.variance_threshold ?? cfg0.variance_threshold,
    lags: f.lags ?? cfg0.lags,
    windows: f.windows ?? cfg0.windows,
    models: f.models ?? models.map((m) => ({ algorithm: m.algorithm, params: modelParams(m) })),
  };
}

/** The `train` job's spec: the project's settings and the models to train, with where the data are and the run goes. */
function trainSpec(
  catalogue: Catalogue,
  p: TrainingProjectTable,
  cfg: ProjectConfig,
  models: TrainingModelTable[],
  where: { parquet: string; conditionPath: string | null; runKey: string; outputDir: string; lang: Lang; timeBudget: number | null; tuneShared?: { storage: string; study: string } },
) {
  const algorithms = new Map(catalogue[p.project_type as ProjectType].map((a) => [a.key, a]));
  return {
    ...(where.tuneShared ? { tune_shared: where.tuneShared } : {}),
    project_type: p.project_type,
    project_name: p.name,
    parquet: where.parquet,
    condition_path: where.conditionPath,
    target: cfg.target,
    features: cfg.features,
    datetime_column: cfg.datetime_column,
    split_ratio: cfg.split_ratio,
    split_time: cfg.split_time,
    cv_folds: cfg.cv_folds,
    evaluation: cfg.evaluation ?? 'holdout',
    auto_tune: cfg.auto_tune,
    n_trials: cfg.n_trials,
    balance: cfg.balance,
    variance_threshold: cfg.variance_threshold,
    significance_level: cfg.significance_level,
    lags: cfg.lags,
    windows: cfg.windows,
    time_budget: where.timeBudget, // MITATE_TRAIN_TIME_BUDGET: seconds of auto-tune per model at most
    output_dir: where.outputDir,
    run_key: where.runKey, lang: where.lang, // lang: the language of the person starting the job; the engine says its progress in it
    models: models.map((m) => ({ key: m.model_key, algorithm: m.algorithm, label: catalogueText(algorithms.get(m.algorithm)?.name_key ?? m.algorithm, 'en'), params: modelParams(m) })),
  };
}

export function modelView(m: TrainingModelTable): TrainingModelView {
  // written by the job's model events (routes.ts): the engine's cv, evaluation, hyper-parameters and seconds
  const summary = modelSummary(m);
  return {
    id: m.id,
    model_key: m.model_key,
    model_name: m.algorithm,
    model_index: m.model_index,
    algorithm: m.algorithm,
    params: modelParams(m),
    hyperparameters: summary.hyperparameters ?? null,
    cv: summary.cv ?? null,
    /** hold-out or cross-validation only, small test set, and which score is the headline (repeated CV when small) */
    evaluation: summary.evaluation ?? null,
    seconds: summary.seconds ?? null,
    /** trained and usable; cross-validation and importances are still being computed */
    pending: !!summary.pending,
    state: m.state as TrainingModelView['state'],
    metrics: modelMetrics(m),
    error: m.error,
    log: m.state === 'failed' ? m.log : null,
    trained_at: m.trained_at,
  };
}

/**
 * What chooses the best model of a type. Supervised models are chosen on validation (cross-validated mean; a soft
 * sensor's pooled forward-validation Q²), never on the test set: the test score stays the untouched estimate of the
 * chosen model. Unsupervised ones have no test set; their own score on the training rows decides.
 */
export function selectionBasis(type: ProjectType): 'cross_validation' | 'forward_validation' | 'silhouette' | 'trustworthiness' {
  if (type === 'clustering') return 'silhouette';
  if (type === 'dimensional_compression') return 'trustworthiness';
  return type === 'soft_sensor' ? 'forward_validation' : 'cross_validation';
}

/** The score that chooses a finished model (see selectionBasis), or null while it is unknown (validation pending). */
export function selectionScore(type: ProjectType, m: TrainingModelTable): number | null {
  if (m.state !== 'done') return null;
  const basis = selectionBasis(type);
  const v =
    basis === 'silhouette' || basis === 'trustworthiness'
      ? (modelMetrics(m) ?? {})[basis]
      : modelSummary(m).cv?.mean;
  return v == null || !Number.isFinite(Number(v)) ? null : Number(v);
}

/** The model a person would pick first: the highest selection score among the finished ones. */
export function bestModel(type: ProjectType, models: TrainingModelTable[]) {
  let best: TrainingModelTable | undefined;
  let score = -Infinity;
  for (const m of models) {
    const v = selectionScore(type, m);
    if (v != null && v > score) {
      score = v;
      best = m;
    }
  }
  return best;
}


