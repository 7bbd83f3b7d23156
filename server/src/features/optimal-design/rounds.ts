import crypto from 'node:crypto';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { OptimalDesignProjectTable, OptimalDesignRoundTable } from './db.js';
import { engineErrorText, errors, isInputError } from './messages.js';
import { designRepo } from './repo.js';
import { optimalDesignJob, storedDesign } from './jobs.js';
import type { RegisterSettings, RoundSettings } from './schemas.js';
import { bad, type DesignDeps, INPUT_WAIT_MS, now, projectKey, readRows, type Row, type Settings, SUBJECT } from './base.js';
import { roundResults } from './stored.js';

// A project registered with its first round, and the next rounds proposed from the results measured.

/** Runs already done (or planned) before round `upTo`: the runs file, other projects' runs, earlier rounds. */
async function existingRows(d: DesignDeps, auth: AuthContext, p: OptimalDesignProjectTable, s: Settings, upTo: number): Promise<Row[]> {
  const { db, getRow, settingsOf } = d;
  const rows: Row[] = [...s.existing_rows];
  const names = s.variables.map((v) => v.name);
  for (const otherId of s.existing_project_ids) {
    const other = await getRow(auth, otherId);
    const os = settingsOf(other);
    const missing = names.find((n) => !os.variables.some((v) => v.name === n));
    if (missing) throw bad('existing_project_ids', 'existing_project_variables', { project: other.name, variable: missing });
    rows.push(...os.existing_rows);
    for (const r of await designRepo.rounds(db, auth.orgId, other.id)) rows.push(...(roundResults(r) ?? []));
  }
  for (const r of await designRepo.rounds(db, auth.orgId, p.id)) {
    if (r.round >= upTo) continue;
    if (r.results_json) rows.push(...(roundResults(r) ?? []));
    else if (r.result_json) rows.push(...storedDesign(r.result_json).runs);
  }
  return rows;
}

async function boSpec({ training }: DesignDeps, auth: AuthContext, bo: RoundSettings['bo']) {
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
async function startRound(d: DesignDeps, auth: AuthContext, p: OptimalDesignProjectTable, round: number, rs: RoundSettings, lang: Lang, isNewProject: boolean) {
  const { db, jobs, storage, settingsOf, view } = d;
  const s = settingsOf(p);
  const existing = await existingRows(d, auth, p, s, round);
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
    bo: await boSpec(d, auth, rs.bo),
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


export async function register(d: DesignDeps, auth: AuthContext, body: RegisterSettings, files: { exclude?: string; runs?: string }, lang: Lang) {
  const { db, getRow } = d;
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
    return await startRound(d, auth, row, 1, { algorithm, n_runs, seed, starts, parameters, bo }, lang, true);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    await designRepo.delete(db, auth.orgId, row.id); // nothing stored for bad input
    throw e;
  }
}

/** Stores the measured results of the newest round and proposes the next batch. */
export async function nextRound(d: DesignDeps, auth: AuthContext, id: string, rs: RoundSettings, resultsCsv: string | undefined, lang: Lang) {
  const { db, getRow, roundOf, settingsOf } = d;
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
    return await startRound(d, auth, p, r.round + 1, rs, lang, false);
  } catch (e) {
    if (resultsCsv && e instanceof AppError) await designRepo.updateRound(db, auth.orgId, id, r.round, { results_json: r.results_json });
    throw e;
  }
}
