import { useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost } from '../../api/client';
import type { Dataset, DatasetColumn, JobState } from '../../api/types';
import { uploadMultipart } from '../../api/upload';
import { saveBlob } from '../../lib/browser';

const enc = encodeURIComponent;

export interface Step {
  process_type: string;
  method: string;
  columns: string[];
  params: Record<string, unknown>;
}

export interface Condition {
  id: string;
  name: string;
  steps: Step[];
  datetime_column: string | null;
  source_dataset_id: string | null;
  fitted: unknown | null;
  created_at: string;
  updated_at: string;
}

export interface LoadedDataset {
  dataset: Dataset;
  columns: DatasetColumn[];
  rows: unknown[][];
  row_count: number;
}

export interface AffectedRow {
  row: number | string;
  status: 'removed' | 'changed';
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface Preview {
  step: Step & { fitted: unknown };
  step_label: string;
  rows_before: number;
  rows_after: number;
  rows_removed: number;
  rows_changed: number;
  cells_changed: Record<string, number>;
  columns_before: number;
  columns_after: number;
  columns_added: string[];
  columns_dropped: string[];
  order_changed: boolean;
  target_columns: string[];
  affected_rows: AffectedRow[];
  affected_columns: string[];
  chart: null | {
    column: string;
    histogram: { edges: number[]; before: number[]; after: number[] } | null;
    series: { x: 'datetime' | 'row'; before: [unknown, number | null][] | null; after: [unknown, number | null][] | null };
  };
  sample: boolean;
  sample_rows: number;
  total_rows: number;
}

export interface HistoryEntry {
  process_type: string;
  action_name: string;
  changes: unknown;
  modified_at: string;
}

export interface RunResult {
  temp_id: string;
  source_dataset_id: string;
  condition_id: string | null;
  condition_name: string;
  steps: Step[];
  state: JobState;
  progress: number;
  message: string;
  error: string | null;
  dataset_id: string | null;
  result: null | {
    row_count: number;
    column_count: number;
    rows_before: number;
    columns_before: number;
    columns: string[];
    datetime_column: string | null;
    history: HistoryEntry[];
    head: Record<string, unknown>[];
  };
}

export const keys = {
  conditions: ['preprocessing', 'conditions'] as const,
  load: (id: string) => ['preprocessing', 'load', id] as const,
  run: (id: string) => ['preprocessing', 'run', id] as const,
};

export function useLoadedDataset(id: string) {
  return useQuery({ queryKey: keys.load(id), queryFn: ({ signal }) => apiPost<LoadedDataset>(`/api/load/dataset/${enc(id)}`, undefined, { signal }) });
}

export function useConditions() {
  return useQuery({ queryKey: keys.conditions, queryFn: ({ signal }) => apiGet<Condition[]>('/api/preprocess/conditions', undefined, { signal }) });
}

export const previewStep = (id: string, steps: Step[], index: number) =>
  apiPost<Preview>(`/api/manual/process/dataset/${enc(id)}`, { steps, index }, { silent: true });

export const saveCondition = (body: { name: string; steps: Step[]; datetime_column?: string | null; source_dataset_id?: string | null; confirm_overwrite?: boolean }) =>
  apiPost<Condition>('/api/preprocess/conditions', body, { silent: true });

export const runCondition = (id: string, body: { steps: Step[]; condition_name?: string; confirm_overwrite?: boolean }) =>
  apiPost<{ temp_id: string; job_id: string; state: JobState; condition_id: string | null; condition_name: string }>(`/api/preprocess/dataset/${enc(id)}`, body, { silent: true });

export function useRun(tempId: string | null) {
  return useQuery({
    queryKey: keys.run(tempId ?? ''),
    queryFn: ({ signal }) => apiGet<RunResult>(`/api/preprocess/result/${enc(tempId!)}`, undefined, { signal }),
    enabled: !!tempId,
    meta: { background: true },
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'queued' || q.state.data.state === 'running') ? 1000 : false),
  });
}

export const registerDataset = (tempId: string, body: { name: string; comment: string }) => apiPost<Dataset>(`/api/new_dataset/register/${enc(tempId)}`, body);

/** Stops a running condition (the run's temp_id is its job id). */
export const cancelRun = (tempId: string) => apiPost<unknown>(`/api/jobs/${enc(tempId)}/cancel`);

export const deleteCondition = (id: string) => apiDelete<{ id: string }>(`/api/preprocess/conditions/${enc(id)}`);

export async function downloadCondition(id: string): Promise<void> {
  const { blob } = await apiBlob(`/api/preprocess/conditions/${enc(id)}/download`, 'condition_setting_file.csv');
  saveBlob(blob, 'condition_setting_file.csv');
}

export function uploadConditionFile(file: File) {
  const form = new FormData();
  form.append('file', file);
  return uploadMultipart<{ name: string; steps: Step[] }>('/api/preprocess/conditions/upload', form);
}
