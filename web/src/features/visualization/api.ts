import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiPost } from '../../api/client';
import type { components } from '../../api/schema';
import { unpackScatter } from './packed';

const enc = encodeURIComponent;

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/visualization/responses.ts).
export type NumericHistogram = Schemas['NumericHistogram'];
export type CategoricalHistogram = Schemas['CategoricalHistogram'];
export type Histogram = NumericHistogram | CategoricalHistogram;
export type BoxStats = Schemas['BoxStats'];
// OpenAPI 3.0 has no tuples: the generator writes [a, b] as an array of their union, so the places are named here.
// A scatter is asked for packed (exact base64 columns, a fraction of the time to read) and unpacked into arrays.
export type ScatterResult = Omit<Schemas['ScatterView'], 'cells' | 'packed_points' | 'packed_cells'> & { cells?: [number, number, number, number | null][] };
export type MatrixResult = Schemas['MatrixView'];
export type CorrelationResult = Schemas['CorrelationView'];
export type TimeSeriesResult = Omit<Schemas['TimeseriesView'], 'series'> & { series: { name: string; points: [number, number | null][] }[] };

const opts = { staleTime: 5 * 60_000, placeholderData: keepPreviousData } as const;

export function useHistogram(id: string, columns: string[], bins: number) {
  return useQuery({
    queryKey: ['visualization', 'histogram', id, columns, bins],
    queryFn: ({ signal }) => apiPost<Schemas['HistogramView']>(`/api/visualization/histogram/${enc(id)}`, { columns, bins, top: 30 }, { signal }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useBoxplot(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'boxplot', id, columns],
    queryFn: ({ signal }) => apiPost<Schemas['BoxplotView']>(`/api/visualization/boxplot/${enc(id)}`, { columns }, { signal }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useScatter(id: string, body: { x: string; y: string; color: string | null; mode: 'sample' | 'bin' }) {
  return useQuery({
    queryKey: ['visualization', 'scatter', id, body],
    queryFn: async ({ signal }): Promise<ScatterResult> =>
      unpackScatter(await apiPost<Schemas['ScatterView']>(`/api/visualization/scatter/${enc(id)}`, { ...body, bins: 100, format: 'packed' }, { signal })),
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
