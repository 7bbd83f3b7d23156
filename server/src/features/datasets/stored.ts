import { z } from 'zod';
import type { DatasetTable } from '../../db/schema.js';
import { storedJson } from '../../db/stored.js';
import { ColumnType } from './responses.js';

// A dataset row's JSON columns, declared once as written (service.ts newRow, preprocessing register.ts, images: '[]')
// and read back through these readers, here or in any other area.

/** schema_json: each column's name, type (column-stats.ts columnType) and DuckDB type. */
export const SchemaColumn = z.looseObject({ name: z.string(), type: ColumnType, dtype: z.string() });
export type SchemaColumn = z.output<typeof SchemaColumn>;

/** A column's smallest or largest value: a number, else its text (strings, dates, times); null for booleans, other
 * types, non-finite figures or a column with no value. */
const bound = z.union([z.number(), z.string()]).nullable();

/** stats_json: each column's figures (column-stats.ts parquetStats); mean and std are null unless numeric. */
export const StatsColumn = z.looseObject({
  ...SchemaColumn.shape,
  count: z.number(),
  missing: z.number(),
  unique: z.number(),
  /** Whether `unique` was counted exactly (tables up to MITATE_EXACT_UNIQUE_ROWS rows) or estimated (HyperLogLog);
   * absent in rows written before the exact count. */
  unique_exact: z.boolean().optional(),
  min: bound,
  max: bound,
  mean: z.number().nullable(),
  std: z.number().nullable(),
});
export type ColumnInfo = z.output<typeof StatsColumn>;

/** preprocess_history: one entry per step the engine ran (preprocessing Condition.history) or image run, copied
 * from parent to child dataset as stored; the answers declare the steps' parameters (history.ts PreprocessStep). */
export const StoredPreprocessStep = z.looseObject({ process_type: z.string(), action_name: z.string(), changes: z.looseObject({}), modified_at: z.string() });

const Schema = z.array(SchemaColumn);
const Stats = z.array(StatsColumn);
const History = z.array(StoredPreprocessStep);

export const datasetSchema = (row: Pick<DatasetTable, 'schema_json'>) => storedJson('dataset schema_json', Schema, row.schema_json);
export const datasetStats = (row: Pick<DatasetTable, 'stats_json'>) => storedJson('dataset stats_json', Stats, row.stats_json);
export const preprocessHistory = (row: Pick<DatasetTable, 'preprocess_history'>) => storedJson('dataset preprocess_history', History, row.preprocess_history);
