import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Lang } from '../../i18n/messages.js';
import type { DatasetService } from '../datasets/service.js';
import type { TrainingService } from '../training/service.js';
import { optimizationRepo } from './repo.js';
import { makeOptimizationBase, type OptimizationDeps } from './base.js';
import { evaluate, predict, predictionResult, register, result, resultCsv } from './runs.js';

export function makeOptimizationService(ctx: AppContext, { datasets, training }: { datasets: DatasetService; training: TrainingService }) {
  const deps = makeOptimizationBase(ctx, { datasets, training });
  const { db, jobs, storage, getRow, featureInfo, view } = deps;
  const on = <A extends unknown[], R>(f: (d: OptimizationDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);

  return {
    getRow,
    featureInfo,
    register: on(register),
    evaluate: on(evaluate),

    get: async (auth: AuthContext, id: string, lang: Lang) => view(auth, await getRow(auth, id), lang),

    /** A new name (the rule of every project's name), in any state: the project as GET answers it. */
    async rename(auth: AuthContext, id: string, name: string, lang: Lang) {
      const p = await getRow(auth, id);
      await optimizationRepo.rename(db, auth.orgId, p.id, name, new Date().toISOString());
      return view(auth, { ...p, name }, lang);
    },

    async list(auth: AuthContext, q: { query?: string; state?: string; page: number; page_size: number }, lang: Lang) {
      const all = await Promise.all((await optimizationRepo.list(db, auth.orgId, q.query)).map((p) => view(auth, p, lang)));
      const counts: Record<string, number> = { all: all.length, ready: 0, running: 0, done: 0, failed: 0 };
      for (const p of all) counts[p.state] += 1;
      const filtered = q.state ? all.filter((p) => p.state === q.state) : all;
      return { items: filtered.slice((q.page - 1) * q.page_size, q.page * q.page_size), total: filtered.length, counts };
    },

    async remove(auth: AuthContext, id: string) {
      const p = await getRow(auth, id);
      for (const r of await optimizationRepo.runsOf(db, auth.orgId, p.id)) {
        const job = await jobs.get(auth.orgId, r.job_id);
        if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(auth.orgId, job.id).catch(() => undefined);
      }
      await optimizationRepo.delete(db, auth.orgId, p.id);
      storage.remove(`org/${auth.orgId}/optimization/${p.id}`);
      return { id: p.id };
    },

    result: on(result),
    resultCsv: on(resultCsv),
    predict: on(predict),
    predictionResult: on(predictionResult),
  };
}
