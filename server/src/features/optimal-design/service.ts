import crypto from 'node:crypto';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import type { TrainingService } from '../training/service.js';
import { parseCsv, toCsv } from './csv.js';
import type { OptimalDesignProjectTable, OptimalDesignRoundTable } from './db.js';
import { type ErrorCode, engineErrorText, errors, type FileCode, isInputError, localText } from './messages.js';
import { designRepo } from './repo.js';
import { optimalDesignJob, storedDesign, storedEvaluation } from './jobs.js';
import { checked } from '../../jobs/kind.js';
import { designEvaluation, designResult, type RegisterSettings, type RoundParameters, type RoundSettings } from './schemas.js';

export const SUBJECT = 'optimal_design_round';
const EVAL_SUBJECT = 'optimal_design_evaluation';
/** How long a request waits for the engine's checks, so bad input is refused with nothing stored. */
const INPUT_WAIT_MS = 120_000;

type Row = Record<string, string | number | null>;
interface Settings extends Omit<RegisterSettings, keyof RoundSettings | 'name' | 'comment'> {
  exclude_rows: Row[];
  existing_rows: Row[];
}

export const projectKey = (orgId: string, id: string) => `org/${orgId}/optimal-design/${id}`;
const now = () => new Date().toISOString();
const bad = (field: string, code: ErrorCode, params: Record<string, string | number> = {}) => new AppError(422, localText(code, params), {}, field);
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

