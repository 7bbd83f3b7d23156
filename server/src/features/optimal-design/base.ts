import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import type { TrainingService } from '../training/service.js';
import { parseCsv } from './csv.js';
import type { OptimalDesignProjectTable, OptimalDesignRoundTable } from './db.js';
import { type ErrorCode, engineErrorText, errors, type FileCode, localText } from './messages.js';
import { designRepo } from './repo.js';
import { optimalDesignJob, storedDesign } from './jobs.js';
import { checked } from '../../jobs/kind.js';
import { designEvaluation, designResult } from './schemas.js';
import { designSettings, roundParametersOf, roundResults } from './stored.js';

export const SUBJECT = 'optimal_design_round';
export const EVAL_SUBJECT = 'optimal_design_evaluation';
/** How long a request waits for the engine's checks, so bad input is refused with nothing stored. */
export const INPUT_WAIT_MS = 120_000;

export type Row = Record<string, string | number | null>;
export type { Settings } from './stored.js';

export const projectKey = (orgId: string, id: string) => `org/${orgId}/optimal-design/${id}`;
export const now = () => new Date().toISOString();
export const bad = (field: string, code: ErrorCode, params: Record<string, string | number> = {}) => new AppError(422, localText(code, params), {}, field);
const META = new Set(['run', 'round', 'source', 'predicted_mean', 'predicted_sd', 'expected_improvement']);

/** Rows of an uploaded CSV, with every column checked against the project's variables and results. */
export function readRows(text: string, file: FileCode, variables: string[], responses: string[]): Row[] {
  const { header, rows } = parseCsv(text);
  if (!rows.length) throw bad('file', 'file_empty', { file });
  for (const h of header) {
    if (!variables.includes(h) && !responses.includes(h) && !META.has(h)) throw bad('file', 'file_unknown_column', { file, column: h });
  }
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !META.has(k))));
}

function roundView(r: OptimalDesignRoundTable, lang: Lang) {
  return {
    round: r.round,
    algorithm: r.algorithm,
    n_runs: r.n_runs,
    parameters: roundParametersOf(r),
    state: r.state,
    job_id: r.job_id,
    error: engineErrorText(r.error, lang),
    result: r.result_json ? storedDesign(r.result_json) : null,
    results: roundResults(r),
    created_at: r.created_at,
    finished_at: r.finished_at,
  };
}


/** What the service's modules share: the app's database, jobs and storage, the training area, the project and round
 * reads (finishing rounds whose job ended) and the project view. */
export function makeDesignBase(ctx: AppContext, { training }: { training: TrainingService }) {
  const { db, jobs, storage } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<OptimalDesignProjectTable> {
    const row = await designRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, errors.project_not_found);
    return row;
  }

  const settingsOf = designSettings;

  async function reconcile(orgId: string, rounds: OptimalDesignRoundTable[]): Promise<OptimalDesignRoundTable[]> {
    const out = [];
    for (const r of rounds) {
      if (r.state === 'running' && r.job_id) {
        const job = await jobs.get(orgId, r.job_id);
        if (job && job.state !== 'queued' && job.state !== 'running') {
          await applyFinish(orgId, job);
          out.push((await designRepo.roundOfJob(db, orgId, r.job_id)) ?? r);
          continue;
        }
      }
      out.push(r);
    }
    return out;
  }

  async function applyFinish(orgId: string, job: JobView): Promise<void> {
    const done = job.state === 'succeeded';
    const round = await designRepo.roundOfJob(db, orgId, job.id);
    if (!round) return;
    await designRepo.finishRound(db, orgId, job.id, {
      state: done ? 'done' : 'failed',
      result_json: done ? JSON.stringify(checked(optimalDesignJob.kind, designResult, job.result)) : null,
      error: done ? null : (job.error ?? 'failed'),
      finished_at: job.finished_at ?? now(),
    });
    const p = await designRepo.get(db, orgId, round.project_id);
    if (p && p.rounds === round.round) await designRepo.update(db, orgId, p.id, { state: done ? 'done' : 'failed', updated_at: now() });
  }

  async function applyEval(orgId: string, job: JobView): Promise<void> {
    if (!job.subject_id) return;
    const p = await designRepo.get(db, orgId, job.subject_id);
    if (!p || p.eval_job_id !== job.id) return;
    const done = job.state === 'succeeded';
    await designRepo.update(db, orgId, p.id, {
      eval_state: done ? 'done' : 'failed',
      eval_result_json: done ? JSON.stringify(checked(optimalDesignJob.kind, designEvaluation, job.result)) : null,
      eval_error: done ? null : (job.error ?? 'failed'),
    });
  }

  async function view(auth: AuthContext, p: OptimalDesignProjectTable, lang: Lang) {
    const rounds = await reconcile(auth.orgId, await designRepo.rounds(db, auth.orgId, p.id));
    const fresh = (await designRepo.get(db, auth.orgId, p.id)) ?? p;
    const { exclude_rows, existing_rows, ...settings } = settingsOf(fresh);
    return {
      id: fresh.id,
      name: fresh.name,
      comment: fresh.comment,
      state: fresh.state,
      rounds: fresh.rounds,
      settings: { ...settings, exclude_count: exclude_rows.length, existing_rows },
      round_list: rounds.map((r) => roundView(r, lang)),
      eval_state: fresh.eval_state,
      eval_error: engineErrorText(fresh.eval_error, lang),
      created_at: fresh.created_at,
      updated_at: fresh.updated_at,
    };
  }

  async function roundOf(auth: AuthContext, id: string, round?: number) {
    const p = await getRow(auth, id);
    const rounds = await reconcile(auth.orgId, await designRepo.rounds(db, auth.orgId, id));
    const r = rounds.find((x) => x.round === (round ?? p.rounds));
    if (!r) throw new AppError(404, errors.round_not_found);
    return { p, r };
  }

  return { db, jobs, storage, training, getRow, settingsOf, reconcile, applyFinish, applyEval, view, roundOf };
}
export type DesignDeps = ReturnType<typeof makeDesignBase>;

export function summary(p: OptimalDesignProjectTable) {
  const s = designSettings(p);
  return { id: p.id, name: p.name, state: p.state, rounds: p.rounds, variables: s.variables.length, created_at: p.created_at, updated_at: p.updated_at };
}
