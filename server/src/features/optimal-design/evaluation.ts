import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { engineErrorText, errors, isInputError } from './messages.js';
import { designRepo } from './repo.js';
import { optimalDesignJob, storedDesign, storedEvaluation } from './jobs.js';
import { type DesignDeps, EVAL_SUBJECT, INPUT_WAIT_MS, projectKey, readRows } from './base.js';

// A design of the user's evaluated against the newest round's.

export async function evaluate(d: DesignDeps, auth: AuthContext, id: string, csv: string, lang: Lang) {
  const { db, jobs, storage, getRow, settingsOf, roundOf } = d;
  const p = await getRow(auth, id);
  const s = settingsOf(p);
  const { r } = await roundOf(auth, id);
  if (!r.result_json) throw new AppError(409, errors.no_result);
  const user = readRows(csv, 'design', s.variables.map((v) => v.name), s.responses);
  const ours = storedDesign(r.result_json).runs;
  const job = await jobs.create({
    orgId: auth.orgId, userId: auth.userId, kind: optimalDesignJob, subjectType: EVAL_SUBJECT, subjectId: p.id,
    spec: {
      output_dir: storage.pathOf(`${projectKey(auth.orgId, p.id)}/evaluation`), mode: 'evaluate', variables: s.variables, constraints: s.constraints,
      mixture_total: s.mixture_total ?? null, model: s.model, existing: [], user_design: user, our_design: ours, seed: 0, lang,
    },
    beforeEnqueue: async (j) => {
      await designRepo.update(db, auth.orgId, p.id, { eval_job_id: j.id, eval_state: 'running', eval_error: null, eval_result_json: null });
    },
  });
  const finished = await jobs.waitFor(job.id, INPUT_WAIT_MS).catch(() => null);
  if (finished && finished.state === 'failed' && isInputError(finished.error)) {
    await designRepo.update(db, auth.orgId, p.id, { eval_job_id: null, eval_state: null, eval_error: null });
    throw new AppError(422, { en: engineErrorText(finished.error, 'en')!, ja: engineErrorText(finished.error, 'ja')! }, {}, 'file');
  }
  return evalResult(d, auth, id, lang);
}

export async function evalResult(d: DesignDeps, auth: AuthContext, id: string, lang: Lang) {
  const { jobs, getRow, applyEval } = d;
  let p = await getRow(auth, id);
  if (!p.eval_job_id) throw new AppError(404, errors.no_evaluation);
  if (p.eval_state === 'running') {
    const job = await jobs.get(auth.orgId, p.eval_job_id);
    if (job && job.state !== 'queued' && job.state !== 'running') await applyEval(auth.orgId, job);
    p = await getRow(auth, id);
  }
  return { project_id: p.id, state: p.eval_state, error: engineErrorText(p.eval_error, lang), evaluation: p.eval_result_json ? storedEvaluation(p.eval_result_json) : null };
}
