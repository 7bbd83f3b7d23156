import type { AuthContext } from '../../auth/guard.js';
import { embedReportFont } from '../../pdf/index.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { ident, jsonNumber, sqlString } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import type { StatisticalProjectTable } from './db.js';
import { evaluation, type ProjectInfo, resultCsv, summaryCsv, type TestResult } from './interpret.js';
import { errors } from './messages.js';
import { projectRepo } from './repo.js';
import { reportHtml } from './report.js';
import { statisticalAnalysisJob } from './jobs.js';
import { jobProgress } from '../../jobs/progress.js';
import { SUBJECT, projectKey, bad, jobErrorText, toView } from './rules.js';
import { columnsOf, query, type StatisticalDeps } from './data-checks.js';
import { applyFinish, reconcile, register, run } from './runs.js';

export function makeStatisticalService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const { db, jobs, storage, duckdb } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<StatisticalProjectTable> {
    const row = await projectRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, errors.project_not_found);
    return reconcile(deps, row);
  }

  async function resultOf(auth: AuthContext, id: string): Promise<{ row: StatisticalProjectTable; result: TestResult }> {
    const row = await getRow(auth, id);
    if (!row.result_json) throw new AppError(409, errors.no_result);
    return { row, result: statisticalAnalysisJob.parseStored(row.result_json) };
  }

  const info = (row: StatisticalProjectTable): ProjectInfo => ({ name: row.name, dataset_name: row.dataset_name, test_type: row.test_type, finished_at: row.finished_at });

  const deps: StatisticalDeps = { db, jobs, storage, duckdb, datasets, getRow };
  const on = <A extends unknown[], R>(f: (d: StatisticalDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);

  return {
    getRow,
    toView,
    register: on(register),
    run: on(run),
    async get(auth: AuthContext, id: string, lang: Lang) {
      return toView(await getRow(auth, id), lang);
    },
    async list(auth: AuthContext, q: { state?: string; query?: string; page: number; page_size: number }, lang: Lang) {
      const { items, total } = await projectRepo.list(db, auth.orgId, q);
      const fresh = await Promise.all(items.map((r) => reconcile(deps, r)));
      return { items: fresh.map((r) => toView(r, lang)), total };
    },
    async all(auth: AuthContext, state: string | undefined) {
      const items = await projectRepo.all(db, auth.orgId, state || undefined);
      const counts: Record<string, number> = { all: 0, ready: 0, running: 0, done: 0, failed: 0 };
      for (const c of await projectRepo.counts(db, auth.orgId)) {
        counts[c.state] = Number(c.n);
        counts.all += Number(c.n);
      }
      return { items, counts };
    },
    /** The run: job state, progress and (when done) the full result. */
    async trainResult(auth: AuthContext, id: string, lang: Lang) {
      const row = await getRow(auth, id);
      const job = row.job_id ? await jobs.get(auth.orgId, row.job_id) : undefined;
      return {
        project_id: row.id,
        state: row.state,
        job_id: row.job_id,
        job_state: job?.state ?? 'none',
        ...jobProgress(job),
        error: jobErrorText(row.error ?? job?.error ?? null, lang),
        log: row.state === 'failed' ? (job?.log ?? '') : '',
        started_at: job?.started_at ?? null,
        finished_at: row.finished_at,
        result: row.result_json ? statisticalAnalysisJob.parseStored(row.result_json) : null,
      };
    },
    async evalResult(auth: AuthContext, id: string) {
      const { row, result } = await resultOf(auth, id);
      return { project_id: row.id, ...evaluation(result) };
    },
    async remove(auth: AuthContext, id: string) {
      const row = await getRow(auth, id);
      if (row.state === 'running' && row.job_id) await jobs.cancel(auth.orgId, row.job_id).catch(() => undefined);
      await projectRepo.delete(db, auth.orgId, id);
      storage.remove(projectKey(auth.orgId, id));
      return { id };
    },
    async resultFile(auth: AuthContext, id: string, format: 'csv' | 'html', lang: Lang) {
      const { row, result } = await resultOf(auth, id);
      // eslint-disable-next-line no-control-regex -- control characters are among what a file name must not hold
      const base = row.name.replace(/[\\/:*?"<>|\x00-\x1f]+/g, '_').slice(0, 100) || 'statistical_analysis';
      if (format === 'html') return { body: await embedReportFont(reportHtml(info(row), result, lang)), type: 'text/html; charset=utf-8', fileName: `${base}_report.html` };
      return { body: resultCsv(info(row), result, lang), type: 'text/csv; charset=utf-8', fileName: `${base}_result.csv` };
    },
    async summary(auth: AuthContext, ids: string[], lang: Lang) {
      const rows = ids.length
        ? await Promise.all(ids.map((id) => getRow(auth, id)))
        : await Promise.all((await projectRepo.all(db, auth.orgId)).map((r) => getRow(auth, r.id)));
      const items = rows.map((r) => ({ project: { ...info(r), id: r.id, state: r.state }, result: r.result_json ? statisticalAnalysisJob.parseStored(r.result_json) : null }));
      return summaryCsv(items, lang);
    },
    /** Distinct values of a column with their counts (most frequent first), to choose the groups of a category. */
    async values(auth: AuthContext, datasetId: string, column: string) {
      const ds = await datasets.getRow(auth, datasetId);
      const col = columnsOf(ds).find((c) => c.name === column);
      if (!col) throw bad('column', 'column_missing', { column });
      const file = sqlString(datasets.parquetPath(ds));
      const q = ident(column);
      const rows = await query(
        deps,
        `SELECT CAST(${q} AS VARCHAR) AS value, count(*) AS n FROM read_parquet(${file}) WHERE ${q} IS NOT NULL GROUP BY ${q} ORDER BY n DESC, value LIMIT 200`,
      );
      const [d] = await query(deps, `SELECT count(DISTINCT ${q}) AS d FROM read_parquet(${file})`);
      return { column, type: col.type, distinct: jsonNumber(d.d) ?? 0, values: rows.map((r) => ({ value: String(r.value), count: jsonNumber(r.n) ?? 0 })) };
    },
    /** Installed once at start-up (services.ts): a finished test lands in its project. */
    installJobHandlers() {
      jobs.onFinished(statisticalAnalysisJob, async (job, orgId) => {
        if (job.subject_type !== SUBJECT || !job.subject_id) return;
        await applyFinish(deps, orgId, job.subject_id, job);
      });
    },
  };
}

