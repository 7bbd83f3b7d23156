import { z } from 'zod';
import { EngineJson, page } from '../../http/responses.js';

/** A cell of a data page: DuckDB's JSON values (64-bit integers as numbers where they fit). */
export const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]).meta({ id: 'Cell' });

export const ColumnType = z.enum(['integer', 'float', 'string', 'boolean', 'datetime', 'date', 'other']).meta({ id: 'ColumnType' });

/** One preprocessing step that made a dataset (written by the engine). */
export const PreprocessStep = z
  .object({ process_type: z.string(), action_name: z.string(), changes: z.unknown(), modified_at: z.string() })
  .meta({ id: 'PreprocessStep' });

export const DatasetView = z
  // Loose: an image dataset adds its summary (classes, counts per split).
  .looseObject({
    id: z.string(),
    name: z.string(),
    category: z.string().nullable(),
    training_type: z.string().nullable(),
    data_type: z.string(),
    type: z.string(),
    comment: z.string().nullable(),
    file_name: z.string(),
    file_size: z.number(),
    encoding: z.string().describe('utf-8, utf-8-sig or cp932'),
    delimiter: z.string(),
    row_count: z.number().int(),
    column_count: z.number().int(),
    datetime_column: z.string().nullable(),
    preprocessed: z.boolean(),
    preprocess_history: z.array(PreprocessStep),
    parent_dataset_name: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    files: z.object({ original: z.string(), parquet: z.string() }).describe('Paths for POST download/file'),
    statistics: z.object({ state: z.string().describe('none, queued, running, succeeded, failed, cancelled'), job_id: z.string().nullable() }),
  })
  .meta({ id: 'Dataset' });

/** A column with the statistics computed at upload (min_schema=true: only name, type and dtype). */
export const DatasetColumn = z
  .object({
    name: z.string(),
    type: ColumnType,
    dtype: z.string(),
    count: z.number().nullable().optional(),
    missing: z.number().nullable().optional(),
    unique: z.number().nullable().optional(),
    min: z.union([z.number(), z.string()]).nullable().optional(),
    max: z.union([z.number(), z.string()]).nullable().optional(),
    mean: z.number().nullable().optional(),
    std: z.number().nullable().optional(),
  })
  .meta({ id: 'DatasetColumn' });

export const DatasetWithColumns = DatasetView.extend({ columns: z.array(DatasetColumn) }).meta({ id: 'DatasetWithColumns' });

export const DatasetPage = page(DatasetView).meta({ id: 'DatasetPage' });

export const DataPage = z
  .object({ columns: z.array(z.string()), rows: z.array(z.array(Cell)), total: z.number().int(), page: z.number().int(), page_size: z.number().int() })
  .meta({ id: 'DataPage' });

/** The statistics job's result (engine task 'statistics'). */
/** Which figures a column has depends on its kind (numeric, categorical, boolean, datetime). */
export const ColumnStatistics = z
  .looseObject({
    name: z.string(),
    dtype: z.string(),
    kind: z.enum(['numeric', 'categorical', 'boolean', 'datetime']),
    count: z.number().nullable(),
    missing: z.number().nullable(),
    unique: z.number().nullable(),
    mean: z.number().nullable().optional(),
    std: z.number().nullable().optional(),
    min: z.union([z.number(), z.string()]).nullable().optional(),
    q1: z.number().nullable().optional(),
    median: z.number().nullable().optional(),
    q3: z.number().nullable().optional(),
    max: z.union([z.number(), z.string()]).nullable().optional(),
    skewness: z.number().nullable().optional(),
    kurtosis: z.number().nullable().optional(),
    zeros: z.number().nullable().optional(),
    infinite: z.number().nullable().optional(),
    other: z.number().nullable().optional().describe('Rows outside the top categories'),
    top: z.array(z.object({ value: z.union([z.string(), z.number(), z.boolean(), z.null()]), count: z.number() })).nullable().optional(),
    histogram: z.object({ edges: z.array(z.number()), counts: z.array(z.number()) }).nullable().optional(),
  })
  .meta({ id: 'ColumnStatistics' });

export const StatisticsResult = z
  .object({ row_count: z.number(), column_count: z.number(), generated_at: z.string(), columns: z.array(ColumnStatistics) })
  .meta({ id: 'StatisticsResult' });

export const StatisticsStarted = z.object({ job_id: z.string(), state: z.string() });

export const StatisticsJob = z
  .object({
    job_id: z.string().nullable(),
    state: z.enum(['none', 'queued', 'running', 'succeeded', 'failed', 'cancelled']),
    progress: z.number(),
    message: z.string().nullable(),
    error: z.string().nullable(),
    log: z.string().optional(),
    // A dataset with a datetime column adds time figures the declared shape does not cover yet: accepted as JSON.
    result: z.union([StatisticsResult, EngineJson]).nullable(),
    started_at: z.string().nullable().optional(),
    finished_at: z.string().nullable().optional(),
  })
  .meta({ id: 'StatisticsJob' });
