import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { engineErrorText as sayEngineError, type Wording } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import { jobProgress } from '../../jobs/progress.js';
import type { ColumnInfo } from '../datasets/column-stats.js';
import type { SupervisedManifest } from '../training/stored.js';
import { decimalsOk } from '@mitate/rules';
import type { OptimizationRunTable } from './db.js';
import { engineErrors, M } from './messages.js';
import { optimizeJob } from './jobs.js';
import type { Settings } from './schemas.js';

// The area's rules that need neither the database nor the engine.

export const SUBJECT = 'optimization_run';
export const CHECK_TIMEOUT_MS = 120_000;
export const REGRESSION_TYPES = ['regression', 'soft_sensor'];


export interface ResolvedModel {
  project_id: string;
  project_name: string;
  model_key: string;
  algorithm: string;
  target: string;
  dataset_id: string;
  dir: string;
  /** its manifest.json, as training declares it */
  manifest: SupervisedManifest;
}

type RunState = 'queued' | 'running' | 'done' | 'failed';
export const now = () => new Date().toISOString();
export const runState = (job?: JobView): RunState =>
  !job ? 'failed' : job.state === 'succeeded' ? 'done' : job.state === 'failed' || job.state === 'cancelled' ? 'failed' : job.state === 'running' ? 'running' : 'queued';

/** How optimization words the engine's errors (its own codes in engineErrors first): a list as quoted names
 * ("a", "b" / 「a」、「b」), any other value as it is (a missing one as nothing). */
export const optimizationWording: Wording = {
  param: (v, lang) => (Array.isArray(v) ? v.map((x) => (lang === 'ja' ? `「${x}」` : `"${x}"`)).join(lang === 'ja' ? '、' : ', ') : String(v ?? '')),
};

/** An engine error {code, params, message} said in the reader's language when its code is known. */
export const engineErrorText = (error: string | null, lang: Lang): string | null => (error ? sayEngineError(error, lang, engineErrors, optimizationWording) : null);

/** Every decimal input of the settings: at most 7 digits after the point (SPEC §5, §9). */
export function checkDecimals(s: Settings): void {
  const fields: [string, unknown][] = [];
  s.targets.forEach((t) => fields.push([`${t.name}`, t.value], [`${t.name}`, t.lower], [`${t.name}`, t.upper], [`${t.name}`, t.weight]));
  s.features.forEach((f) => {
    fields.push([f.name, f.lower], [f.name, f.upper], [f.name, f.value]);
    (f.values ?? []).forEach((v) => fields.push([f.name, v]));
  });
  s.constraints.forEach((c, i) => {
    fields.push([c.name || `constraint ${i + 1}`, c.value]);
    Object.values(c.coefficients ?? {}).forEach((v) => fields.push([c.name || `constraint ${i + 1}`, v]));
  });
  for (const [field, v] of fields) {
    if ((typeof v === 'number' || typeof v === 'string') && !decimalsOk(v)) throw new AppError(422, M.decimals, { field }, field);
  }
}

/** SPEC §5 'Optimization' rules that need no engine: targets unique, each with a goal, never a feature. */
export function checkTargets(models: ResolvedModel[], s: Settings): void {
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m.target)) throw new AppError(422, M.duplicateTarget, { target: m.target }, 'models');
    seen.add(m.target);
  }
  const named = new Set<string>();
  for (const t of s.targets) {
    if (named.has(t.name)) throw new AppError(422, M.duplicateTarget, { target: t.name }, 'targets');
    named.add(t.name);
    if (!seen.has(t.name)) throw new AppError(422, M.targetUnknown, { target: t.name }, 'targets');
  }
  for (const target of seen) if (!named.has(target)) throw new AppError(422, M.targetGoal, { target }, 'targets');
  const features = new Set(models.flatMap((m) => m.manifest.features));
  for (const f of s.features) if (seen.has(f.name)) throw new AppError(422, M.targetInFeatures, { target: f.name }, 'features');
  for (const target of seen) if (features.has(target)) throw new AppError(422, M.targetInFeatures, { target }, 'features');
}

/** The engine's spec for the models and settings, over the training dataset's Parquet file. */
export function engineSpec(models: ResolvedModel[], s: Settings, datasetParquet: string) {
  return {
    // candidates are set in the units of the training dataset's columns, which already carry its condition,
    // so no condition is applied again here (condition_path stays null; README, Optimisation)
    models: models.map((m) => ({ key: `${m.project_name}/${m.model_key}`, path: path.join(m.dir, 'model.joblib'), condition_path: null })),
    parquet: datasetParquet,
    targets: s.targets,
    features: s.features.map((f) => ({ ...f, unit: f.unit || undefined })),
    constraints: s.constraints,
    n_trials: s.n_trials,
    seed: s.seed,
    forbid_extrapolation: s.forbid_extrapolation,
  };
}


export function runView(r: OptimizationRunTable, job: JobView | undefined, lang: Lang) {
  const state = runState(job);
  const result = state === 'done' && job ? optimizeJob.resultOf(job) : null;
  return {
    id: r.id,
    algorithm: r.algorithm,
    job_id: r.job_id,
    state,
    ...jobProgress(job),
    error: state === 'failed' ? (engineErrorText(job?.error ?? null, lang) ?? 'The job no longer exists.') : null,
    best: result?.best?.[0] ?? null,
    evaluations: result?.evaluations ?? null,
    seconds: result?.seconds ?? null,
    created_at: r.created_at,
    finished_at: job?.finished_at ?? null,
  };
}


/** A dataset's columns as a feature-settings template with their ranges (CSV). */
export function featureTemplate(stats: ColumnInfo[]): string {
  const esc = (v: unknown) => (v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  const lines = ['name,kind,lower,upper,values,unit', ...stats.map((c) => [c.name, ['integer', 'float'].includes(c.type) ? 'range' : 'fixed', c.min, c.max, '', ''].map(esc).join(','))];
  return `${lines.join('\n')}\n`;
}
