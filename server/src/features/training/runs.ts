import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { JobView } from '../../jobs/service.js';
import type { TrainingModelTable, TrainingProjectTable } from './db.js';
import { trainingRepo as repo } from './repo.js';
import type { AnyJobKind, JobKind, SpecOf } from '../../jobs/kind.js';
import type { z } from 'zod';

/**
 * The owner of projects and model runs for every kind of training (tables, time series, images): the project and
 * model rows, and one path through a run: start (a job, the models marked training), each model's outcome as the
 * engine reports it, and the failure of a whole run. Other areas reach these tables only through this service.
 */

const now = () => new Date().toISOString();

/** Helper jobs of a training job (kind tune_helper) carry this subject type and the training job's id. */
export const TUNE_HELPER_SUBJECT = 'train_job';

export const projectKey = (orgId: string, id: string) => `org/${orgId}/training/${id}`;

/** The project and model rows of a new training project: every area (tables, time series, images) stores them alike. */
export interface NewProject {
  orgId: string;
  userId: string | null;
  type: string;
  name: string;
  dataset: { id: string; name: string };
  numberOfData: number;
  config: unknown;
  models: readonly { algorithm: string; params?: Record<string, unknown> }[];
}

/** A model row of a project, ready to train; its key is `<index>_<algorithm>`. */
export function newModel(orgId: string, projectId: string, index: number, algorithm: string, params: Record<string, unknown>, t: string): TrainingModelTable {
  return {
    id: crypto.randomUUID(),
    organisation_id: orgId,
    project_id: projectId,
    model_index: index,
    model_key: `${index}_${algorithm}`,
    algorithm,
    params_json: JSON.stringify(params),
    state: 'ready',
    metrics_json: null,
    summary_json: null,
    error: null,
    log: null,
    run_key: null,
    trained_at: null,
    created_at: t,
  };
}

/** A model's outcome as a `model` event of the engine (train, tsad_train) gives it. */
export interface ModelEvent {
  type: string;
  key?: string;
  state?: string;
  metrics?: unknown;
  cv?: unknown;
  evaluation?: unknown;
  hyperparameters?: unknown;
  seconds?: number;
  error?: string | null;
  log?: string;
  pending?: boolean;
}

const isActive = (job: JobView | undefined) => !!job && (job.state === 'queued' || job.state === 'running');

/** A `model` event of a tabular or time-series run as the model row's patch. */
function modelPatch(e: ModelEvent): Partial<TrainingModelTable> {
  const patch: Partial<TrainingModelTable> = { state: e.state === 'running' ? 'training' : e.state };
  if (e.state === 'done') {
    patch.metrics_json = JSON.stringify(e.metrics ?? {});
    patch.summary_json = JSON.stringify({ cv: e.cv ?? null, evaluation: e.evaluation ?? null, hyperparameters: e.hyperparameters ?? null, seconds: e.seconds ?? null, pending: !!e.pending });
    patch.error = null;
    patch.log = null;
    patch.trained_at = now();
  } else if (e.state === 'failed') {
    patch.error = e.error ?? 'failed';
    patch.log = e.log ?? e.error ?? '';
    patch.metrics_json = null;
  }
  return patch;
}


/** A new project's row. */
function projectRow(p: NewProject, id: string, t: string): TrainingProjectTable {
  return {
    id,
    organisation_id: p.orgId,
    project_type: p.type,
    name: p.name,
    dataset_id: p.dataset.id,
    dataset_name: p.dataset.name,
    number_of_data: p.numberOfData,
    config_json: JSON.stringify(p.config),
    job_id: null,
    error: null,
    created_by: p.userId,
    created_at: t,
    updated_at: t,
  };
}

