import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import { answer, http, per } from '../../api/typed';
import type { ProjectArea } from '../../components/useProjectActions';
import { saveBlob } from '../../lib/browser';
import { isTimeSeriesPrediction } from '../prediction/api';
import type { components } from '../../api/schema';

export const TS_TYPES = ['time_series_anomaly_detection_supervised', 'time_series_anomaly_detection_unsupervised'] as const;
export type TsType = (typeof TS_TYPES)[number];
export const isTsType = (t: string | undefined): t is TsType => !!t && (TS_TYPES as readonly string[]).includes(t);
export const modeOf = (t: string) => (t === 'time_series_anomaly_detection_supervised' ? 'supervised' : 'unsupervised');

const enc = encodeURIComponent;
export const detailsPath = (id: string) => `/training/time-series/details/${enc(id)}`;
export const resultPath = (id: string) => `/training/time-series/result/${enc(id)}`;
export const reportPath = (id: string, model: string) => `/training/time-series/report/${enc(id)}/${enc(model)}`;
export const thresholdPath = (id: string, model: string) => `/training/result/threshold/${enc(id)}/${enc(model)}`;

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/timeseries/schemas.ts).
export type TsModel = Schemas['TsModel'];
export type TsProject = Schemas['TsProject'];
// The server's OpenAPI document is 3.0, which has no tuples: a [start, end] span or a [position, min, max] bucket is
// generated as an array of its element types. These name the positions, over the generated types.
export type Span = [number, number];
export type Bucket = [number, number | null, number | null];
export type ThresholdStats = Omit<Schemas['TsThresholdStats'], 'spans'> & { spans: Span[] };
export type Series = Omit<Schemas['TsSeries'], 'points' | 'events'> & { points: Bucket[]; events: Span[] };
export type Signals = Omit<Schemas['TsSignals'], 'series'> & { series: Record<string, Bucket[]> };
export type DriftSuggestion = Schemas['TsDriftSuggestion'];
export type DriftSuggestBody = Pick<RegisterBody, 'project_type' | 'time_column' | 'feature_variables' | 'resample' | 'normal' | 'split_ratio'>;
/** The arrays read back as the tuples they are: the server writes each span and bucket as its positions. */
const span = (a: number[]): Span => [a[0], a[1]];
const bucket = (a: (number | null)[]): Bucket => [Number(a[0]), a[1] ?? null, a[2] ?? null];
const mapValues = <A, B>(o: Record<string, A>, f: (a: A) => B): Record<string, B> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

export interface RegisterBody {
  name: string;
  project_type: TsType;
  time_column: string | null;
  feature_variables: string[];
  target_variables: string[];
  lags: number[];
  windows: (number | string)[];
  resample?: string | null;
  /** Statistics of each rolling window (all four when absent). */
  window_stats?: ('mean' | 'std' | 'min' | 'max')[];
  /** Slowly drifting signals: each enters as its change over drift_rows rows instead of its level. */
  drift_signals?: string[];
  drift_rows?: number | null;
  normal?: { mode: 'rows'; rows: number } | { mode: 'range'; start: string; end: string } | null;
  split_ratio: number;
  models: { algorithm: string; params: Record<string, number> }[];
}
export const tsKeys = {
  catalogue: ['timeseries', 'catalogue'] as const,
  project: (id: string) => ['timeseries', 'project', id] as const,
  report: (id: string, key: string) => ['timeseries', 'report', id, key] as const,
  series: (id: string, key: string, start?: number, end?: number) => ['timeseries', 'series', id, key, start ?? -1, end ?? -1] as const,
};

export function useTsCatalogue() {
  return useQuery({
    queryKey: tsKeys.catalogue,
    queryFn: ({ signal }) => answer(http.GET('/api/timeseries/catalogue', per({ signal }))),
    staleTime: Infinity,
  });
}

/** GET timseseries/project/{id} (SPEC §7 spelling), polled while the project trains. */
export function useTsProject(id: string | undefined) {
  return useQuery({
    queryKey: tsKeys.project(id ?? ''),
    queryFn: ({ signal }) => answer(http.GET('/api/timseseries/project/{id}', { params: { path: { id: id! } }, ...per({ signal }) })),
    enabled: !!id,
    refetchInterval: (q) => (q.state.data?.training_state === 'training' ? 1500 : false),
  });
}

export function useSeries(id: string, key: string, start?: number, end?: number) {
  return useQuery({
    queryKey: tsKeys.series(id, key, start, end),
    queryFn: async ({ signal }): Promise<Series> => {
      const s = await answer(http.GET('/api/timeseries/series/{project_id}/{model_key}', { params: { path: { project_id: id, model_key: key }, query: { start, end, points: 800 } }, ...per({ signal }) }));
      return { ...s, points: s.points.map(bucket), events: s.events.map(span) };
    },
    placeholderData: (prev) => prev,
  });
}

export function useTsReport(id: string, key: string) {
  return useQuery({
    queryKey: tsKeys.report(id, key),
    queryFn: ({ signal }) => answer(http.POST('/api/timeseries/report/{id}', { params: { path: { id } }, body: { model_key: key }, ...per({ signal }) })),
  });
}

