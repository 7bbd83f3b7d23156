import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { toCsv } from './csv.js';
import { errors } from './messages.js';
import { designRepo } from './repo.js';
import { storedDesign } from './jobs.js';
import type { DesignDeps } from './base.js';
import { roundResults } from './stored.js';

// The CSV files of a project: a round's experiment sheet and every round's runs with their results.

// eslint-disable-next-line no-control-regex -- control characters are among what a file name must not hold
const safeName = (name: string) => name.replace(/[\\/:*?"<>|\x00-\x1f]+/g, '_').slice(0, 100) || 'optimal_design';

/** The experiment sheet: every run to do, in a random order, with an empty column per result. */
export async function experimentSheet(d: DesignDeps, auth: AuthContext, id: string, round?: number) {
  const { roundOf, settingsOf } = d;
  const { p, r } = await roundOf(auth, id, round);
  if (!r.result_json) throw new AppError(409, errors.no_result);
  const s = settingsOf(p);
  const res = storedDesign(r.result_json);
  const names = s.variables.map((v) => v.name);
  const rows = res.runs.map((run, i) => [r.round, i + 1, ...names.map((n) => run[n]), ...s.responses.map(() => '')]);
  return { body: toCsv(['round', 'run', ...names, ...s.responses], rows), fileName: `${safeName(p.name)}_round${r.round}_experiment.csv` };
}

/** Every round's runs, with the results measured so far and, for BO rounds, the predictions. */
export async function resultCsv(d: DesignDeps, auth: AuthContext, id: string) {
  const { db, getRow, settingsOf, reconcile } = d;
  const p = await getRow(auth, id);
  const s = settingsOf(p);
  const names = s.variables.map((v) => v.name);
  const rows: unknown[][] = [];
  for (const row of s.existing_rows) rows.push([0, '', 'existing', ...names.map((n) => row[n]), ...s.responses.map((x) => row[x] ?? ''), '', '']);
  for (const r of await reconcile(auth.orgId, await designRepo.rounds(db, auth.orgId, id))) {
    if (!r.result_json) continue;
    const res = storedDesign(r.result_json);
    const measured = roundResults(r) ?? [];
    res.runs.forEach((run, i) => {
      const m = measured[i] ?? {};
      rows.push([r.round, i + 1, r.algorithm, ...names.map((n) => run[n]), ...s.responses.map((x) => m[x] ?? ''), res.bo?.mean[i] ?? '', res.bo?.sd[i] ?? '']);
    });
  }
  return { body: toCsv(['round', 'run', 'source', ...names, ...s.responses, 'predicted_mean', 'predicted_sd'], rows), fileName: `${safeName(p.name)}_design.csv` };
}
