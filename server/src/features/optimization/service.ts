import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import type { ColumnInfo } from '../datasets/column-stats.js';
import type { DatasetService } from '../datasets/service.js';
import { decimalsOk } from '@mitate/rules';
import type { TrainingService } from '../training/service.js';
import type { OptimizationProjectTable, OptimizationRunTable } from './db.js';
import './db.js';
import { engineErrors, M } from './messages.js';
import { optimizeCheckJob, optimizeJob, optimizePredictJob } from './jobs.js';
import type { SpecOf } from '../../jobs/kind.js';
import { type RegisterBody, type Settings } from './schemas.js';

const SUBJECT = 'optimization_run';
const CHECK_TIMEOUT_MS = 120_000;
const REGRESSION_TYPES = ['regression', 'soft_sensor'];

interface Manifest {
  project_type: string;
  target: string;
  features: string[];
  model_columns: Record<string, string>;
  categories: Record<string, string[]>;
}

export interface ResolvedModel {
  project_id: string;
  project_name: string;
  model_key: string;
  algorithm: string;
  target: string;
  dataset_id: string;
  dir: string;
  manifest: Manifest;
}

type RunState = 'queued' | 'running' | 'done' | 'failed';
const now = () => new Date().toISOString();
const runState = (job?: JobView): RunState =>
  !job ? 'failed' : job.state === 'succeeded' ? 'done' : job.state === 'failed' || job.state === 'cancelled' ? 'failed' : job.state === 'running' ? 'running' : 'queued';

/** An engine error {code, params, message} said in the reader's language when its code is known. */
export function engineErrorText(error: string | null, lang: Lang): string | null {
  if (!error) return null;
  try {
    const e = JSON.parse(error) as { code?: string; params?: Record<string, unknown>; message?: string };
    const known = e.code ? engineErrors[e.code] : undefined;
    if (!known) return e.message ?? error;
    return known[lang].replace(/\{(\w+)\}/g, (_, k: string) => {
      const v = e.params?.[k];
      return Array.isArray(v) ? v.map((x) => (lang === 'ja' ? `「${x}」` : `"${x}"`)).join(lang === 'ja' ? '、' : ', ') : String(v ?? '');
    });
  } catch {
    return error;
  }
}

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

