import path from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * The one way to DuckDB: the instance built at start-up, its connections, the SQL quoting every area's DuckDB
 * query uses, and reading a Parquet file. No other module imports `@duckdb/node-api` (a lint rule keeps it so).
 */
export type Duck = DuckDBInstance;
export type DuckConnection = DuckDBConnection;

/** The server's in-memory instance; spills go under the data folder. */
export function openDuck(dataDir: string, settings: { threads: number; memory: string }): Promise<Duck> {
  return DuckDBInstance.create(':memory:', {
    threads: String(settings.threads),
    // 768 MB keeps the whole server under 1.5 GB while a 1 GB CSV converts (DuckDB spills beyond it).
    memory_limit: settings.memory,
    preserve_insertion_order: 'true',
    temp_directory: path.join(dataDir, 'tmp', 'duckdb'),
  });
}

/** A connection the caller keeps and closes itself (a conversion that outlives one call). */
export function connect(duck: Duck): Promise<DuckConnection> {
  return duck.connect();
}

/** Runs `fn` on a fresh connection, closed whatever happens. */
export async function withConnection<T>(duck: Duck, fn: (c: DuckConnection) => Promise<T>): Promise<T> {
  const c = await duck.connect();
  try {
    return await fn(c);
  } finally {
    c.closeSync();
  }
}

/** One query on its own connection, its rows as plain JavaScript objects. */
export function queryRows(duck: Duck, sql: string): Promise<Record<string, unknown>[]> {
  return withConnection(duck, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);
}

/** A text literal in DuckDB SQL. */
export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** A column (or other) name in DuckDB SQL. */
export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
/** A Parquet file as a table expression. */
export const readParquet = (file: string) => `read_parquet(${sqlString(file)})`;

/** DuckDB's JSON form gives 64-bit integers as strings; our figures fit a double. */
export function jsonNumber(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}
