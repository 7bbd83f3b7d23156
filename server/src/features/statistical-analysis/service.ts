import { embedReportFont } from '../../pdf/index.js';
import crypto from 'node:crypto';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { engineErrorText } from '../../i18n/engine-errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import type { JobView } from '../../jobs/service.js';
import { ident, jsonNumber, sqlString, withConnection } from '../../duck/index.js';
import type { ColumnType } from '../datasets/column-stats.js';
import type { DatasetService } from '../datasets/service.js';
import type { StatisticalProjectTable } from './db.js';
import { evaluation, type ProjectInfo, resultCsv, summaryCsv, type TestResult } from './interpret.js';
import { type ErrorCode, errors } from './messages.js';
import { projectRepo } from './repo.js';
import { reportHtml } from './report.js';
import type { ProjectSettings, RegisterBody, TestType } from './schemas.js';
import { statisticalAnalysisJob } from './jobs.js';

export const SUBJECT = 'statistical_project';
const MAX_GROUPS = 50;
const NUMERIC: ColumnType[] = ['integer', 'float'];
const CATEGORY: ColumnType[] = ['string', 'integer', 'boolean', 'float'];
const TWO_GROUPS: TestType[] = ['two_sample_t', 'mann_whitney', 'f_test'];
const ONE_SIDED_OK: TestType[] = ['one_sample_t', 'two_sample_t', 'paired_t', 'mann_whitney', 'wilcoxon', 'pearson', 'spearman', 'f_test'];

export const projectKey = (orgId: string, id: string) => `org/${orgId}/statistical-analysis/${id}`;

const bad = (field: string, code: ErrorCode, params: Record<string, string | number> = {}) => new AppError(422, errors[code], params, field);
const now = () => new Date().toISOString();

/** The engine's input errors, said in the reader's language (this area's catalogue first, then the engine's). */
export function jobErrorText(error: string | null, lang: Lang): string | null {
  return engineErrorText(error, lang, errors as Record<string, LocalText>);
}

type Settings = Omit<ProjectSettings, 'groups'> & { groups: string[] };

