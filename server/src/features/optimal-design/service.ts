import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Lang } from '../../i18n/messages.js';
import type { TrainingService } from '../training/service.js';
import { engineErrorText } from './messages.js';
import { designRepo } from './repo.js';
import { optimalDesignJob, storedDesign } from './jobs.js';
import { type DesignDeps, EVAL_SUBJECT, makeDesignBase, now, projectKey, SUBJECT, summary } from './base.js';
import { nextRound, register } from './rounds.js';
import { experimentSheet, resultCsv } from './sheets.js';
import { evalResult, evaluate } from './evaluation.js';

export function makeDesignService(ctx: AppContext, { training }: { training: TrainingService }) {
  const deps = makeDesignBase(ctx, { training });
  const { db, jobs, storage, getRow, view, roundOf, applyFinish, applyEval } = deps;
  const on = <A extends unknown[], R>(f: (d: DesignDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);

  return {
    register: on(register),
    nextRound: on(nextRound),

    get: async (auth: AuthContext, id: string, lang: Lang) => view(auth, await getRow(auth, id), lang),

    /** A new name (the rule of every project's name), in any state: the project as GET answers it. */
    async rename(auth: AuthContext, id: string, name: string, lang: Lang) {
      await designRepo.update(db, auth.orgId, (await getRow(auth, id)).id, { name, updated_at: now() });
      return view(auth, await getRow(auth, id), lang);
    },

    async list(auth: AuthContext, q: { state?: string; query?: string; page: number; page_size: number }) {
      const { items, total } = await designRepo.list(db, auth.orgId, q);
      return { items: items.map(summary), total };
    },

    async all(auth: AuthContext, state?: string) {
      const items = await designRepo.all(db, auth.orgId, state);
      const counts = stateCounts(await designRepo.counts(db, auth.orgId));
      return { items: items.map(summary), counts };
    },

    async result(auth: AuthContext, id: string, round: number | undefined, lang: Lang) {
      const { p, r } = await roundOf(auth, id, round);
      const job = r.job_id ? await jobs.get(auth.orgId, r.job_id) : undefined;
      return {
        project_id: p.id, round: r.round, state: r.state, job_state: job?.state ?? 'none', progress: job?.progress ?? 0, message: job?.message ?? '',
        error: engineErrorText(r.error ?? null, lang), result: r.result_json ? storedDesign(r.result_json) : null,
      };
    },

    experimentSheet: on(experimentSheet),
    resultCsv: on(resultCsv),
    evaluate: on(evaluate),
    evalResult: on(evalResult),

    async remove(auth: AuthContext, id: string) {
      await getRow(auth, id);
      for (const r of await designRepo.rounds(db, auth.orgId, id)) {
        if (r.state === 'running' && r.job_id) await jobs.cancel(auth.orgId, r.job_id).catch(() => undefined);
      }
      await designRepo.delete(db, auth.orgId, id);
      storage.remove(projectKey(auth.orgId, id));
      return { id };
    },

    /** Installed once at start-up (services.ts): a finished design or evaluation job lands in its round. */
    installJobHandlers() {
      jobs.onFinished(optimalDesignJob, async (job, orgId) => {
        if (job.subject_type === SUBJECT) await applyFinish(orgId, job);
        else if (job.subject_type === EVAL_SUBJECT) await applyEval(orgId, job);
      });
    },
  };
}

/** The count of projects in each state, and of all. */
function stateCounts(rows: { state: string; n: unknown }[]) {
  const counts: Record<string, number> = { all: 0, running: 0, done: 0, failed: 0 };
  for (const c of rows) {
    counts[c.state] = Number(c.n);
    counts.all += Number(c.n);
  }
  return counts;
}
