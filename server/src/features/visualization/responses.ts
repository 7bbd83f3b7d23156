import { z } from 'zod';
import { storedEnum } from '../../http/responses.js';

/**
 * Answers of the exploration queries. Each is an object whose main keys are listed; per-column details
 * (bins, quartiles, categories) vary with the column's kind and are left open (looseObject keeps them).
 */
const n = z.number().nullable();
const perColumn = z.looseObject({ name: z.string() });

export const HistogramView = z.object({ columns: z.array(perColumn) }).meta({ id: 'HistogramView' });
export const BoxplotView = z.object({ columns: z.array(perColumn) }).meta({ id: 'BoxplotView' });

export const ScatterView = z
  .looseObject({
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
    returned: z.number(),
    points: z.array(z.array(z.union([z.number(), z.string(), z.null()]))).optional().describe('mode sample: [x, y] or [x, y, color]'),
    bins: z.object({ nx: z.number(), ny: z.number(), x0: z.number(), x1: z.number(), y0: z.number(), y1: z.number() }).optional(),
    cells: z.array(z.array(n)).optional().describe('mode bin: [i, j, count, mean colour]'),
  })
  .meta({ id: 'ScatterView' });

export const MatrixView = z
  .object({ columns: z.array(z.string()), rows: z.array(z.array(n)), total: z.number(), returned: z.number(), sample: z.boolean() })
  .meta({ id: 'MatrixView' });

export const CorrelationView = z
  .object({ method: storedEnum(['pearson', 'spearman']), columns: z.array(z.string()), matrix: z.array(z.array(n)), rows: z.number(), sample: z.boolean(), sample_rows: z.number() })
  .meta({ id: 'CorrelationView' });

export const TimeseriesView = z
  .looseObject({
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
    series: z.array(z.object({ name: z.string(), points: z.array(z.array(n)).describe('[epoch ms or order number, value]') })),
  })
  .meta({ id: 'TimeseriesView' });