export function makeRunService(ctx: AppContext) {
  const { db, jobs, storage } = ctx;

  /** The project that the job trains, if any. */
  const projectOfJob = (orgId: string, jobId: string) => repo.projectOfJob(db, orgId, jobId);

  /** The whole run failed (bad data found by the engine, cancel, lost worker): every unfinished model says why. */
  async function fail(orgId: string, projectId: string, job: Pick<JobView, 'state' | 'error' | 'log'>) {
    const reason = job.error ?? job.state;
    await repo.failUnfinished(db, orgId, projectId, reason, job.log || reason);
    await repo.updateProject(db, orgId, projectId, { error: reason, updated_at: now() });
  }

  /**
   * A run that failed as a whole (its worker killed, say) may have left half-written model folders; once no model of the
   * project is done in, or training into, a run's folder, the folder goes (object store included).
   */
  async function removeUnusedRuns(orgId: string, projectId: string): Promise<string[]> {
    const models = await repo.modelsOf(db, orgId, projectId);
    const keys = models.map((m) => m.run_key).filter((k): k is string => !!k);
    if (!keys.length) return [];
    const used = new Set(models.filter((m) => m.run_key && (m.state === 'done' || m.state === 'training')).map((m) => m.run_key));
    const removed: string[] = [];
    for (const runs of new Set(keys.map((k) => path.posix.dirname(k)))) {
      const dir = storage.pathOf(runs);
      if (!fs.existsSync(dir)) continue;
      for (const name of fs.readdirSync(dir)) {
        const key = `${runs}/${name}`;
        if (used.has(key)) continue;
        await storage.remove(key);
        removed.push(key);
      }
    }
    return removed;
  }

  return {
    projectKey,
    projectOfJob,
    fail,
    removeUnusedRuns,

    /** Stores a new project with its models in one transaction and answers the project row. */
    async create(p: NewProject): Promise<TrainingProjectTable> {
      const id = crypto.randomUUID();
      const t = now();
      const project = projectRow(p, id, t);
      await repo.insertProject(db, project, p.models.map((m, i) => newModel(p.orgId, id, i + 1, m.algorithm, m.params ?? {}, t)));
      return project;
    },

    find: (orgId: string, id: string) => repo.getProject(db, orgId, id),
    modelsOf: (orgId: string, projectId: string) => repo.modelsOf(db, orgId, projectId),
    trainedModels: (orgId: string) => repo.trainedModels(db, orgId),
    /** A model by its key; `orId` also takes its id. */
    findModel: (orgId: string, projectId: string, key: string, orId = false) => repo.getModel(db, orgId, projectId, key, orId),
    list: (orgId: string, q: { query: string; project_type?: string; page: number; page_size: number }) => repo.listProjects(db, orgId, q),
    ofTypes: (orgId: string, types: readonly string[], limit: number) => repo.projectsOfTypes(db, orgId, types, limit),
    rename: (orgId: string, id: string, name: string) => repo.updateProject(db, orgId, id, { name, updated_at: now() }),

    /** New settings; `models` (when given) replace the project's models, ready to train. */
    replaceSettings(orgId: string, id: string, name: string, config: unknown, models: readonly { algorithm: string; params?: Record<string, unknown> }[] | null) {
      const t = now();
      return repo.replaceSettings(db, orgId, id, { name, config_json: JSON.stringify(config), updated_at: t }, models ? models.map((m, i) => newModel(orgId, id, i + 1, m.algorithm, m.params ?? {}, t)) : null);
    },

    /** A model's stored figures (an image model's threshold in force, say). */
    setModelFigures: (orgId: string, modelId: string, patch: Pick<TrainingModelTable, 'summary_json' | 'metrics_json'>) => repo.updateModelById(db, orgId, modelId, patch),

    /** The model's row as the engine reports it (state, figures, error). */
    recordModel: (orgId: string, projectId: string, key: string, patch: Partial<TrainingModelTable>) => repo.updateModel(db, orgId, projectId, key, patch),

    /** A fresh folder for a run's models, under the project's. */
    newRunKey: (orgId: string, projectId: string) => `${projectKey(orgId, projectId)}/runs/${crypto.randomUUID()}`,

    /** The project's job, when it is queued or running. */
    async activeJob(auth: AuthContext, p: TrainingProjectTable): Promise<JobView | undefined> {
      const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
      return isActive(job) ? job : undefined;
    },

    /**
     * Starts a run: one job of `kind` trains `modelKeys` into `runKey`. Before the job can run, the project points to it
     * and the models are marked training (a run that fails at once must find its project and models); `beforeStart`
     * adds what the area itself must change then. `resetMetrics` forgets the models' last figures.
     */
    start<J extends AnyJobKind>(
      auth: AuthContext,
      projectId: string,
      run: { kind: J; runKey: string; modelKeys: string[]; spec: SpecOf<J>; resetMetrics?: boolean; beforeStart?: () => Promise<unknown> },
    ) {
      return jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: run.kind,
        subjectType: 'training_project',
        subjectId: projectId,
        spec: run.spec,
        beforeEnqueue: async (job) => {
          await repo.updateProject(db, auth.orgId, projectId, { job_id: job.id, error: null, updated_at: now() });
          await repo.markTraining(db, auth.orgId, projectId, run.modelKeys, run.runKey, !!run.resetMetrics);
          await run.beforeStart?.();
        },
      });
    },

    /**
     * Deletes a project: its job is cancelled when active, `alsoDelete` removes the area's own rows of it, then the
     * models, the project and its files go.
     */
    async remove(auth: AuthContext, p: TrainingProjectTable, alsoDelete?: () => Promise<unknown>) {
      if (p.job_id) {
        const job = await jobs.get(auth.orgId, p.job_id);
        if (isActive(job)) await jobs.cancel(auth.orgId, job!.id).catch(() => undefined);
      }
      await alsoDelete?.();
      await repo.deleteProject(db, auth.orgId, p.id);
      storage.remove(projectKey(auth.orgId, p.id));
      return { id: p.id };
    },

    /**
     * Keeps model rows in step with the engine: each `model` event as it streams, the job's result at the end.
     * Any job kind that trains the models of a tabular or time-series project (train, tsad_train) streams the same events.
     */
    installModelEventHandlers<R extends z.ZodType<{ models: Omit<ModelEvent, 'type'>[] }>>(kind: JobKind<string, z.ZodType, R>) {
      const apply = async (orgId: string, projectId: string, e: ModelEvent) => {
        if (!e.key || !e.state) return;
        await repo.updateModel(db, orgId, projectId, e.key, modelPatch(e));
      };
      jobs.onEvent(kind, async (job, event) => {
        if (event.type !== 'model') return;
        const p = await projectOfJob(job.orgId, job.id);
        if (p) await apply(job.orgId, p.id, event as ModelEvent);
      });
      jobs.onFinished(kind, async (job, orgId) => {
        // helpers sharing its auto-tune trials have nothing left to do
        for (const id of await jobs.activeIdsFor(orgId, TUNE_HELPER_SUBJECT, job.id)) await jobs.cancel(orgId, id).catch(() => undefined);
        const p = await projectOfJob(orgId, job.id);
        if (!p) return;
        for (const m of job.result?.models ?? []) await apply(orgId, p.id, { ...m, type: 'model' });
        if (job.state !== 'succeeded') {
          await fail(orgId, p.id, job);
          await removeUnusedRuns(orgId, p.id);
        }
      });
    },
  };
}
export type RunService = ReturnType<typeof makeRunService>;
