import { z } from 'zod';
import { page } from '../../http/responses.js';
import { imageOperations, PreprocessStep } from './history.js';

/** A cell of a data page: DuckDB's JSON values (64-bit integers as numbers where they fit). */
export const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]).meta({ id: 'Cell' });

export const ColumnType = z.enum(['integer', 'float', 'string', 'boolean', 'datetime', 'date', 'other']).meta({ id: 'ColumnType' });


export const DatasetView = z
  .object({
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
    statistics: z.object({ state: z.string().describe('none, queued, running, succeeded, failed, cancelled, or unknown when not looked up'), job_id: z.string().nullable() }),
  })
  .meta({ id: 'Dataset' });

/** An image dataset (a ZIP registered through the dataset calls): its images by split and class. */
const imageSummary = z.object({
  kind: z.string().optional(),
  classes: z.array(z.string()),
  counts: z.record(z.string(), z.record(z.string(), z.number().int())).describe('split → class → images'),
  skipped: z.array(z.object({ entry: z.string(), reason: z.string() })).describe('ZIP entries left out, and why'),
  total: z.number().int(),
  presplit: z.boolean().optional().describe('The ZIP gave the train/validation/test split itself'),
});
export const imageDatasetView = z
  .object({
    ...DatasetView.shape,
    // an image dataset's history holds only image pre-processing runs (images area), each with its operations
    preprocess_history: z.array(z.object({ process_type: z.string(), action_name: z.string(), changes: imageOperations, modified_at: z.string() })),
    image: imageSummary,
  })
  .meta({ id: 'ImageDataset' });

/** A column with the statistics computed at upload (min_schema=true: only name, type and dtype). */
export const DatasetColumn = z
  .object({
    name: z.string(),
    type: ColumnType,
    dtype: z.string(),
    count: z.number().nullable().optional(),
    missing: z.number().nullable().optional(),
    unique: z.number().nullable().optional(),
    unique_exact: z.boolean().optional().describe('true: unique is the exact count; false or absent: an estimate (HyperLogLog; tables over a million rows)'),
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
/** Which figures a column has depends on its kind (engine tasks/statistics.py describe_column). */
const columnBase = { name: z.string(), dtype: z.string(), count: z.number().int(), missing: z.number().int(), unique: z.number().int() };
const TopValue = z.object({ value: z.union([z.string(), z.number(), z.boolean(), z.null()]), count: z.number().int() });
export const NumericColumnStatistics = z
  .object({
    ...columnBase,
    kind: z.literal('numeric'),
    mean: z.number().nullable(),
    std: z.number().nullable(),
    min: z.number().nullable(),
    q1: z.number().nullable(),
    median: z.number().nullable(),
    q3: z.number().nullable(),
    max: z.number().nullable(),
    skewness: z.number().nullable(),
    kurtosis: z.number().nullable(),
    zeros: z.number().int(),
    infinite: z.number().int(),
    histogram: z.object({ edges: z.array(z.number()), counts: z.array(z.number()) }),
  })
  .meta({ id: 'NumericColumnStatistics' });
export const CategoricalColumnStatistics = z
  .object({
    ...columnBase,
    kind: z.enum(['categorical', 'boolean']),
    top: z.array(TopValue).describe('The most frequent values, most frequent first'),
    other: z.number().int().describe('Rows outside the top categories'),
  })
  .meta({ id: 'CategoricalColumnStatistics' });
export const DatetimeColumnStatistics = z
  .object({
    ...columnBase,
    kind: z.literal('datetime'),
    min: z.string().nullable().describe('ISO date or time'),
    max: z.string().nullable(),
    histogram: z.object({ edges: z.array(z.string()).describe('ISO dates or times'), counts: z.array(z.number()) }),
  })
  .meta({ id: 'DatetimeColumnStatistics' });
export const ColumnStatistics = z
  .discriminatedUnion('kind', [NumericColumnStatistics, CategoricalColumnStatistics, DatetimeColumnStatistics])
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
    result: StatisticsResult.nullable(),
    started_at: z.string().nullable().optional(),
    finished_at: z.string().nullable().optional(),
  })
  .meta({ id: 'StatisticsJob' });