const modelPath = (id: string, key: string) => ({ project_id: id, model_key: key });
export async function thresholdStats(id: string, key: string, q: { threshold?: number; target_far?: number }, signal?: AbortSignal): Promise<ThresholdStats> {
  const s = await answer(http.GET('/api/timeseries/threshold/{project_id}/{model_key}', { params: { path: modelPath(id, key), query: q }, ...per({ signal }) }));
  return { ...s, spans: s.spans.map(span) };
}
export const saveThreshold = (id: string, key: string, threshold: number) => answer(http.POST('/api/update/threshold/{project_id}/{model_key}', { params: { path: modelPath(id, key) }, body: { threshold } }));
export const contributions = (id: string, key: string, start: number, end: number) =>
  answer(http.GET('/api/timeseries/contributions/{project_id}/{model_key}', { params: { path: modelPath(id, key), query: { start, end } } }));
export async function signals(id: string, key: string, columns: string[], start?: number, end?: number): Promise<Signals> {
  const s = await answer(http.GET('/api/timeseries/signals/{project_id}/{model_key}', { params: { path: modelPath(id, key), query: { columns: columns.join(','), start, end, points: 400 } } }));
  return { ...s, series: mapValues(s.series, (b) => b.map(bucket)) };
}
/** Which chosen signals drift slowly within the period the models learn from (a suggestion: nothing is applied). */
export function useDriftSuggestion(datasetId: string, body: DriftSuggestBody, lang: string, enabled: boolean) {
  return useQuery({
    // the reasons are said in the reader's language: another language is another answer
    queryKey: ['timeseries', 'drift-suggestion', datasetId, body, lang] as const,
    queryFn: ({ signal }) => answer(http.POST('/api/timeseries/drift/suggest/{id}', { params: { path: { id: datasetId } }, body, ...per({ signal, silent: true }) })),
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}
/** The normal period offered by default: from the label (the rows before its first anomaly, or all rows when none
 * is), else the first half for the person to confirm; with its last row's time, to shade on the chart. Silent: without
 * it the wizard keeps the first half it starts with. */
export function useNormalDefault(datasetId: string, timeColumn: string, target: string, enabled: boolean) {
  return useQuery({
    queryKey: ['timeseries', 'normal-default', datasetId, timeColumn, target] as const,
    queryFn: ({ signal }) =>
      answer(http.GET('/api/timeseries/normal/default/{id}', { params: { path: { id: datasetId }, query: { time_column: timeColumn || undefined, target: target || undefined } }, ...per({ signal, silent: true }) })),
    enabled: enabled && !!datasetId && !!timeColumn,
    staleTime: Infinity,
  });
}

export const registerTs = (datasetId: string, body: RegisterBody) => answer(http.POST('/api/timeseries/register/{id}', { params: { path: { id: datasetId } }, body }));
export const trainTs = (id: string) => answer(http.POST('/api/timeseries/train/model/{id}', { params: { path: { id } }, body: {} }));
export const renameTs = (id: string, name: string) => answer(http.PUT('/api/timeseries/project/{id}', { params: { path: { id } }, body: { name } }));
export const deleteTs = (id: string) => answer(http.DELETE('/api/timeseries/project/delete/{id}', { params: { path: { id } } }));
/** Rename and Delete on a time-series project's page (ProjectFrame); the project is listed among training projects. */
export const tsProjects: ProjectArea<unknown> = { key: tsKeys.project, rename: renameTs, remove: deleteTs, lists: ['training', 'list'], listPath: '/training' };

export async function downloadTsModel(p: TsProject, m: TsModel) {
  const { blob, fileName } = await apiBlob(`/api/timeseries/model/download/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}.zip`);
  saveBlob(blob, fileName);
}
export async function downloadTsReport(p: TsProject, m: TsModel) {
  const { blob, fileName } = await apiBlob(`/api/timeseries/report/download/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}-report.html`);
  saveBlob(blob, fileName);
}

/** A time-series prediction (its report page), polled while it runs; another kind of prediction is not this page's. */
export function useTsPrediction(id: string) {
  return useQuery({
    queryKey: ['timeseries', 'prediction', id],
    queryFn: async ({ signal }) => {
      const p = await answer(http.GET('/api/timeseries/prediction/result/{id}', { params: { path: { id } }, ...per({ signal }) }));
      if (!isTimeSeriesPrediction(p)) throw new TypeError(`prediction ${p.id} is not a time-series prediction`);
      return p;
    },
    refetchInterval: (q) => (q.state.data && ['queued', 'running'].includes(q.state.data.state) ? 1500 : false),
  });
}

/** A prediction's scores, downsampled to 800 points over the rows shown (`zoom`: [first, last], else all). */
export function useTsPredictionSeries(id: string, zoom: [number, number] | null, enabled: boolean) {
  return useQuery({
    queryKey: ['timeseries', 'prediction-series', id, zoom?.[0], zoom?.[1]],
    queryFn: ({ signal }) =>
      answer(http.GET('/api/timeseries/prediction/series/{id}', { params: { path: { id }, query: { points: 800, ...(zoom ? { start: zoom[0], end: zoom[1] } : {}) } }, ...per({ signal }) })),
    enabled,
    placeholderData: keepPreviousData,
  });
}
