import { z } from 'zod';
import { storedEnum } from '../../http/responses.js';

/** Answers of the exploration queries (server/src/features/visualization/service.ts, all computed in DuckDB). */
const n = z.number().nullable();

const isValue = (v: unknown) => v === null || typeof v === 'number' || typeof v === 'string';
/**
 * The points of a sampled scatter, (number | string | null)[][], checked by one loop: zod's own check of 50,000
 * arrays of unions (one call per value, and a copy) took 130-260 ms under load where writing the JSON takes 40.
 * The same JSON Schema as z.array(z.array(z.union([number, string, null]))), declared by hand.
 */
const Points = z
  .any()
  .refine((v) => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.every(isValue)), { message: 'Expected arrays of numbers, strings or null' })
  .meta({ type: 'array', items: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }] } } });

const histogramBase = { name: z.string(), type: z.string(), count: z.number().describe('Non-missing values'), missing: z.number() };
/** Numbers and datetimes (epoch ms): equal-width bins, the last one closed as numpy's. */
export const NumericHistogram = z
  .object({ ...histogramBase, kind: z.enum(['numeric', 'datetime']), edges: z.array(z.number()), counts: z.array(z.number()) })
  .meta({ id: 'NumericHistogram' });
/** Other columns: the most frequent values, the count of the rest. */
export const CategoricalHistogram = z
  .object({ ...histogramBase, kind: z.literal('categorical'), values: z.array(z.object({ value: z.string(), count: z.number() })), other: z.number(), distinct: z.number() })
  .meta({ id: 'CategoricalHistogram' });
export const HistogramView = z.object({ columns: z.array(z.discriminatedUnion('kind', [NumericHistogram, CategoricalHistogram])) }).meta({ id: 'HistogramView' });

/** Tukey box plot: quartiles (linear interpolation, as pandas), whiskers at 1.5 IQR, up to 200 outliers. */
export const BoxStats = z
  .object({
    name: z.string(),
    count: z.number(),
    min: n,
    q1: n,
    median: n,
    q3: n,
    max: n,
    mean: n,
    lower_whisker: n,
    upper_whisker: n,
    outlier_count: z.number(),
    outliers: z.array(z.number()),
  })
  .meta({ id: 'BoxStats' });
export const BoxplotView = z.object({ columns: z.array(BoxStats) }).meta({ id: 'BoxplotView' });

/** A column of numbers, packed exactly (server/src/features/visualization/packed.ts). */
export const PackedColumn = z
  .object({
    dtype: z
      .enum(['u8', 'u16', 'u24', 'i32', 'f64'])
      .describe('u8, u16, u24: little-endian unsigned integers of 1, 2, 3 bytes, value = (offset + integer) / scale; i32: little-endian 32-bit integers, value = integer / scale; f64: little-endian doubles, NaN = missing'),
    scale: z.number().optional().describe('u8 to i32: the power of ten the integers are divided by'),
    offset: z.number().int().optional().describe('u8, u16, u24: the integer added to each (the smallest)'),
    data: z.string().describe('The values, base64'),
  })
  .meta({ id: 'PackedColumn' });

export const ScatterView = z
  .object({
    x: z.string(),
    y: z.string(),
    color: z.string().nullable(),
    color_kind: storedEnum(['numeric', 'categorical']).nullable(),
    x_type: z.string(),
    y_type: z.string(),
    total: z.number(),
    rows: z.number(),
    mode: storedEnum(['sample', 'bin']),
    sample: z.boolean(),
    sample_method: storedEnum(['stratified_rows', 'random'])
      .optional()
      .describe('When sample: stratified_rows = the stored sample, stratified over row ranges (every row the same chance, every stretch of rows its share); random = a random sample drawn for this question'),
    returned: z.number(),
    points: Points.optional().describe('mode sample: [x, y] or [x, y, color]'),
    bins: z.object({ nx: z.number(), ny: z.number(), x0: z.number(), x1: z.number(), y0: z.number(), y1: z.number() }).optional(),
    cells: z.array(z.tuple([z.number(), z.number(), z.number(), n])).optional().describe('mode bin: [i, j, count, mean colour]'),
    packed_points: z
      .object({
        x: PackedColumn,
        y: PackedColumn,
        color: PackedColumn.nullable().describe('A numeric colour (NaN = missing); for a categorical one, the index in color_categories (-1 = missing)'),
        color_categories: z.array(z.string()).nullable(),
      })
      .optional()
      .describe('mode sample, format packed: the points as columns, the same values as points'),
    packed_cells: z
      .object({
        counts: PackedColumn.describe('nx × ny counts, x\'s cell major (cell (i, j) at i × ny + j), 0 = empty'),
        means: PackedColumn.nullable().describe('The mean colour of each cell, same order (NaN = none)'),
      })
      .optional()
      .describe('mode bin, format packed: the grid, the same cells as cells'),
  })
  .meta({ id: 'ScatterView' });

export const MatrixView = z
  .object({ columns: z.array(z.string()), rows: z.array(z.array(n)), total: z.number(), returned: z.number(), sample: z.boolean() })
  .meta({ id: 'MatrixView' });

export const CorrelationView = z
  .object({ method: storedEnum(['pearson', 'spearman']), columns: z.array(z.string()), matrix: z.array(z.array(n)), rows: z.number(), sample: z.boolean(), sample_rows: z.number() })
  .meta({ id: 'CorrelationView' });

export const TimeseriesView = z
  .object({
    datetime_column: z.string(),
    time_kind: storedEnum(['datetime', 'order']).describe('datetime: positions are epoch ms; order: the whole numbers of the order column'),
    full_start: n,
    full_end: n,
    start: n,
    end: n,
    total_rows: z.number(),
    window_rows: z.number(),
    method: storedEnum(['minmax', 'lttb']),
    downsampled: z.boolean(),
    buckets: z.number().optional(),
    series: z.array(z.object({ name: z.string(), points: z.array(z.tuple([z.number(), n])).describe('[epoch ms or order number, value]') })),
  })
  .meta({ id: 'TimeseriesView' });
