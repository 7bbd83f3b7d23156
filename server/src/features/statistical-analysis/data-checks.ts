import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { ident, jsonNumber, sqlString, withConnection } from '../../duck/index.js';
import type { ColumnType } from '../datasets/column-stats.js';
import { datasetSchema } from '../datasets/stored.js';
import type { DatasetService } from '../datasets/service.js';
import type { StatisticalProjectTable } from './db.js';
import { errors } from './messages.js';
import { MAX_GROUPS, TWO_GROUPS, bad, type Settings } from './rules.js';

export const columnsOf = (ds: DatasetTable) => datasetSchema(ds);

export async function query(d: Pick<StatisticalDeps, 'duckdb'>, sql: string): Promise<Record<string, unknown>[]> {
  const { duckdb } = d;
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
export async function checkData(d: StatisticalDeps, s: Settings, ds: DatasetTable): Promise<void> {
  const { datasets } = d;
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
    const [row] = await query(d, 
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
    const rows = await query(d, 
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
  const [row] = await query(d, `SELECT ${select.join(', ')} FROM read_parquet(${file})`);
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

/** What the service's modules take: the app's database, jobs, storage and DuckDB, the datasets, a project read. */
export interface StatisticalDeps {
  db: AppContext['db'];
  jobs: AppContext['jobs'];
  storage: AppContext['storage'];
  duckdb: AppContext['duckdb'];
  datasets: DatasetService;
  getRow(auth: AuthContext, id: string): Promise<StatisticalProjectTable>;
}
