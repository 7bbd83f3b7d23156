import crypto from 'node:crypto';
import { imageRepo } from './repo.js';
import { imageTrainJob } from './jobs.js';
import { type ImageDeps, now } from './base.js';

/** An event of the image training worker: a model's state ("model") or one epoch's figures ("epoch"). */
interface ImageEvent {
  type?: string;
  key?: string;
  state?: string;
  metrics?: unknown;
  threshold?: number | null;
  stopped?: boolean;
  seconds?: number | null;
  error?: string;
  log?: string;
  code?: string | null;
  params?: Record<string, unknown>;
  epoch?: number;
  train_loss?: unknown;
  train_accuracy?: unknown;
  val_loss?: unknown;
  val_accuracy?: unknown;
  learning_rate?: unknown;
}

/** A model row's change for a model event of the engine. */
function modelPatch(e: ImageEvent & { state: string }): Record<string, unknown> {
  const patch: Record<string, unknown> = { state: e.state === 'running' ? 'training' : e.state };
  if (e.state === 'done') {
    patch.metrics_json = JSON.stringify(e.metrics ?? {});
    patch.summary_json = JSON.stringify({ threshold: e.threshold ?? null, stopped: !!e.stopped, seconds: e.seconds ?? null });
    patch.trained_at = now();
    patch.error = null;
  } else if (e.state === 'failed') {
    patch.error = e.error ?? 'failed';
    patch.log = e.log ?? e.error ?? '';
    patch.summary_json = JSON.stringify({ error_code: e.code ?? null, error_params: e.params ?? {} });
  }
  return patch;
}

/** Keeps model rows and epoch curves in step with the engine's events. */
export function installJobHandlers(d: ImageDeps) {
  const { db, jobs, runs } = d;
  const projectOf = runs.projectOfJob;
  const apply = async (orgId: string, projectId: string, e: ImageEvent) => {
    if (!e.key || !e.state) return;
    await runs.recordModel(orgId, projectId, e.key, modelPatch({ ...e, state: e.state }));
  };
  jobs.onEvent(imageTrainJob, async (job, event) => {
    const e = event as ImageEvent;
    const p = await projectOf(job.orgId, job.id);
    if (!p) return;
    if (e.type === 'model') return apply(job.orgId, p.id, e);
    if (e.type === 'epoch' && e.key) {
      const m = await runs.findModel(job.orgId, p.id, e.key);
      if (!m?.run_key) return;
      const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
      await imageRepo.insertEpoch(db, {
        id: crypto.randomUUID(),
        organisation_id: job.orgId,
        project_id: p.id,
        model_key: e.key,
        run_key: m.run_key,
        epoch: Number(e.epoch),
        train_loss: num(e.train_loss),
        train_accuracy: num(e.train_accuracy),
        val_loss: num(e.val_loss),
        val_accuracy: num(e.val_accuracy),
        learning_rate: num(e.learning_rate),
        created_at: now(),
      });
    }
  });
  jobs.onFinished(imageTrainJob, async (job, orgId) => {
    const p = await projectOf(orgId, job.id);
    if (!p) return;
    for (const m of job.result?.models ?? []) await apply(orgId, p.id, m);
    if (job.state !== 'succeeded') await runs.fail(orgId, p.id, job);
  });
}
