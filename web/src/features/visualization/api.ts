import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiPost } from '../../api/client';

const enc = encodeURIComponent;

export interface NumericHistogram {
  name: string;
  type: string;
  kind: 'numeric' | 'datetime';
  edges: number[];
  counts: number[];
  count: number;
  missing: number;
}
export interface CategoricalHistogram {
  name: string;
  type: string;
  kind: 'categorical';
  values: { value: string; count: number }[];
  other: number;
  distinct: number;
  count: number;
  missing: number;
}
export type Histogram = NumericHistogram | CategoricalHistogram;

export interface BoxStats {
  name: string;
  count: number;
  min: number | null;
  q1: number | null;
  median: number | null;
  q3: number | null;
  max: number | null;
  mean: number | null;
  lower_whisker: number | null;
  upper_whisker: number | null;
  outlier_count: number;
  outliers: number[];
}

export interface ScatterResult {
  x: string;
  y: string;
  color: string | null;
  color_kind: 'numeric' | 'categorical' | null;
  x_type: string;
  y_type: string;
  total: number;
  rows: number;
  mode: 'sample' | 'bin';
  sample: boolean;
  returned: number;
  points?: (number | string | null)[][];
  bins?: { nx: number; ny: number; x0: number; x1: number; y0: number; y1: number };
  cells?: [number, number, number, number | null][];
}

export interface MatrixResult {
  columns: string[];
  rows: (number | null)[][];
  total: number;
  returned: number;
  sample: boolean;
}

export interface CorrelationResult {
  method: 'pearson' | 'spearman';
  columns: string[];
  matrix: (number | null)[][];
  rows: number;
  sample: boolean;
  sample_rows: number;
}

export interface TimeSeriesResult {
  datetime_column: string;
  /** datetime: positions are epoch ms; order: the whole numbers of an order column (a sample number) */
  time_kind: 'datetime' | 'order';
  full_start: number | null;
  full_end: number | null;
  start: number;
  end: number;
  total_rows: number;
  window_rows: number;
  downsampled: boolean;
  method: 'minmax' | 'lttb';
  series: { name: string; points: [number, number | null][] }[];
}

const opts = { staleTime: 5 * 60_000, placeholderData: keepPreviousData } as const;

export function useHistogram(id: string, columns: string[], bins: number) {
  return useQuery({
    queryKey: ['visualization', 'histogram', id, columns, bins],
    queryFn: ({ signal }) => apiPost<{ columns: Histogram[] }>(`/api/visualization/histogram/${enc(id)}`, { columns, bins, top: 30 }, { signal }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useBoxplot(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'boxplot', id, columns],
    queryFn: ({ signal }) => apiPost<{ columns: BoxStats[] }>(`/api/visualization/boxplot/${enc(id)}`, { columns }, { signal }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useScatter(id: string, body: { x: string; y: string; color: string | null; mode: 'sample' | 'bin' }) {
  return useQuery({
    queryKey: ['visualization', 'scatter', id, body],
    queryFn: ({ signal }) => apiPost<ScatterResult>(`/api/visualization/scatter/${enc(id)}`, { ...body, bins: 100 }, { signal }),
    enabled: !!body.x && !!body.y,
    ...opts,
  });
}

export function useMatrix(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'matrix', id, columns],
    queryFn: ({ signal }) => apiPost<MatrixResult>(`/api/visualization/matrix/${enc(id)}`, { columns, max_points: 1500 }, { signal }),
    enabled: columns.length >= 2,
    ...opts,
  });
}

export function useCorrelation(id: string, columns: string[], method: 'pearson' | 'spearman') {
  return useQuery({
    queryKey: ['visualization', 'correlation', id, columns, method],
    queryFn: ({ signal }) => apiPost<CorrelationResult>(`/api/visualization/correlation/${enc(id)}`, { columns, method }, { signal }),
    enabled: columns.length >= 2,
    ...opts,
  });
}

export function useTimeSeries(id: string, body: { columns: string[]; start: number | null; end: number | null; method: 'minmax' | 'lttb'; buckets: number }) {
  return useQuery({
    queryKey: ['visualization', 'timeseries', id, body],
    queryFn: ({ signal }) => apiPost<TimeSeriesResult>(`/api/statistics/timeseries/${enc(id)}`, body, { signal }),
    enabled: body.columns.length > 0,
    ...opts,
  });
}
