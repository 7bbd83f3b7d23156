import { useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost, apiPut } from '../../api/client';
import { saveBlob } from '../../lib/browser';
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
export type TsAlgorithm = Schemas['TsAlgorithm'];
export type TsParam = TsAlgorithm['params'][number];
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
export type NormalDefault = Schemas['TsNormalDefault'];
export type DriftSuggestBody = Pick<RegisterBody, 'project_type' | 'time_column' | 'feature_variables' | 'resample' | 'normal' | 'split_ratio'>;
export type TsReport = Omit<Schemas['TsReport'], 'overview'> & { overview: { score: Bucket[]; signals_scaled_std: Record<string, number | null> } };

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
    queryFn: ({ signal }) => apiGet<Schemas['TsCatalogue']>('/api/timeseries/catalogue', undefined, { signal }),
    staleTime: Infinity,
  });
}

/** GET timseseries/project/{id} (SPEC §7 spelling), polled while the project trains. */
export function useTsProject(id: string | undefined) {
  return useQuery({
    queryKey: tsKeys.project(id ?? ''),
    queryFn: ({ signal }) => apiGet<TsProject>(`/api/timseseries/project/${enc(id!)}`, undefined, { signal }),
    enabled: !!id,
    refetchInterval: (q) => (q.state.data?.training_state === 'training' ? 1500 : false),
  });
}

export function useSeries(id: string, key: string, start?: number, end?: number) {
  return useQuery({
    queryKey: tsKeys.series(id, key, start, end),
    queryFn: ({ signal }) => apiGet<Series>(`/api/timeseries/series/${enc(id)}/${enc(key)}`, { start, end, points: 800 }, { signal }),
    placeholderData: (prev) => prev,
  });
}

export function useTsReport(id: string, key: string) {
  return useQuery({
    queryKey: tsKeys.report(id, key),
    queryFn: ({ signal }) => apiPost<Omit<Schemas['TsModelReport'], 'report'> & { report: TsReport }>(`/api/timeseries/report/${enc(id)}`, { model_key: key }, { signal }),
  });
}

export const thresholdStats = (id: string, key: string, q: { threshold?: number; target_far?: number }, signal?: AbortSignal) =>
  apiGet<ThresholdStats>(`/api/timeseries/threshold/${enc(id)}/${enc(key)}`, q, { signal });
export const saveThreshold = (id: string, key: string, threshold: number) => apiPost<TsModel>(`/api/update/threshold/${enc(id)}/${enc(key)}`, { threshold });
export const contributions = (id: string, key: string, start: number, end: number) =>
  apiGet<Schemas['TsContributions']>(`/api/timeseries/contributions/${enc(id)}/${enc(key)}`, { start, end });
export const signals = (id: string, key: string, columns: string[], start?: number, end?: number) =>
  apiGet<Signals>(`/api/timeseries/signals/${enc(id)}/${enc(key)}`, { columns: columns.join(','), start, end, points: 400 });
/** Which chosen signals drift slowly within the period the models learn from (a suggestion: nothing is applied). */
export function useDriftSuggestion(datasetId: string, body: DriftSuggestBody, lang: string, enabled: boolean) {
  return useQuery({
    // the reasons are said in the reader's language: another language is another answer
    queryKey: ['timeseries', 'drift-suggestion', datasetId, body, lang] as const,
    queryFn: ({ signal }) => apiPost<DriftSuggestion>(`/api/timeseries/drift/suggest/${enc(datasetId)}`, body, { signal, silent: true }),
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
    queryFn: ({ signal }) => apiGet<NormalDefault>(`/api/timeseries/normal/default/${enc(datasetId)}`, { time_column: timeColumn || undefined, target: target || undefined }, { signal, silent: true }),
    enabled: enabled && !!datasetId && !!timeColumn,
    staleTime: Infinity,
  });
}

export const registerTs = (datasetId: string, body: RegisterBody) => apiPost<TsProject>(`/api/timeseries/register/${enc(datasetId)}`, body);
export const trainTs = (id: string) => apiPost<TsProject>(`/api/timeseries/train/model/${enc(id)}`, {});
export const renameTs = (id: string, name: string) => apiPut<TsProject>(`/api/timeseries/project/${enc(id)}`, { name });
export const deleteTs = (id: string) => apiDelete<Schemas['Deleted']>(`/api/timeseries/project/delete/${enc(id)}`);

export async function downloadTsModel(p: TsProject, m: TsModel) {
  const { blob, fileName } = await apiBlob(`/api/timeseries/model/download/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}.zip`);
  saveBlob(blob, fileName);
}
export async function downloadTsReport(p: TsProject, m: TsModel) {
  const { blob, fileName } = await apiBlob(`/api/timeseries/report/download/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}-report.html`);
  saveBlob(blob, fileName);
}
