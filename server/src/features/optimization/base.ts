import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import { datasetStats } from '../datasets/stored.js';
import type { DatasetService } from '../datasets/service.js';
import type { TrainingService } from '../training/service.js';
import type { OptimizationProjectTable } from './db.js';
import { M } from './messages.js';
import { optimizeCheckJob } from './jobs.js';
import type { SpecOf } from '../../jobs/kind.js';
import type { Settings } from './schemas.js';
import { optimizationRepo } from './repo.js';
import { CHECK_TIMEOUT_MS, checkDecimals, checkTargets, engineErrorText, engineSpec, REGRESSION_TYPES, type ResolvedModel, runView } from './rules.js';
import { storedJson } from '../../db/stored.js';
import { SupervisedManifest } from '../training/stored.js';
import { projectSettings } from './stored.js';

/** What the service's modules share: the app's database, jobs and storage, the areas used, the models resolved and
 * checked, the project and run reads and the project view. */
export function makeOptimizationBase(ctx: AppContext, { datasets, training }: { datasets: DatasetService; training: TrainingService }) {
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
      const manifest = storedJson('model manifest', SupervisedManifest, await fs.promises.readFile(manifestFile, 'utf8'));
      out.push({ project_id: project.id, project_name: project.name, model_key: model.model_key, algorithm: model.algorithm, target: manifest.target, dataset_id: project.dataset_id, dir, manifest });
    }
    if (new Set(out.map((m) => m.dataset_id)).size > 1) throw new AppError(422, M.sameDataset, {}, 'models');
    return out;
  }

  /** The wizard's features step: every model input with its training range (from the dataset's column statistics). */
  async function featureInfo(auth: AuthContext, refs: { project_id: string; model_key: string }[]) {
    const models = await resolveModels(auth, refs);
    const dataset = await datasets.getRow(auth, models[0].dataset_id);
    const stats = new Map(datasetStats(dataset).map((c) => [c.name, c]));
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
    const row = await optimizationRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, M.projectNotFound);
    return row;
  }

  async function getRun(auth: AuthContext, id: string) {
    const run = await optimizationRepo.run(db, auth.orgId, id);
    if (!run) throw new AppError(404, M.runNotFound);
    return run;
  }

  async function view(auth: AuthContext, p: OptimizationProjectTable, lang: Lang) {
    const s = projectSettings(p);
    const runs = await optimizationRepo.runsOf(db, auth.orgId, p.id);
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
    return { models, dataset, spec: engineSpec(models, s, datasets.parquetPath(dataset)) };
  }

  return { db, jobs, storage, datasets, resolveModels, featureInfo, engineCheck, getRow, getRun, view, prepared };
}
export type OptimizationDeps = ReturnType<typeof makeOptimizationBase>;
