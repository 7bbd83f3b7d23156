import { type DuckConnection, ident, sqlString } from '../../duck/index.js';
import type { Sketch } from '../datasets/sketch.js';
import type { SchemaColumn } from './figures.js';

/**
 * Numeric (or date/time, as epoch ms) columns of the sketch's sample in row order, NaN where missing, kept in
 * the column cache; null when a column holds a NaN value of its own (it would be taken for missing: the query
 * answers then).
 */
export async function sampleColumns(c: DuckConnection, sketch: Sketch, cols: SchemaColumn[]): Promise<Float64Array[] | null> {
  const columnCache = sketch.caches.columns;
  const keyOf = (col: SchemaColumn) => `${sketch.datasetId}:${sketch.manifest.build_id}:sample:${col.name}`;
  const readColumns = async (which: SchemaColumn[]) => {
    const got = (await c.runAndReadAll(`SELECT ${which.map(asNumber).join(', ')} FROM read_parquet(${sqlString(sketch.samplePath)})`)).getColumns() as unknown[][];
    return new Map(
      which.map((col, k) => {
        const v = got[k];
        const a = new Float64Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const x = v[i];
          if (x === null || x === undefined) a[i] = NaN;
          else if (Number.isNaN((a[i] = Number(x)))) throw new Error('a NaN value');
        }
        return [col.name, a];
      }),
    );
  };
  try {
    // The columns not held yet, read by one query over the sample's file.
    const missing = [...new Map(cols.filter((col) => !columnCache.has(keyOf(col))).map((col) => [col.name, col])).values()];
    const read = missing.length ? await readColumns(missing) : new Map<string, Float64Array>();
    const out: Float64Array[] = [];
    for (const col of cols) {
      // Read above, or (dropped from the cache meanwhile) on its own.
      out.push(await columnCache.get(keyOf(col), async () => read.get(col.name) ?? (await readColumns([col])).get(col.name)!));
    }
    return out;
  } catch {
    return null;
  }
}

/** A numeric view of a column: numbers as DOUBLE, datetimes as epoch milliseconds. */
export const asNumber = (col: SchemaColumn) => (col.type === 'datetime' || col.type === 'date' ? `epoch_ms(${ident(col.name)}::TIMESTAMP)::DOUBLE` : `${ident(col.name)}::DOUBLE`);