/** The organisation's projects whose name or dataset contains `query` (none or '*': all), newest first. */
function projectRows(db: Db, orgId: string, query?: string) {
  let rows = db.selectFrom('optimization_projects').selectAll().where('organisation_id', '=', orgId);
  if (query && query !== '*') {
    const like = `%${query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    rows = rows.where((eb) => eb.or([eb(eb.fn('lower', ['name']), 'like', like), eb(eb.fn('lower', ['dataset_name']), 'like', like)]));
  }
  return rows.orderBy('created_at', 'desc').orderBy('id').execute();
}

export function makeOptimizationService(ctx: AppContext, { datasets, training }: { datasets: DatasetService; training: TrainingService }) {
  const { db, jobs, storage } = ctx;

  async function resolveModels(auth: AuthContext, refs: { project_id: string; model_key: string }[]): Promise<ResolvedModel[]> {
    if (!refs.length) throw new AppError(422, M.noModel, {}, 'models');
    const out: ResolvedModel[] = [];
    for (const ref of refs) {
      const project = await training.getProject(auth, ref.project_id);
      const model = await training.getModel(auth, ref.project_id, ref.model_key);
      const label = `${project.name} / ${model.model_key}`;
      if (!REGRESSION_TYPES.includes(project.project_type)) throw new AppError(422, M.modelType, { model: label }, 'models');
      const dir = training.runDir(model);
      const manifestFile = dir ? path.join(dir, 'manifest.json') : '';
      if (model.state !== 'done' || !dir || !fs.existsSync(manifestFile)) throw new AppError(422, M.modelNotTrained, { model: label }, 'models');
      const manifest = JSON.parse(await fs.promises.readFile(manifestFile, 'utf8')) as Manifest;
      out.push({ project_id: project.id, project_name: project.name, model_key: model.model_key, algorithm: model.algorithm, target: manifest.target, dataset_id: project.dataset_id, dir, manifest });
    }
    if (new Set(out.map((m) => m.dataset_id)).size > 1) throw new AppError(422, M.sameDataset, {}, 'models');
    return out;
  }

  /** The wizard's features step: every model input with its training range (from the dataset's column statistics). */
  async function featureInfo(auth: AuthContext, refs: { project_id: string; model_key: string }[]) {
    const models = await resolveModels(auth, refs);
    const dataset = await datasets.getRow(auth, models[0].dataset_id);
    const stats = new Map((JSON.parse(dataset.stats_json) as ColumnInfo[]).map((c) => [c.name, c]));
    const numberOf = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    const names = [...new Set(models.flatMap((m) => m.manifest.features))];
    const kinds = Object.assign({}, ...models.map((m) => m.manifest.model_columns)) as Record<string, string>;
    const cats = Object.assign({}, ...models.map((m) => m.manifest.categories)) as Record<string, string[]>;
    return {
      dataset_id: dataset.id,
      dataset_name: dataset.name,
      targets: models.map((m) => ({ name: m.target, min: numberOf(stats.get(m.target)?.min), max: numberOf(stats.get(m.target)?.max), model_key: m.model_key, project_id: m.project_id })),
      features: names.map((f) => ({
        name: f,
        kind: kinds[f] === 'category' ? ('category' as const) : ('numeric' as const),
        min: numberOf(stats.get(f)?.min),
        max: numberOf(stats.get(f)?.max),
        mean: numberOf(stats.get(f)?.mean),
        levels: cats[f] ?? [],
      })),
    };
  }

  function engineSpec(auth: AuthContext, models: ResolvedModel[], s: Settings, datasetParquet: string) {
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

  /** The engine builds the problem (the one implementation of its rules and of constraint feasibility) before anything is stored. */
  async function engineCheck(auth: AuthContext, spec: SpecOf<typeof optimizeCheckJob>) {
    const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: optimizeCheckJob, spec });
    let done: JobView;
    try {
      done = await jobs.waitFor(job.id, CHECK_TIMEOUT_MS);
    } catch {
      await jobs.cancel(auth.orgId, job.id).catch(() => undefined);
      throw new AppError(503, M.engineBusy);
    }
    if (done.state !== 'succeeded') {
      const text: LocalText = { en: engineErrorText(done.error, 'en') ?? 'error', ja: engineErrorText(done.error, 'ja') ?? 'error' };
      throw new AppError(422, text, {}, 'settings');
    }
    return optimizeCheckJob.resultOf(done);
  }

  async function getRow(auth: AuthContext, id: string): Promise<OptimizationProjectTable> {
    const row = await db.selectFrom('optimization_projects').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError(404, M.projectNotFound);
    return row;
  }

  const runsOf = (orgId: string, projectId: string) =>
    db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', orgId).where('project_id', '=', projectId).orderBy('created_at').execute();

  function runView(r: OptimizationRunTable, job: JobView | undefined, lang: Lang) {
    const state = runState(job);
    const result = state === 'done' && job ? optimizeJob.resultOf(job) : null;
    return {
      id: r.id,
      algorithm: r.algorithm,
      job_id: r.job_id,
      state,
      progress: job?.progress ?? 0,
      message: job?.message ?? '',
      error: state === 'failed' ? (engineErrorText(job?.error ?? null, lang) ?? 'The job no longer exists.') : null,
      best: result?.best?.[0] ?? null,
      evaluations: result?.evaluations ?? null,
      seconds: result?.seconds ?? null,
      created_at: r.created_at,
      finished_at: job?.finished_at ?? null,
    };
  }

  async function view(auth: AuthContext, p: OptimizationProjectTable, lang: Lang) {
    const s = JSON.parse(p.settings_json) as Settings & { model_info: ResolvedModel[] };
    const runs = await runsOf(auth.orgId, p.id);
    const views = await Promise.all(runs.map(async (r) => runView(r, await jobs.get(auth.orgId, r.job_id), lang)));
    const state = views.some((r) => r.state === 'queued' || r.state === 'running') ? 'running' : views.some((r) => r.state === 'done') ? 'done' : views.length ? 'failed' : 'ready';
    return {
      id: p.id,
      project_id: p.id,
      name: p.name,
      comment: p.comment,
      dataset_id: p.dataset_id,
      dataset_name: p.dataset_name,
      state: state as 'ready' | 'running' | 'done' | 'failed',
      models: s.model_info.map((m) => ({ project_id: m.project_id, model_key: m.model_key, project_name: m.project_name, algorithm: m.algorithm, target: m.target })),
      targets: s.targets,
      features: s.features,
      constraints: s.constraints,
      algorithms: s.algorithms,
      n_trials: s.n_trials,
      seed: s.seed,
      forbid_extrapolation: s.forbid_extrapolation,
      runs: views,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  async function prepared(auth: AuthContext, s: Settings) {
    checkDecimals(s);
    const models = await resolveModels(auth, s.models);
    checkTargets(models, s);
    const dataset = await datasets.getRow(auth, models[0].dataset_id);
    return { models, dataset, spec: engineSpec(auth, models, s, datasets.parquetPath(dataset)) };
  }

  async function evaluate(auth: AuthContext, id: string, algorithms: string[] | undefined, lang: Lang) {
    const p = await getRow(auth, id);
    const s = JSON.parse(p.settings_json) as Settings;
    const current = await view(auth, p, lang);
    if (current.state === 'running') throw new AppError(409, M.running);
    // the models are resolved again: one deleted since registration is refused now, by name
    const { spec } = await prepared(auth, s);
    for (const algorithm of algorithms ?? s.algorithms) {
      const runId = crypto.randomUUID();
      const resultKey = `org/${auth.orgId}/optimization/${p.id}/${runId}`;
      await jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: optimizeJob,
        subjectType: SUBJECT,
        subjectId: runId,
        spec: { ...spec, algorithm, output_dir: storage.pathOf(resultKey), lang }, // lang: the engine says its progress in it
        beforeEnqueue: async (job) => {
          await db.deleteFrom('optimization_runs').where('organisation_id', '=', auth.orgId).where('project_id', '=', p.id).where('algorithm', '=', algorithm).execute();
          await db.insertInto('optimization_runs').values({ id: runId, organisation_id: auth.orgId, project_id: p.id, algorithm, job_id: job.id, result_key: resultKey, created_at: now() }).execute();
        },
      });
    }
    await db.updateTable('optimization_projects').set({ updated_at: now() }).where('organisation_id', '=', auth.orgId).where('id', '=', p.id).execute();
    return view(auth, await getRow(auth, id), lang);
  }

  async function getRun(auth: AuthContext, id: string) {
    const run = await db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
    if (!run) throw new AppError(404, M.runNotFound);
    return run;
  }

  return {
    getRow,
    featureInfo,

    async register(auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang) {
      if (!body.name) throw new AppError(422, M.nameRequired, {}, 'name');
      const { models, dataset, spec } = await prepared(auth, body);
      if (dataset.id !== datasetId) throw new AppError(422, M.sameDataset, {}, 'models');
      await engineCheck(auth, spec);
      const id = crypto.randomUUID();
      const settings = {
        models: body.models,
        targets: body.targets,
        features: body.features,
        constraints: body.constraints,
        algorithms: [...new Set(body.algorithms)],
        n_trials: body.n_trials,
        seed: body.seed,
        forbid_extrapolation: body.forbid_extrapolation,
        model_info: models.map(({ manifest: _m, dir: _d, ...m }) => m),
      };
      const row: OptimizationProjectTable = {
        id,
        organisation_id: auth.orgId,
        name: body.name,
        comment: body.comment,
        dataset_id: dataset.id,
        dataset_name: dataset.name,
        settings_json: JSON.stringify(settings),
        created_by: auth.userId,
        created_at: now(),
        updated_at: now(),
      };
      await db.insertInto('optimization_projects').values(row).execute();
      if (body.run) return evaluate(auth, id, undefined, lang);
      return view(auth, row, lang);
    },

    evaluate,

    get: async (auth: AuthContext, id: string, lang: Lang) => view(auth, await getRow(auth, id), lang),

    /** A new name (the rule of every project's name), in any state: the project as GET answers it. */
    async rename(auth: AuthContext, id: string, name: string, lang: Lang) {
      const p = await getRow(auth, id);
      await db.updateTable('optimization_projects').set({ name, updated_at: now() }).where('organisation_id', '=', auth.orgId).where('id', '=', p.id).execute();
      return view(auth, { ...p, name }, lang);
    },

    async list(auth: AuthContext, q: { query?: string; state?: string; page: number; page_size: number }, lang: Lang) {
      const all = await Promise.all((await projectRows(db, auth.orgId, q.query)).map((p) => view(auth, p, lang)));
      const counts: Record<string, number> = { all: all.length, ready: 0, running: 0, done: 0, failed: 0 };
      for (const p of all) counts[p.state] += 1;
      const filtered = q.state ? all.filter((p) => p.state === q.state) : all;
      return { items: filtered.slice((q.page - 1) * q.page_size, q.page * q.page_size), total: filtered.length, counts };
    },

    async remove(auth: AuthContext, id: string) {
      const p = await getRow(auth, id);
      for (const r of await runsOf(auth.orgId, p.id)) {
        const job = await jobs.get(auth.orgId, r.job_id);
        if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(auth.orgId, job.id).catch(() => undefined);
      }
      await db.deleteFrom('optimization_runs').where('organisation_id', '=', auth.orgId).where('project_id', '=', p.id).execute();
      await db.deleteFrom('optimization_projects').where('organisation_id', '=', auth.orgId).where('id', '=', p.id).execute();
      storage.remove(`org/${auth.orgId}/optimization/${p.id}`);
      return { id: p.id };
    },

    /** A run by its id, or a project's latest run of one algorithm. */
    async result(auth: AuthContext, id: string, algorithm: string | undefined, lang: Lang) {
      let run = await db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
      if (!run && algorithm) {
        const p = await getRow(auth, id);
        run = await db.selectFrom('optimization_runs').selectAll().where('organisation_id', '=', auth.orgId).where('project_id', '=', p.id).where('algorithm', '=', algorithm).executeTakeFirst();
      }
      if (!run) throw new AppError(404, M.runNotFound);
      const job = await jobs.get(auth.orgId, run.job_id);
      const v = runView(run, job, lang);
      return { run: v, project_id: run.project_id, result: v.state === 'done' && job ? optimizeJob.resultOf(job) : null };
    },

    async resultCsv(auth: AuthContext, datasetId: string, runId: string | undefined) {
      if (runId) {
        const run = await getRun(auth, runId);
        const p = await getRow(auth, run.project_id);
        if (p.dataset_id !== datasetId) throw new AppError(404, M.runNotFound);
        const file = storage.pathOf(`${run.result_key}/best.csv`);
        if (!fs.existsSync(file)) throw new AppError(409, M.notDone);
        return { body: await fs.promises.readFile(file, 'utf8'), fileName: `${p.name}-${run.algorithm}-conditions.csv` };
      }
      // no run: the dataset's columns as a feature-settings template with their ranges
      const dataset = await datasets.getRow(auth, datasetId);
      const stats = JSON.parse(dataset.stats_json) as ColumnInfo[];
      const esc = (v: unknown) => (v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
      const lines = ['name,kind,lower,upper,values,unit', ...stats.map((c) => [c.name, ['integer', 'float'].includes(c.type) ? 'range' : 'fixed', c.min, c.max, '', ''].map(esc).join(','))];
      return { body: `${lines.join('\n')}\n`, fileName: `${dataset.name}-features.csv` };
    },

    async predict(auth: AuthContext, projectId: string, conditions: Record<string, string | number>[]) {
      if (!conditions.length) throw new AppError(422, M.conditionEmpty, {}, 'conditions');
      const p = await getRow(auth, projectId);
      const { spec } = await prepared(auth, JSON.parse(p.settings_json) as Settings);
      const job = await jobs.create({ orgId: auth.orgId, userId: auth.userId, kind: optimizePredictJob, subjectType: 'optimization_project', subjectId: p.id, spec: { ...spec, conditions } });
      return { id: job.id, state: runState(job), progress: 0, error: null, result: null };
    },

    async predictionResult(auth: AuthContext, taskId: string, lang: Lang) {
      const job = await jobs.get(auth.orgId, taskId);
      if (!job || job.kind !== optimizePredictJob.kind) throw new AppError(404, M.taskNotFound);
      const state = runState(job);
      return { id: job.id, state, progress: job.progress, error: state === 'failed' ? engineErrorText(job.error, lang) : null, result: state === 'done' ? optimizePredictJob.resultOf(job) : null };
    },
  };
}
