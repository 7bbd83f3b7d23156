import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost } from '../../api/client';
import { saveBlob } from '../../lib/browser';

const enc = encodeURIComponent;

export interface Prediction {
  id: string;
  name: string;
  project_id: string;
  project_name: string;
  project_type: string;
  report_type: string;
  model_key: string;
  dataset_id: string;
  test_dataset: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
  message: string;
  error: string | null;
  log: string;
  result: { rows: number; columns: string[]; outputs: string[]; counts?: Record<string, number>; stats?: Record<string, number | null>; condition_applied?: string | null } | null;
  created_at: string;
  finished_at: string | null;
}

export interface ResultPage {
  columns: string[];
  outputs: string[];
  rows: (string | number | boolean | null)[][];
  total: number;
  page: number;
  page_size: number;
}

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
    queryFn: ({ signal }) => apiGet<{ items: Prediction[]; total: number }>('/api/inference/list/', { query, page, page_size: pageSize }, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'queued' || p.state === 'running') ? 2000 : false),
  });
}

/** A prediction, polled while it runs (SPEC §4: inference progress is polled). */
export function usePrediction(id: string) {
  return useQuery({
    queryKey: predictionKeys.one(id),
    queryFn: ({ signal }) => apiGet<Prediction>(`/api/inference/${enc(id)}`, undefined, { signal }),
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'queued' || q.state.data.state === 'running') ? 1000 : false),
  });
}

export function useResultRows(id: string, page: number, pageSize: number, enabled: boolean) {
  return useQuery({
    queryKey: predictionKeys.rows(id, page, pageSize),
    queryFn: ({ signal }) => apiGet<ResultPage>(`/api/inference/${enc(id)}/rows`, { page, page_size: pageSize }, { signal }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export const executePrediction = (projectId: string, modelKey: string, datasetId: string, name?: string) =>
  apiPost<Prediction>(`/api/inference/execute/${enc(projectId)}/${enc(modelKey)}`, { dataset_id: datasetId, name: name || undefined });

export const deletePrediction = (id: string) => apiDelete<{ id: string }>(`/api/inference/delete/${enc(id)}`);

export async function downloadPredictions(p: Pick<Prediction, 'id' | 'project_id' | 'name'>) {
  const { blob, fileName } = await apiBlob(`/api/inference/download/${enc(p.project_id)}/${enc(p.id)}`, `${p.name}-predictions.csv`);
  saveBlob(blob, fileName);
}