export function toView(row: StatisticalProjectTable, lang: Lang) {
  let summary: { statistic: string | null; value: number | null; p_value: number | null; reject: boolean; method: string } | null = null;
  if (row.result_json) {
    const r = statisticalAnalysisJob.parseStored(row.result_json);
    summary = { statistic: r.statistic?.symbol ?? null, value: r.statistic?.value ?? null, p_value: r.p_value, reject: r.reject, method: r.method };
  }
  return {
    id: row.id,
    name: row.name,
    comment: row.comment,
    dataset_id: row.dataset_id,
    dataset_name: row.dataset_name,
    test_type: row.test_type,
    variable1: row.variable1,
    variable2: row.variable2,
    category: row.category,
    group1: row.group1,
    group2: row.group2,
    groups: JSON.parse(row.groups_json) as string[],
    hypothetical_mean: Number(row.hypothetical_mean),
    significance_level: Number(row.significance_level),
    alternative: row.alternative,
    equal_variance: row.equal_variance,
    state: row.state,
    job_id: row.job_id,
    error: jobErrorText(row.error, lang),
    summary,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

/**
 * The settings checked against the dataset's columns and normalised (fields a test does not use become null).
 * Pure: the rules of SPEC §3's statistical project per test type.
 */
export function normalizeSettings(s: Settings, columns: { name: string; type: ColumnType }[]): Settings {
  const types = new Map(columns.map((c) => [c.name, c.type]));
  if (!(s.significance_level > 0 && s.significance_level < 1)) throw bad('significance_level', 'alpha_range');
  if (!Number.isFinite(s.hypothetical_mean)) throw bad('hypothetical_mean', 'mean_not_finite');
  const exists = (name: string, field: string) => {
    const t = types.get(name);
    if (!t) throw bad(field, 'column_missing', { column: name });
    return t;
  };
  const numeric = (name: string | null, field: string, code: ErrorCode = 'variable2_needed') => {
    if (!name) throw bad(field, field === 'variable1' ? 'variable_required' : code);
    if (!NUMERIC.includes(exists(name, field))) throw bad(field, 'not_numeric', { column: name });
    return name;
  };
  const category = (name: string | null) => {
    if (!name) throw bad('category', 'category_required');
    if (!CATEGORY.includes(exists(name, 'category'))) throw bad('category', 'category_type', { column: name });
    if (name === s.variable1) throw bad('category', 'same_variable');
    return name;
  };
  const twoGroups = () => {
    if (s.group1 === null || s.group2 === null) throw bad(s.group1 === null ? 'group1' : 'group2', 'groups_required');
    if (s.group1 === s.group2) throw bad('group2', 'groups_same');
    return { group1: s.group1, group2: s.group2 };
  };
  const out: Settings = { ...s, groups: [] };
  const t = s.test_type;
  if (!ONE_SIDED_OK.includes(t)) out.alternative = 'two-sided';
  if (t !== 'two_sample_t') out.equal_variance = 'auto';
  const none = { variable2: null, category: null, group1: null, group2: null };
  const v1 = () => numeric(s.variable1 || null, 'variable1');
  switch (t) {
    case 'one_sample_t':
    case 'shapiro':
      return { ...out, variable1: v1(), ...none };
    case 'wilcoxon':
    case 'paired_t': {
      v1();
      if (s.category) {
        const cat = category(s.category);
        if (s.variable2) exists(s.variable2, 'variable2');
        return { ...out, category: cat, ...twoGroups(), variable2: s.variable2 ?? null };
      }
      if (!s.variable2) {
        if (t === 'wilcoxon') return { ...out, ...none };
        throw bad('variable2', 'variable2_required');
      }
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
    case 'two_sample_t':
    case 'mann_whitney':
    case 'f_test': {
      v1();
      if (s.category) return { ...out, category: category(s.category), ...twoGroups(), variable2: null };
      if (!s.variable2) throw bad('variable2', 'variable2_required');
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
    case 'anova': {
      v1();
      const groups = [...new Set(s.groups.filter((g) => g !== ''))];
      if (groups.length === 1) throw bad('groups', 'too_few_groups');
      return { ...out, ...none, category: category(s.category), groups };
    }
    case 'chi_square': {
      if (!s.variable1) throw bad('variable1', 'variable_required');
      exists(s.variable1, 'variable1');
      const v2 = s.variable2 || s.category;
      if (!v2) throw bad('variable2', 'variable2_needed');
      exists(v2, s.variable2 ? 'variable2' : 'category');
      if (v2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, ...none, variable2: v2 };
    }
    case 'pearson':
    case 'spearman': {
      v1();
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
  }
  return out;
}

export function makeStatisticalService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const { db, jobs, storage, duckdb } = ctx;

  const columnsOf = (ds: DatasetTable) => JSON.parse(ds.schema_json) as { name: string; type: ColumnType; dtype: string }[];

  async function query(sql: string): Promise<Record<string, unknown>[]> {
    try {
      return await withConnection(duckdb, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]);
    } catch (e) {
      throw new AppError(400, errors.data_unreadable, { reason: String((e as Error).message).split('\n')[0].slice(0, 300) });
    }
  }

  /** The category value a label stands for, as an SQL literal of the column's type. */
  function literal(label: string, col: { type: ColumnType; dtype: string }): string {
    if (col.type === 'string') return sqlString(label);
    return `TRY_CAST(${sqlString(label)} AS ${col.dtype})`;
  }

  /**
   * Rules that need the data, checked with DuckDB before anything is stored: the groups exist, each has at
   * least two values, the variance is not zero, pairs line up, a category has 2..50 values.
   */
  async function checkData(s: Settings, ds: DatasetTable): Promise<void> {
    const file = sqlString(datasets.parquetPath(ds));
    const cols = new Map(columnsOf(ds).map((c) => [c.name, c]));
    const v = (name: string) => `CAST(${ident(name)} AS DOUBLE)`;
    const t = s.test_type;
    interface Part {
      label: string;
      where: string;
      expr: string;
      min: number;
    }
    let parts: Part[] = [];
    let variance: 'each' | 'any' | 'none' = 'each';
    const eq = (g: string) => `${ident(s.category!)} = ${literal(g, cols.get(s.category!)!)}`;

    if (t === 'chi_square') {
      const [a, b] = [s.variable1, s.variable2!];
      const [row] = await query(
        `SELECT count(*) FILTER (WHERE ${ident(a)} IS NOT NULL AND ${ident(b)} IS NOT NULL) AS n, count(DISTINCT ${ident(a)}) AS da, count(DISTINCT ${ident(b)}) AS db FROM read_parquet(${file})`,
      );
      const n = jsonNumber(row.n) ?? 0;
      if (n < 2) throw bad('variable1', 'too_few_values', { group: `${a} × ${b}`, count: n, min: 2 });
      for (const [name, d, field] of [[a, row.da, 'variable1'], [b, row.db, 'variable2']] as const) {
        const k = jsonNumber(d) ?? 0;
        if (k < 2) throw bad(field, 'one_level', { column: name });
        if (k > MAX_GROUPS) throw bad(field, 'too_many_groups', { count: k, max: MAX_GROUPS });
      }
      return;
    }
    if (t === 'anova') {
      const rows = await query(
        `SELECT CAST(${ident(s.category!)} AS VARCHAR) AS g, count(${ident(s.variable1)}) AS n, var_samp(${v(s.variable1)}) AS var FROM read_parquet(${file}) WHERE ${ident(s.category!)} IS NOT NULL GROUP BY 1 ORDER BY 1 LIMIT ${MAX_GROUPS * 20}`,
      );
      const found = new Map(rows.map((r) => [String(r.g), { n: jsonNumber(r.n) ?? 0, var: jsonNumber(r.var) }]));
      let groups = s.groups;
      if (!groups.length) {
        if (found.size > MAX_GROUPS) throw bad('category', 'too_many_groups', { count: found.size, max: MAX_GROUPS });
        groups = [...found.keys()];
      }
      if (groups.length < 2) throw bad('category', 'too_few_groups');
      for (const g of groups) {
        const f = found.get(g);
        if (!f) throw bad('groups', 'group_missing', { column: s.category!, group: g });
        if (f.n < 2) throw bad('groups', 'too_few_values', { group: g, count: f.n, min: 2 });
      }
      if (groups.every((g) => !(found.get(g)!.var! > 0))) throw bad('variable1', 'zero_variance', { group: s.variable1 });
      return;
    }
    if (t === 'pearson' || t === 'spearman') {
      const both = `${ident(s.variable1)} IS NOT NULL AND ${ident(s.variable2!)} IS NOT NULL`;
      parts = [
        { label: s.variable1, where: both, expr: v(s.variable1), min: 3 },
        { label: s.variable2!, where: both, expr: v(s.variable2!), min: 3 },
      ];
    } else if (s.category && s.group1 !== null && s.group2 !== null) {
      parts = [s.group1, s.group2].map((g) => ({ label: g, where: eq(g), expr: v(s.variable1), min: 2 }));
      variance = t === 'two_sample_t' ? 'any' : t === 'f_test' ? 'each' : 'none';
    } else if ((t === 'paired_t' || t === 'wilcoxon') && s.variable2) {
      const both = `${ident(s.variable1)} IS NOT NULL AND ${ident(s.variable2)} IS NOT NULL`;
      parts = [{ label: `${s.variable1} − ${s.variable2}`, where: both, expr: `${v(s.variable1)} - ${v(s.variable2)}`, min: 2 }];
      variance = t === 'paired_t' ? 'each' : 'none';
    } else if (TWO_GROUPS.includes(t) && s.variable2) {
      parts = [s.variable1, s.variable2].map((c) => ({ label: c, where: 'TRUE', expr: v(c), min: 2 }));
      variance = t === 'two_sample_t' ? 'any' : t === 'f_test' ? 'each' : 'none';
    } else {
      parts = [{ label: s.variable1, where: 'TRUE', expr: v(s.variable1), min: t === 'shapiro' ? 3 : 2 }];
      variance = t === 'wilcoxon' ? 'none' : 'each';
    }
    const select = parts.flatMap((p, i) => [
      `count(*) FILTER (WHERE ${p.where}) AS r${i}`,
      `count(${p.expr}) FILTER (WHERE ${p.where}) AS n${i}`,
      `var_samp(${p.expr}) FILTER (WHERE ${p.where}) AS v${i}`,
    ]);
    const [row] = await query(`SELECT ${select.join(', ')} FROM read_parquet(${file})`);
    const stats = parts.map((p, i) => ({ ...p, rows: jsonNumber(row[`r${i}`]) ?? 0, n: jsonNumber(row[`n${i}`]) ?? 0, var: jsonNumber(row[`v${i}`]) }));
    for (const [i, p] of stats.entries()) {
      if (s.category && p.rows === 0) throw bad(i === 0 ? 'group1' : 'group2', 'group_missing', { column: s.category, group: p.label });
    }
    for (const p of stats) if (p.n < p.min) throw bad('variable1', 'too_few_values', { group: p.label, count: p.n, min: p.min });
    const positive = stats.map((p) => (p.var ?? 0) > 0);
    if (variance === 'each' && positive.some((x) => !x)) throw bad('variable1', 'zero_variance', { group: stats[positive.indexOf(false)].label });
    if (variance === 'any' && !positive.some((x) => x)) throw bad('variable1', 'zero_variance', { group: s.variable1 });
    if ((t === 'paired_t' || t === 'wilcoxon') && s.category && !s.variable2 && stats[0].rows !== stats[1].rows) {
      throw bad('group2', 'pair_count_mismatch', { group1: stats[0].label, group2: stats[1].label, n1: stats[0].rows, n2: stats[1].rows });
    }
  }

  async function getRow(auth: AuthContext, id: string): Promise<StatisticalProjectTable> {
    const row = await projectRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, errors.project_not_found);
    return reconcile(row);
  }

  /** Stores a finished run on its project (once; only if it is still the project's current run). */
  async function applyFinish(orgId: string, projectId: string, job: JobView): Promise<void> {
    const done = job.state === 'succeeded';
    await projectRepo.finishRun(db, orgId, projectId, job.id, {
      state: done ? 'done' : 'failed',
      result_json: done ? JSON.stringify(statisticalAnalysisJob.resultOf(job)) : null,
      error: done ? null : (job.error ?? 'failed'),
      finished_at: job.finished_at ?? now(),
      updated_at: now(),
    });
  }

  /** A run that finished before its id was stored on the project is picked up here. */
  async function reconcile(row: StatisticalProjectTable): Promise<StatisticalProjectTable> {
    if (row.state !== 'running' || !row.job_id) return row;
    const job = await jobs.get(row.organisation_id, row.job_id);
    if (!job) {
      await projectRepo.finishRun(db, row.organisation_id, row.id, row.job_id, { state: 'failed', error: 'The job no longer exists.', updated_at: now() });
    } else if (job.state === 'queued' || job.state === 'running') {
      return row;
    } else {
      await applyFinish(row.organisation_id, row.id, job);
    }
    return (await projectRepo.get(db, row.organisation_id, row.id)) ?? row;
  }

  async function startRun(auth: AuthContext, row: StatisticalProjectTable, ds: DatasetTable): Promise<StatisticalProjectTable> {
    const job = await jobs.create({
      orgId: auth.orgId,
      userId: auth.userId,
      kind: statisticalAnalysisJob,
      subjectType: SUBJECT,
      subjectId: row.id,
      spec: {
        parquet: datasets.parquetPath(ds),
        output_dir: storage.pathOf(projectKey(auth.orgId, row.id)),
        test_type: row.test_type,
        variable1: row.variable1,
        variable2: row.variable2,
        category: row.category,
        group1: row.group1,
        group2: row.group2,
        groups: JSON.parse(row.groups_json),
        hypothetical_mean: Number(row.hypothetical_mean),
        significance_level: Number(row.significance_level),
        alternative: row.alternative,
        equal_variance: row.equal_variance,
      },
    });
    await projectRepo.update(db, auth.orgId, row.id, { state: 'running', job_id: job.id, error: null, result_json: null, finished_at: null, updated_at: now() });
    return getRow(auth, row.id);
  }

  function settingsOf(row: StatisticalProjectTable): Settings {
    return {
      test_type: row.test_type as TestType,
      variable1: row.variable1,
      variable2: row.variable2,
      category: row.category,
      group1: row.group1,
      group2: row.group2,
      groups: JSON.parse(row.groups_json),
      hypothetical_mean: Number(row.hypothetical_mean),
      significance_level: Number(row.significance_level),
      alternative: row.alternative as Settings['alternative'],
      equal_variance: row.equal_variance as Settings['equal_variance'],
    };
  }

  async function resultOf(auth: AuthContext, id: string): Promise<{ row: StatisticalProjectTable; result: TestResult }> {
    const row = await getRow(auth, id);
    if (!row.result_json) throw new AppError(409, errors.no_result);
    return { row, result: statisticalAnalysisJob.parseStored(row.result_json) };
  }

  const info = (row: StatisticalProjectTable): ProjectInfo => ({ name: row.name, dataset_name: row.dataset_name, test_type: row.test_type, finished_at: row.finished_at });

  return {
    getRow,
    toView,

    async register(auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang) {
      const ds = await datasets.getRow(auth, datasetId);
      if (!body.name) throw bad('name', 'name_required');
      const s = normalizeSettings({ ...body, groups: body.groups ?? [] }, columnsOf(ds));
      await checkData(s, ds);
      const t = now();
      const row: StatisticalProjectTable = {
        id: crypto.randomUUID(),
        organisation_id: auth.orgId,
        dataset_id: ds.id,
        dataset_name: ds.name,
        name: body.name,
        comment: body.comment ?? '',
        test_type: s.test_type,
        variable1: s.variable1,
        variable2: s.variable2,
        category: s.category,
        group1: s.group1,
        group2: s.group2,
        groups_json: JSON.stringify(s.groups),
        hypothetical_mean: s.hypothetical_mean,
        significance_level: s.significance_level,
        alternative: s.alternative,
        equal_variance: s.equal_variance,
        state: 'ready',
        job_id: null,
        error: null,
        result_json: null,
        created_by: auth.userId,
        created_at: t,
        updated_at: t,
        finished_at: null,
      };
      await projectRepo.insert(db, row);
      return toView(body.run ? await startRun(auth, row, ds) : row, lang);
    },

    /** Runs the test (again), optionally with changed settings; a run in progress is joined, not doubled. */
    async run(auth: AuthContext, id: string, patch: (Partial<ProjectSettings> & { name?: string }) | undefined, lang: Lang) {
      let row = await getRow(auth, id);
      if (row.state === 'running') return toView(row, lang);
      const ds = await datasets.getRow(auth, row.dataset_id);
      const { name, ...changes } = patch ?? {};
      const stored = settingsOf(row);
      const s = normalizeSettings({ ...stored, ...stripUndefined(changes) } as Settings, columnsOf(ds));
      // A dataset's data never change (pre-processing makes a new one), so unchanged settings were checked at
      // registration already; the engine checks them once more as it runs.
      if (JSON.stringify(s) !== JSON.stringify(normalizeSettings(stored, columnsOf(ds)))) await checkData(s, ds);
      await projectRepo.update(db, auth.orgId, id, {
        name: name || row.name,
        variable1: s.variable1,
        variable2: s.variable2,
        category: s.category,
        group1: s.group1,
        group2: s.group2,
        groups_json: JSON.stringify(s.groups),
        test_type: s.test_type,
        hypothetical_mean: s.hypothetical_mean,
        significance_level: s.significance_level,
        alternative: s.alternative,
        equal_variance: s.equal_variance,
        dataset_name: ds.name,
        updated_at: now(),
      });
      row = (await projectRepo.get(db, auth.orgId, id))!;
      return toView(await startRun(auth, row, ds), lang);
    },

    async get(auth: AuthContext, id: string, lang: Lang) {
      return toView(await getRow(auth, id), lang);
    },

    async list(auth: AuthContext, q: { state?: string; query?: string; page: number; page_size: number }, lang: Lang) {
      const { items, total } = await projectRepo.list(db, auth.orgId, q);
      const fresh = await Promise.all(items.map(reconcile));
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
        progress: job?.progress ?? 0,
        message: job?.message ?? '',
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
        `SELECT CAST(${q} AS VARCHAR) AS value, count(*) AS n FROM read_parquet(${file}) WHERE ${q} IS NOT NULL GROUP BY ${q} ORDER BY n DESC, value LIMIT 200`,
      );
      const [d] = await query(`SELECT count(DISTINCT ${q}) AS d FROM read_parquet(${file})`);
      return { column, type: col.type, distinct: jsonNumber(d.d) ?? 0, values: rows.map((r) => ({ value: String(r.value), count: jsonNumber(r.n) ?? 0 })) };
    },

    /** jobs.onFinished handler. */
    async onJobFinished(job: JobView, orgId: string) {
      if (job.subject_type !== SUBJECT || !job.subject_id) return;
      await applyFinish(orgId, job.subject_id, job);
    },
  };
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
