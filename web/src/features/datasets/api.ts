import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost, apiPut } from '../../api/client';
import type { DataPage, Dataset, DatasetUpdate, DatasetWithColumns, Page, StatisticsJob } from '../../api/types';
import { uploadMultipart, type UploadOptions } from '../../api/upload';
import { saveBlob } from '../../lib/browser';
import type { Answer, Deleted } from '../../api/types';

export interface ListParams {
  query: string;
  page: number;
  page_size: number;
  data_type: string;
  type: string;
  sort: string;
}

const enc = encodeURIComponent;

export const datasetKeys = {
  all: ['datasets'] as const,
  list: (p: ListParams) => ['datasets', 'list', p] as const,
  one: (id: string) => ['datasets', 'one', id] as const,
  rows: (id: string, page: number, size: number) => ['datasets', 'rows', id, page, size] as const,
  statistics: (id: string) => ['datasets', 'statistics', id] as const,
};

export function useDatasetList(params: ListParams) {
  return useQuery({
    queryKey: datasetKeys.list(params),
    queryFn: ({ signal }) => apiGet<Page<Dataset>>('/api/datasets/list/', { ...params }, { signal }),
    placeholderData: keepPreviousData,
  });
}

/** Every dataset of the organisation (GET /api/dataset), for pickers in other areas. */
export function useAllDatasets() {
  return useQuery({
    queryKey: ['datasets', 'all'] as const,
    queryFn: ({ signal }) => apiGet<Dataset[]>('/api/dataset', undefined, { signal }),
  });
}

export function useDataset(id: string) {
  return useQuery({
    queryKey: datasetKeys.one(id),
    queryFn: ({ signal }) => apiGet<DatasetWithColumns>(`/api/dataset/${enc(id)}/false`, undefined, { signal }),
  });
}

/** Column names and types only (GET /api/dataset/{id}/true), for pickers of target and feature columns. */
export function useDatasetSchema(id: string | undefined) {
  return useQuery({
    queryKey: ['datasets', 'schema', id] as const,
    queryFn: ({ signal }) => apiGet<DatasetWithColumns>(`/api/dataset/${enc(id!)}/true`, undefined, { signal }),
    enabled: !!id,
  });
}

/** One page of rows (page is 1-based, as the API counts). */
export function useDataPage(id: string, page: number, pageSize: number, enabled = true) {
  return useQuery({
    queryKey: datasetKeys.rows(id, page, pageSize),
    queryFn: ({ signal }) => apiGet<DataPage>(`/api/dataset/upload/${enc(id)}`, { page, page_size: pageSize }, { signal }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5 * 60_000,
  });
}

export const updateDataset = (id: string, body: DatasetUpdate) => apiPut<Dataset>(`/api/dataset/${enc(id)}`, body);

export const deleteDataset = (id: string) => apiDelete<Deleted>(`/api/dataset/delete/${enc(id)}`);

/** The original file, fetched with the bearer and saved under its own name. */
export async function downloadOriginal(dataset: Pick<Dataset, 'id' | 'file_name'>): Promise<void> {
  const { blob, fileName } = await apiBlob(`/api/dataset/download/${enc(dataset.id)}`, dataset.file_name || `${dataset.id}.csv`);
  saveBlob(blob, fileName);
}

export const startStatistics = (id: string) => apiPost<Answer<'/api/statistics/{dataset_id}', 'post'>>(`/api/statistics/${enc(id)}`);

export const fetchStatistics = (id: string, signal?: AbortSignal) =>
  apiPost<StatisticsJob>(`/api/statistics/result/${enc(id)}`, undefined, { signal });

export interface RegisterFields {
  name: string;
  category: string;
  training_type: string;
  data_type: string;
  type: string;
  comment: string;
  datetime_column: string;
}

/** POST /api/dataset/register, multipart: the fields first, the file last (the server streams it). */
export function registerDataset(fields: RegisterFields, file: File, opts: UploadOptions): Promise<Dataset> {
  const form = new FormData();
  (Object.keys(fields) as (keyof RegisterFields)[]).forEach((k) => form.append(k, fields[k]));
  form.append('file', file, file.name);
  return uploadMultipart<Dataset>('/api/dataset/register', form, opts);
}
