import { keepPreviousData, type QueryFunctionContext, useQuery } from '@tanstack/react-query';
import { apiPost, apiPostTagged, type Tagged } from '../../api/client';
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

/**
 * An exploration answer (server: visualization/routes.ts `answer`), kept by the query cache with its entity tag.
 * Asked again (stale after 5 minutes, or refetched), it sends the tag of the answer held under the same key: a 304
 * keeps that answer without reading, parsing or unpacking a body; the server still checks access every time.
 */
export function answerQuery<T, V = T>(path: string, body: unknown, read: (answer: T) => V = (a) => a as unknown as V) {
  return {
    queryFn: ({ signal, client, queryKey }: QueryFunctionContext) => apiPostTagged<T, V>(path, body, read, client.getQueryData<Tagged<V>>(queryKey), { signal }),
    select: valueOf<V>,
  };
}
const valueOf = <V,>(t: Tagged<V>) => t.value;

export function useHistogram(id: string, columns: string[], bins: number) {
  return useQuery({
    queryKey: ['visualization', 'histogram', id, columns, bins],
    ...answerQuery<Schemas['HistogramView']>(`/api/visualization/histogram/${enc(id)}`, { columns, bins, top: 30 }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useBoxplot(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'boxplot', id, columns],
    ...answerQuery<Schemas['BoxplotView']>(`/api/visualization/boxplot/${enc(id)}`, { columns }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useScatter(id: string, body: { x: string; y: string; color: string | null; mode: 'sample' | 'bin' }) {
  return useQuery({
    queryKey: ['visualization', 'scatter', id, body],
    ...answerQuery<Schemas['ScatterView'], ScatterResult>(`/api/visualization/scatter/${enc(id)}`, { ...body, bins: 100, format: 'packed' }, unpackScatter),
    enabled: !!body.x && !!body.y,
    ...opts,
  });
}

export function useMatrix(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'matrix', id, columns],
    ...answerQuery<MatrixResult>(`/api/visualization/matrix/${enc(id)}`, { columns, max_points: 1500 }),
    enabled: columns.length >= 2,
    ...opts,
  });
}

export function useCorrelation(id: string, columns: string[], method: 'pearson' | 'spearman') {
  return useQuery({
    queryKey: ['visualization', 'correlation', id, columns, method],
    ...answerQuery<CorrelationResult>(`/api/visualization/correlation/${enc(id)}`, { columns, method }),
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
