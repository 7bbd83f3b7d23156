import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import { saveBlob } from '../../lib/browser';

const enc = encodeURIComponent;

type Schemas = components['schemas'];
/**
 * Answers of the prediction calls, generated from the server's OpenAPI document (schema.d.ts). A prediction is
 * declared per project kind (project_type): its result is the summary that kind's engine task wrote.
 */
export type Prediction = Schemas['Prediction'];
/** A table's prediction (regression, soft sensor, discriminant analysis, clustering, dimensional compression). */
export type TablePrediction = Extract<Prediction, { project_type: 'regression' | 'soft_sensor' | 'discriminant_analysis' | 'clustering' | 'dimensional_compression' }>;
export type TimeSeriesPrediction = Extract<Prediction, { project_type: 'time_series_anomaly_detection_supervised' | 'time_series_anomaly_detection_unsupervised' }>;
export type ImagePrediction = Extract<Prediction, { project_type: 'analysis' | 'classification' }>;

const TS_TYPES: readonly string[] = ['time_series_anomaly_detection_supervised', 'time_series_anomaly_detection_unsupervised'];
export const isImagePrediction = (p: Prediction): p is ImagePrediction => p.project_type === 'analysis' || p.project_type === 'classification';
export const isTimeSeriesPrediction = (p: Prediction): p is TimeSeriesPrediction => TS_TYPES.includes(p.project_type);
export const isTablePrediction = (p: Prediction): p is TablePrediction => !isImagePrediction(p) && !isTimeSeriesPrediction(p);

/** SPEC §2 prediction report routes by project type. */
export function reportPath(p: Pick<Prediction, 'project_type' | 'id'>): string {
  const id = enc(p.id);
  switch (p.project_type) {
    case 'regression':
      return `/prediction/regression/report/${id}`;
    case 'discriminant_analysis':
      return `/prediction/discriminant-analysis/report/${id}`;
    case 'clustering':
      return `/prediction/clustering/report/${id}`;
    case 'soft_sensor':
      return `/prediction/report/soft-sensor/${id}`;
    case 'time_series_anomaly_detection_supervised':
    case 'time_series_anomaly_detection_unsupervised':
      return `/prediction/time-series/report/${id}`;
    default:
      return `/prediction/report/dimensional-compression/${id}`;
  }
}

export const predictionKeys = {
  list: (q: string, page: number, size: number) => ['prediction', 'list', q, page, size] as const,
  one: (id: string) => ['prediction', 'one', id] as const,
  rows: (id: string, page: number, size: number) => ['prediction', 'rows', id, page, size] as const,
};

export function usePredictions(query: string, page: number, pageSize: number) {
  return useQuery({
    queryKey: predictionKeys.list(query, page, pageSize),
    queryFn: ({ signal }) => answer(http.GET('/api/inference/list/', { params: { query: { query, page, page_size: pageSize } }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'queued' || p.state === 'running') ? 2000 : false),
  });
}

/** A prediction, polled while it runs (SPEC §4: inference progress is polled). */
export function usePrediction(id: string) {
  return useQuery({
    queryKey: predictionKeys.one(id),
    queryFn: ({ signal }) => answer(http.GET('/api/inference/{id}', { params: { path: { id } }, ...per({ signal }) })),
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'queued' || q.state.data.state === 'running') ? 1000 : false),
  });
}

export function useResultRows(id: string, page: number, pageSize: number, enabled: boolean) {
  return useQuery({
    queryKey: predictionKeys.rows(id, page, pageSize),
    queryFn: ({ signal }) => answer(http.GET('/api/inference/{id}/rows', { params: { path: { id }, query: { page, page_size: pageSize } }, ...per({ signal }) })),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export const executePrediction = (projectId: string, modelKey: string, datasetId: string, name?: string) =>
  answer(http.POST('/api/inference/execute/{project_id}/{key}', { params: { path: { project_id: projectId, key: modelKey } }, body: { dataset_id: datasetId, name: name || undefined } }));

export const deletePrediction = (id: string) => answer(http.DELETE('/api/inference/delete/{id}', { params: { path: { id } } }));

export async function downloadPredictions(p: Pick<Prediction, 'id' | 'project_id' | 'name'>) {
  const { blob, fileName } = await apiBlob(`/api/inference/download/${enc(p.project_id)}/${enc(p.id)}`, `${p.name}-predictions.csv`);
  saveBlob(blob, fileName);
}
