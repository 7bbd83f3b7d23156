import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { type DuckConnection, sqlString, withConnection } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import { datasetSchema } from '../datasets/stored.js';
import { isNumericType, SchemaColumn } from './figures.js';
import { M } from './messages.js';

/**
 * What every exploration answer needs: the dataset opened (its organisation checked), DuckDB, and the answers kept
 * by this app instance.
 */
export function makeExplore(ctx: AppContext, datasets: DatasetService) {
  // Least-recently-used results of this app instance, keyed by dataset and question; the dataset is looked up
  // (and its organisation checked) before the cache is asked, so a deleted or foreign dataset is never answered.
  const cache = new Map<string, { value: unknown; size: number }>();
  let cacheBytes = 0;
  const limit = ctx.config.exploreCacheMb * 1024 * 1024;
  async function cached<T>(key: string, compute: () => Promise<T>, sizeOf?: (v: T) => number): Promise<T> {
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit.value as T;
    }
    const value = await compute();
    const size = sizeOf ? sizeOf(value) : JSON.stringify(value).length;
    if (size <= limit / 4) {
      // Kept answers are shared by every later request: frozen, so none changes them and the serializer may keep
      // their text (http/responses.ts).
      if (value && typeof value === 'object') Object.freeze(value);
      cache.set(key, { value, size });
      cacheBytes += size;
      for (const [k, v] of cache) {
        if (cacheBytes <= limit) break;
        cache.delete(k);
        cacheBytes -= v.size;
      }
    }
    return value;
  }

  async function open(auth: AuthContext, id: string) {
    const row = await datasets.getRow(auth, id);
    const schema = datasetSchema(row);
    const parquet = datasets.parquetPath(row);
    const src = `read_parquet(${sqlString(parquet)})`;
    // The exploration sketch (sorted and row-order values of numeric columns, correlations, a sample), when the
    // statistics job has written it; every answer below is the same with or without it.
    const sketch = datasets.sketchOf(row);
    return { row, schema, src, sketch };
  }

  const withConn = <T>(fn: (c: DuckConnection) => Promise<T>): Promise<T> => withConnection(ctx.duckdb, fn);

  return { config: ctx.config, datasets, cached, open, withConn };
}
export type Explore = ReturnType<typeof makeExplore>;

/** The column of the dataset named `name`, refused as the request's `field` when missing (or not numeric). */
export function column(schema: SchemaColumn[], name: string, field: string, numeric = false): SchemaColumn {
  const c = schema.find((s) => s.name === name);
  if (!c) throw new AppError(422, M.columnMissing, { name }, field);
  if (numeric && !isNumericType(c.type)) throw new AppError(422, M.columnNotNumeric, { name }, field);
  return c;
}

export const rows = async (c: DuckConnection, sql: string) => (await c.runAndReadAll(sql)).getRows() as unknown[][];
