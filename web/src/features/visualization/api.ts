import { keepPreviousData, type QueryFunctionContext, useQuery } from '@tanstack/react-query';
import { apiPostTagged, type Tagged } from '../../api/client';
import { answer, fillPath, http, per, type PathParams, type PostPath } from '../../api/typed';
import type { Answer, BodyOf } from '../../api/types';
import type { components } from '../../api/schema';
import { unpackScatter } from './packed';

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
export function answerQuery<P extends PostPath, V = Answer<P, 'post'>>(
  path: P,
  params: PathParams<P>,
  body: BodyOf<P, 'post'>,
  read: (answer: Answer<P, 'post'>) => V = (a) => a as unknown as V,
) {
  return {
    queryFn: ({ signal, client, queryKey }: QueryFunctionContext) =>
      apiPostTagged<Answer<P, 'post'>, V>(fillPath(path, params), body, read, client.getQueryData<Tagged<V>>(queryKey), { signal }),
    select: valueOf<V>,
  };
}
const valueOf = <V,>(t: Tagged<V>) => t.value;

export function useHistogram(id: string, columns: string[], bins: number) {
  return useQuery({
    queryKey: ['visualization', 'histogram', id, columns, bins],
    ...answerQuery('/api/visualization/histogram/{dataset_id}', { dataset_id: id }, { columns, bins, top: 30 }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useBoxplot(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'boxplot', id, columns],
    ...answerQuery('/api/visualization/boxplot/{dataset_id}', { dataset_id: id }, { columns }),
    enabled: columns.length > 0,
    ...opts,
  });
}

export function useScatter(id: string, body: { x: string; y: string; color: string | null; mode: 'sample' | 'bin' }) {
  return useQuery({
    queryKey: ['visualization', 'scatter', id, body],
    ...answerQuery('/api/visualization/scatter/{dataset_id}', { dataset_id: id }, { ...body, bins: 100, format: 'packed' }, unpackScatter),
    enabled: !!body.x && !!body.y,
    ...opts,
  });
}

export function useMatrix(id: string, columns: string[]) {
  return useQuery({
    queryKey: ['visualization', 'matrix', id, columns],
    ...answerQuery('/api/visualization/matrix/{dataset_id}', { dataset_id: id }, { columns, max_points: 1500 }),
    enabled: columns.length >= 2,
    ...opts,
  });
}

export function useCorrelation(id: string, columns: string[], method: 'pearson' | 'spearman') {
  return useQuery({
    queryKey: ['visualization', 'correlation', id, columns, method],
    ...answerQuery('/api/visualization/correlation/{dataset_id}', { dataset_id: id }, { columns, method }),
    enabled: columns.length >= 2,
    ...opts,
  });
}

export function useTimeSeries(id: string, body: { columns: string[]; start: number | null; end: number | null; method: 'minmax' | 'lttb'; buckets: number }) {
  return useQuery({
    queryKey: ['visualization', 'timeseries', id, body],
    queryFn: async ({ signal }): Promise<TimeSeriesResult> => {
      const r = await answer(http.POST('/api/statistics/timeseries/{dataset_id}', { params: { path: { dataset_id: id } }, body, ...per({ signal }) }));
      // each point is written [time, value]: read back as that pair
      return { ...r, series: r.series.map((x) => ({ ...x, points: x.points.map((p): [number, number | null] => [Number(p[0]), p[1] ?? null]) })) };
    },
    enabled: body.columns.length > 0,
    ...opts,
  });
}
