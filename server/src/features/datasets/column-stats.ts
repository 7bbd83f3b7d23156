import { type DuckConnection, ident, jsonNumber, sqlString } from '../../duck/index.js';
import type { ColumnInfo } from './stored.js';

/** A dataset's columns: their types and figures, computed from its Parquet file (footer first, then batched scans). */

// A column's type and figures are declared once, as stats_json stores them (stored.ts).
export type { ColumnInfo };
export type ColumnType = ColumnInfo['type'];

export interface IngestResult {
  rowCount: number;
  columns: ColumnInfo[];
  /**
   * Where the time went (ms): re-encoding to UTF-8, CSV to Parquet after the upload (the wait for the conversion that
   * ran beside it, when it was kept), the statistics scan (issue 17 profile).
   */
  timings?: { transcode_ms: number; parquet_ms: number; stats_ms: number; streamed: { convert_ms: number; after_upload_ms: number; pieces: number } | null };
}

/** A query's columns as DuckDB types them. */
export async function describe(conn: DuckConnection, expr: string): Promise<{ name: string; dtype: string }[]> {
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${expr}`);
  return r.getRowObjectsJson().map((row) => ({ name: String(row.column_name), dtype: String(row.column_type) }));
}

export function columnType(dtype: string): ColumnType {
  const t = dtype.toUpperCase();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/.test(t)) return 'integer';
  if (/^(FLOAT|DOUBLE|REAL|DECIMAL)/.test(t)) return 'float';
  if (t === 'VARCHAR') return 'string';
  if (t === 'BOOLEAN') return 'boolean';
  if (t.startsWith('TIMESTAMP')) return 'datetime';
  if (t === 'DATE') return 'date';
  return 'other';
}
const isNumeric = (t: ColumnType) => t === 'integer' || t === 'float';

/** Columns per statistics query: one SELECT over thousands of columns exhausts DuckDB's memory cap. */
export const STATS_BATCH_COLUMNS = 250;

/**
 * Row count and per-column count, missing, distinct (approximate), min, max, mean, std: one scan per batch
 * of STATS_BATCH_COLUMNS columns, so wide tables stay within the memory cap.
 */
/** A numeric column's figures computed by whoever wrote the file from the values at hand (the engine's preprocess job). */
export interface KnownFigures {
  count: number;
  unique: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
}

/** How parquetStats counts. */
export interface StatsOptions {
  /** Up to this many rows a column's distinct values are counted exactly; beyond, estimated (HyperLogLog).
   * The setting MITATE_EXACT_UNIQUE_ROWS (config.ts exactUniqueRows). */
  exactUniqueRows: number;
  /** Only these columns (the rest are known already). */
  only?: string[];
  /** Figures given for numeric columns, which are then not scanned. */
  known?: Record<string, KnownFigures>;
  /** Count, min and max from the file's footer where it holds them exactly (files DuckDB wrote; footerFigures). */
  footer?: boolean;
}

/**
 * Column statistics of a Parquet file; `only` limits them to some columns (the rest are known already).
 * Numeric columns with `known` figures are not scanned: their type comes from the file's schema, their figures
 * as given (issue 20: a preprocessed dataset's changed columns); the other columns are scanned.
 */
export async function parquetStats(conn: DuckConnection, parquet: string, opts: StatsOptions): Promise<IngestResult> {
  const { only, known = {} } = opts;
  const src = `read_parquet(${sqlString(parquet)})`;
  const cols = (await describe(conn, src)).filter((c) => !only || only.includes(c.name));
  const nRow = (await conn.runAndReadAll(`SELECT count(*) AS n FROM ${src}`)).getRowObjectsJson()[0] as Record<string, unknown>;
  const n = jsonNumber(nRow.n) ?? 0;
  const footer = opts.footer ? await footerFigures(conn, parquet) : new Map<string, FooterFigures>();
  const given = (c: { name: string; dtype: string }) => Object.hasOwn(known, c.name) && isNumeric(columnType(c.dtype)) && known[c.name].count <= n;
  const scanned: ColumnInfo[] = [];
  const toScan = cols.filter((c) => !given(c));
  for (let start = 0; start < toScan.length; start += STATS_BATCH_COLUMNS) {
    scanned.push(...(await statsBatch(conn, src, toScan.slice(start, start + STATS_BATCH_COLUMNS), n, footer, opts.exactUniqueRows)));
  }
  const byName = new Map(scanned.map((c) => [c.name, c]));
  const columns = cols.map((c) => {
    if (!given(c)) return byName.get(c.name) as ColumnInfo;
    const f = known[c.name];
    const num = (v: number | null) => jsonNumber(v);
    return { name: c.name, type: columnType(c.dtype), dtype: c.dtype, count: f.count, missing: n - f.count, unique: Math.min(f.unique, f.count), unique_exact: false, min: num(f.min), max: num(f.max), mean: num(f.mean), std: num(f.std) };
  });
  return { rowCount: n, columns };
}

/** A numeric or text column's count, min and max as the Parquet writer recorded them in the file's footer. */
interface FooterFigures {
  count: number;
  /** A numeric column's bounds, read as doubles. */
  numeric: { min: number; max: number } | null;
  /** A text column's bounds: the footer's exact strings (DuckDB orders text by its bytes, as its writer does). */
  text: { min: string; max: string } | null;
}

/** Numeric types whose footer bounds read back as the same doubles a scan gives (a DECIMAL's are stored scaled, a FLOAT's print shorter). */
const FOOTER_TYPES = new Set(['BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'DOUBLE']);
/** Text, whose footer bounds are its exact smallest and largest strings when the writer marks them exact. */
const FOOTER_TEXT_TYPES = new Set(['VARCHAR']);

/**
 * Count, min and max of the numeric and text columns from the row-group statistics in the Parquet footer, without
 * reading the data (issue 17). Only for files DuckDB wrote (it leaves a row group's bounds out when the group holds a
 * NaN, where a scan's max would be NaN, and marks a long string's cut bounds inexact): a column is taken only when
 * every row group holding a value has exact bounds; the rest are scanned.
 */
export async function footerFigures(conn: DuckConnection, parquet: string): Promise<Map<string, FooterFigures>> {
  const r = await conn.runAndReadAll(
    `SELECT path_in_schema AS name, sum(num_values - coalesce(stats_null_count, num_values))::DOUBLE AS count,
       bool_and(stats_null_count IS NOT NULL AND (num_values = stats_null_count OR (stats_min_value IS NOT NULL AND stats_max_value IS NOT NULL AND min_is_exact AND max_is_exact))) AS whole,
       min(TRY_CAST(stats_min_value AS DOUBLE)) AS lo, max(TRY_CAST(stats_max_value AS DOUBLE)) AS hi,
       bool_and(stats_min_value IS NULL OR TRY_CAST(stats_min_value AS DOUBLE) IS NOT NULL) AS numeric,
       min(stats_min_value) AS slo, max(stats_max_value) AS shi, bool_and(type = 'BYTE_ARRAY') AS bytes
     FROM parquet_metadata(${sqlString(parquet)}) GROUP BY path_in_schema`,
  );
  const out = new Map<string, FooterFigures>();
  for (const row of r.getRowObjectsJson() as Record<string, unknown>[]) {
    const count = jsonNumber(row.count);
    if (row.whole !== true || count === null || count <= 0) continue;
    const lo = jsonNumber(row.lo);
    const hi = jsonNumber(row.hi);
    const numeric = row.numeric === true && lo !== null && hi !== null ? { min: lo, max: hi } : null;
    const text = row.bytes === true && typeof row.slo === 'string' && typeof row.shi === 'string' ? { min: row.slo, max: row.shi } : null;
    if (numeric || text) out.set(String(row.name), { count, numeric, text });
  }
  return out;
}

/** Types that can hold NaN and ±Infinity. */
const FLOATING = new Set(['DOUBLE', 'FLOAT', 'REAL', 'FLOAT4', 'FLOAT8']);

async function statsBatch(
  conn: DuckConnection,
  src: string,
  cols: { name: string; dtype: string }[],
  n: number,
  footer: Map<string, FooterFigures>,
  exactUniqueRows: number,
): Promise<ColumnInfo[]> {
  if (cols.length === 0) return [];
  const parts: string[] = [];
  // DuckDB's approx_count_distinct is off by up to about 25 % (measured: 10 values counted 11, 1,000 counted 1,249),
  // so tables up to exactUniqueRows get the exact count; larger ones the estimate, flagged for the pages to say so.
  const exact = n <= exactUniqueRows;
  const distinct = (q: string) => (exact ? `count(DISTINCT ${q})` : `approx_count_distinct(${q})`);
  const fromFooter = (c: { name: string; dtype: string }): { count: number; min: number | string; max: number | string } | undefined => {
    const f = footer.get(c.name);
    const t = c.dtype.toUpperCase();
    const bounds = FOOTER_TYPES.has(t) ? f?.numeric : FOOTER_TEXT_TYPES.has(t) ? f?.text : null;
    return f && bounds ? { count: f.count, ...bounds } : undefined;
  };
  cols.forEach((c, i) => {
    const q = ident(c.name);
    const t = columnType(c.dtype);
    const f = fromFooter(c);
    // NaN and ±Infinity (`nan`, `inf` in a CSV) are counted as missing and left out of the figures (stddev_samp
    // fails on them); the footer gives no bounds for a column holding them, so it is scanned
    const finite = FLOATING.has(c.dtype.toUpperCase()) ? ` FILTER (WHERE isfinite(${q}))` : '';
    if (f) {
      parts.push(`${distinct(q)}${finite} AS u${i}`);
      if (isNumeric(t)) parts.push(`avg(${q})${finite}::DOUBLE AS m${i}`, `stddev_samp(${q})${finite}::DOUBLE AS s${i}`);
      return;
    }
    parts.push(`count(${q})${finite} AS c${i}`, `${distinct(q)}${finite} AS u${i}`);
    if (isNumeric(t)) {
      parts.push(`min(${q})${finite}::DOUBLE AS lo${i}`, `max(${q})${finite}::DOUBLE AS hi${i}`, `avg(${q})${finite}::DOUBLE AS m${i}`, `stddev_samp(${q})${finite}::DOUBLE AS s${i}`);
    } else if (t === 'boolean' || t === 'other') {
      parts.push(`NULL AS lo${i}`, `NULL AS hi${i}`);
    } else {
      parts.push(`min(${q})::VARCHAR AS lo${i}`, `max(${q})::VARCHAR AS hi${i}`);
    }
  });
  const r = await conn.runAndReadAll(`SELECT ${parts.join(', ')} FROM ${src}`);
  const row = r.getRowObjectsJson()[0] as Record<string, unknown>;
  return cols.map((c, i) => {
    const type = columnType(c.dtype);
    const f = fromFooter(c);
    const count = f ? f.count : (jsonNumber(row[`c${i}`]) ?? 0);
    const bound = (v: unknown) => (v === null || v === undefined ? null : isNumeric(type) ? jsonNumber(v) : String(v));
    return {
      name: c.name,
      type,
      dtype: c.dtype,
      count,
      missing: n - count,
      unique: Math.min(jsonNumber(row[`u${i}`]) ?? 0, count),
      unique_exact: exact,
      min: f ? f.min : bound(row[`lo${i}`]),
      max: f ? f.max : bound(row[`hi${i}`]),
      mean: isNumeric(type) ? jsonNumber(row[`m${i}`]) : null,
      std: isNumeric(type) ? jsonNumber(row[`s${i}`]) : null,
    };
  });
}