export function makeDesignService(ctx: AppContext, { training }: { training: TrainingService }) {
  const { db, jobs, storage } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<OptimalDesignProjectTable> {
    const row = await designRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, errors.project_not_found);
    return row;
  }

  const settingsOf = (p: OptimalDesignProjectTable) => JSON.parse(p.settings_json) as Settings;

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

  function roundView(r: OptimalDesignRoundTable, lang: Lang) {
    return {
      round: r.round,
      algorithm: r.algorithm,
      n_runs: r.n_runs,
      parameters: JSON.parse(r.parameters_json) as RoundParameters,
      state: r.state,
      job_id: r.job_id,
      error: engineErrorText(r.error, lang),
      result: r.result_json ? storedDesign(r.result_json) : null,
      results: r.results_json ? (JSON.parse(r.results_json) as Row[]) : null,
      created_at: r.created_at,
      finished_at: r.finished_at,
    };
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

  /** Runs already done (or planned) before round `upTo`: the runs file, other projects' runs, earlier rounds. */
  async function existingRows(auth: AuthContext, p: OptimalDesignProjectTable, s: Settings, upTo: number): Promise<Row[]> {
    const rows: Row[] = [...s.existing_rows];
    const names = s.variables.map((v) => v.name);
    for (const otherId of s.existing_project_ids) {
      const other = await getRow(auth, otherId);
      const os = settingsOf(other);
      const missing = names.find((n) => !os.variables.some((v) => v.name === n));
      if (missing) throw bad('existing_project_ids', 'existing_project_variables', { project: other.name, variable: missing });
      rows.push(...os.existing_rows);
      for (const r of await designRepo.rounds(db, auth.orgId, other.id)) if (r.results_json) rows.push(...(JSON.parse(r.results_json) as Row[]));
    }
    for (const r of await designRepo.rounds(db, auth.orgId, p.id)) {
      if (r.round >= upTo) continue;
      if (r.results_json) rows.push(...(JSON.parse(r.results_json) as Row[]));
      else if (r.result_json) rows.push(...storedDesign(r.result_json).runs);
    }
    return rows;
  }

  async function boSpec(auth: AuthContext, bo: RoundSettings['bo']) {
    if (!bo) return null;
    let model_path: string | null = null;
    let condition_path: string | null = null;
    if (bo.model) {
      const project = await training.getProject(auth, bo.model.project_id);
      if (project.project_type !== 'regression') throw bad('bo.model', 'model_not_regression');
      const model = await training.getModel(auth, bo.model.project_id, bo.model.model_key);
      const dir = training.runDir(model);
      if (model.state !== 'done' || !dir) throw bad('bo.model', 'model_not_ready');
      model_path = path.join(dir, 'model.joblib');
      condition_path = training.conditionPath(auth.orgId, project.dataset_id);
    }
    return { response: bo.response, direction: bo.direction, model_path, condition_path };
  }

  /** Starts a round's job and waits for the engine's checks: bad input becomes a 422 and the round is removed. */
  async function startRound(auth: AuthContext, p: OptimalDesignProjectTable, round: number, rs: RoundSettings, lang: Lang, isNewProject: boolean) {
    const s = settingsOf(p);
    const existing = await existingRows(auth, p, s, round);
    const seed = rs.seed ?? crypto.randomInt(0, 2 ** 31 - 1);
    const params = { seed, starts: rs.starts ?? 10, parameters: rs.parameters ?? {}, bo: rs.bo ?? null };
    const spec = {
      output_dir: storage.pathOf(`${projectKey(auth.orgId, p.id)}/round-${round}`),
      mode: 'design',
      variables: s.variables,
      constraints: s.constraints.map((c) => ({ ...c })),
      mixture_total: s.mixture_total ?? null,
      model: s.model,
      responses: s.responses,
      exclude: { rows: s.exclude_rows, tolerance: s.exclude_tolerance },
      existing,
      algorithm: rs.algorithm,
      n_runs: rs.n_runs,
      seed, lang, // lang: the language of the person starting the round; the engine says its progress in it
      starts: params.starts,
      parameters: params.parameters,
      bo: await boSpec(auth, rs.bo),
    };
    const roundRow: OptimalDesignRoundTable = {
      id: crypto.randomUUID(), organisation_id: auth.orgId, project_id: p.id, round, algorithm: rs.algorithm, n_runs: rs.n_runs,
      parameters_json: JSON.stringify(params), state: 'running', job_id: null, error: null, result_json: null, results_json: null,
      created_at: now(), finished_at: null,
    };
    await designRepo.insertRound(db, roundRow);
    await designRepo.update(db, auth.orgId, p.id, { state: 'running', rounds: round, updated_at: now() });
    const job = await jobs.create({
      orgId: auth.orgId, userId: auth.userId, kind: optimalDesignJob, subjectType: SUBJECT, subjectId: p.id, spec,
      beforeEnqueue: async (j) => {
        await designRepo.updateRound(db, auth.orgId, p.id, round, { job_id: j.id });
      },
    });
    const finished = await jobs.waitFor(job.id, INPUT_WAIT_MS).catch(() => null);
    if (finished && finished.state === 'failed' && isInputError(finished.error)) {
      if (isNewProject) {
        await designRepo.delete(db, auth.orgId, p.id);
        storage.remove(projectKey(auth.orgId, p.id));
      } else {
        await designRepo.deleteRound(db, auth.orgId, p.id, round);
        await designRepo.update(db, auth.orgId, p.id, { rounds: round - 1, state: 'done', updated_at: now() });
      }
      throw new AppError(422, { en: engineErrorText(finished.error, 'en')!, ja: engineErrorText(finished.error, 'ja')! }, {}, 'settings');
    }
    return view(auth, (await designRepo.get(db, auth.orgId, p.id))!, lang);
  }

  async function roundOf(auth: AuthContext, id: string, round?: number) {
    const p = await getRow(auth, id);
    const rounds = await reconcile(auth.orgId, await designRepo.rounds(db, auth.orgId, id));
    const r = rounds.find((x) => x.round === (round ?? p.rounds));
    if (!r) throw new AppError(404, errors.round_not_found);
    return { p, r };
  }

  // eslint-disable-next-line no-control-regex -- control characters are among what a file name must not hold
  const safeName = (name: string) => name.replace(/[\\/:*?"<>|\x00-\x1f]+/g, '_').slice(0, 100) || 'optimal_design';

  return {
    async register(auth: AuthContext, body: RegisterSettings, files: { exclude?: string; runs?: string }, lang: Lang) {
      const { name, comment, algorithm, n_runs, seed, starts, parameters, bo, ...rest } = body;
      const names = rest.variables.map((v) => v.name);
      const settings: Settings = {
        ...rest,
        exclude_rows: files.exclude ? readRows(files.exclude, 'exclude', names, []) : [],
        existing_rows: files.runs ? readRows(files.runs, 'runs', names, rest.responses) : [],
      };
      for (const id of settings.existing_project_ids) await getRow(auth, id);
      const t = now();
      const row: OptimalDesignProjectTable = {
        id: crypto.randomUUID(), organisation_id: auth.orgId, name, comment, settings_json: JSON.stringify(settings), state: 'running', rounds: 0,
        eval_job_id: null, eval_state: null, eval_error: null, eval_result_json: null, created_by: auth.userId, created_at: t, updated_at: t,
      };
      await designRepo.insert(db, row);
      try {
        return await startRound(auth, row, 1, { algorithm, n_runs, seed, starts, parameters, bo }, lang, true);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        await designRepo.delete(db, auth.orgId, row.id); // nothing stored for bad input
        throw e;
      }
    },

    /** Stores the measured results of the newest round and proposes the next batch. */
    async nextRound(auth: AuthContext, id: string, rs: RoundSettings, resultsCsv: string | undefined, lang: Lang) {
      const p = await getRow(auth, id);
      const { r } = await roundOf(auth, id);
      if (r.state === 'running') throw new AppError(409, errors.project_running);
      const s = settingsOf(p);
      if (resultsCsv) {
        const rows = readRows(resultsCsv, 'results', s.variables.map((v) => v.name), s.responses);
        const missing = s.responses.find((resp) => !(resp in rows[0]));
        if (missing) throw bad('file', 'results_missing_response', { response: missing });
        await designRepo.updateRound(db, auth.orgId, id, r.round, { results_json: JSON.stringify(rows) });
      }
      try {
        return await startRound(auth, p, r.round + 1, rs, lang, false);
      } catch (e) {
        if (resultsCsv && e instanceof AppError) await designRepo.updateRound(db, auth.orgId, id, r.round, { results_json: r.results_json });
        throw e;
      }
    },

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

    /** The experiment sheet: every run to do, in a random order, with an empty column per result. */
    async experimentSheet(auth: AuthContext, id: string, round?: number) {
      const { p, r } = await roundOf(auth, id, round);
      if (!r.result_json) throw new AppError(409, errors.no_result);
      const s = settingsOf(p);
      const res = storedDesign(r.result_json);
      const names = s.variables.map((v) => v.name);
      const rows = res.runs.map((run, i) => [r.round, i + 1, ...names.map((n) => run[n]), ...s.responses.map(() => '')]);
      return { body: toCsv(['round', 'run', ...names, ...s.responses], rows), fileName: `${safeName(p.name)}_round${r.round}_experiment.csv` };
    },

    /** Every round's runs, with the results measured so far and, for BO rounds, the predictions. */
    async resultCsv(auth: AuthContext, id: string) {
      const p = await getRow(auth, id);
      const s = settingsOf(p);
      const names = s.variables.map((v) => v.name);
      const rows: unknown[][] = [];
      for (const row of s.existing_rows) rows.push([0, '', 'existing', ...names.map((n) => row[n]), ...s.responses.map((x) => row[x] ?? ''), '', '']);
      for (const r of await reconcile(auth.orgId, await designRepo.rounds(db, auth.orgId, id))) {
        if (!r.result_json) continue;
        const res = storedDesign(r.result_json);
        const measured = r.results_json ? (JSON.parse(r.results_json) as Row[]) : [];
        res.runs.forEach((run, i) => {
          const m = measured[i] ?? {};
          rows.push([r.round, i + 1, r.algorithm, ...names.map((n) => run[n]), ...s.responses.map((x) => m[x] ?? ''), res.bo?.mean[i] ?? '', res.bo?.sd[i] ?? '']);
        });
      }
      return { body: toCsv(['round', 'run', 'source', ...names, ...s.responses, 'predicted_mean', 'predicted_sd'], rows), fileName: `${safeName(p.name)}_design.csv` };
    },

    async evaluate(auth: AuthContext, id: string, csv: string, lang: Lang) {
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
      return this.evalResult(auth, id, lang);
    },

    async evalResult(auth: AuthContext, id: string, lang: Lang) {
      let p = await getRow(auth, id);
      if (!p.eval_job_id) throw new AppError(404, errors.no_evaluation);
      if (p.eval_state === 'running') {
        const job = await jobs.get(auth.orgId, p.eval_job_id);
        if (job && job.state !== 'queued' && job.state !== 'running') await applyEval(auth.orgId, job);
        p = await getRow(auth, id);
      }
      return { project_id: p.id, state: p.eval_state, error: engineErrorText(p.eval_error, lang), evaluation: p.eval_result_json ? storedEvaluation(p.eval_result_json) : null };
    },

    async remove(auth: AuthContext, id: string) {
      await getRow(auth, id);
      for (const r of await designRepo.rounds(db, auth.orgId, id)) {
        if (r.state === 'running' && r.job_id) await jobs.cancel(auth.orgId, r.job_id).catch(() => undefined);
      }
      await designRepo.delete(db, auth.orgId, id);
      storage.remove(projectKey(auth.orgId, id));
      return { id };
    },

    async onJobFinished(job: JobView, orgId: string) {
      if (job.subject_type === SUBJECT) await applyFinish(orgId, job);
      else if (job.subject_type === EVAL_SUBJECT) await applyEval(orgId, job);
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

function summary(p: OptimalDesignProjectTable) {
  const s = JSON.parse(p.settings_json) as Settings;
  return { id: p.id, name: p.name, state: p.state, rounds: p.rounds, variables: s.variables.length, created_at: p.created_at, updated_at: p.updated_at };
}
