import type { DuckConnection } from '../duck/index.js';
import { neutraliseCell } from '@mitate/rules';

/** Every CSV the server writes goes through here (the rule itself: @mitate/rules csv-cell.ts). */
export { neutraliseCell, restoreCell } from '@mitate/rules';

/** One RFC 4180 field: neutralised, then quoted when it holds a delimiter, quote, line break or edge spaces. */
export function csvCell(v: unknown, opts: { infinity?: [string, string] } = {}): string {
  if (v === null || v === undefined) return '';
  let s: string;
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return String(v);
    s = opts.infinity ? (Number.isNaN(v) ? '' : v > 0 ? opts.infinity[0] : opts.infinity[1]) : '';
  } else s = neutraliseCell(String(v));
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvRow = (cells: unknown[], opts: { infinity?: [string, string] } = {}) => cells.map((c) => csvCell(c, opts)).join(',');

/** The same rule in DuckDB SQL, for text columns of a CSV that DuckDB writes itself (COPY ... TO csv). */
export function neutraliseSql(expr: string): string {
  return `CASE WHEN regexp_matches(${expr}, '^[=+\\-@\\t\\r]') AND NOT regexp_matches(${expr}, '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN '''' || ${expr} ELSE ${expr} END`;
}

/** Writes a Parquet file as CSV with DuckDB, text columns neutralised (numbers, dates and flags as they are). */
export async function copyParquetToCsv(conn: DuckConnection, parquet: string, dest: string): Promise<void> {
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const src = `read_parquet(${lit(parquet)})`;
  const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJson();
  const select = cols
    .map((c) => {
      const q = ident(String(c.column_name));
      return String(c.column_type).toUpperCase() === 'VARCHAR' ? `${neutraliseSql(q)} AS ${q}` : q;
    })
    .join(', ');
  await conn.run(`COPY (SELECT ${select || '*'} FROM ${src}) TO ${lit(dest)} (HEADER, DELIMITER ',')`);
}
