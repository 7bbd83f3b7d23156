import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import type { paths } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import type { Answer, BodyOf, Dataset, QueryOf } from '../../api/types';
import { uploadTo, type UploadOptions } from '../../api/upload';
import { saveBlob } from '../../lib/browser';

export type ListParams = Required<Pick<QueryOf<'/api/datasets/list/', 'get'>, 'query' | 'page' | 'page_size' | 'data_type' | 'type' | 'sort'>>;
/** The list's orders (the column sorted and its direction, as the server names them). */
export const LIST_SORTS = ['created_at_desc', 'created_at_asc', 'name_asc', 'name_desc'] as const satisfies readonly ListParams['sort'][];

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
    queryFn: ({ signal }) => answer(http.GET('/api/datasets/list/', { params: { query: params }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
  });
}

/** Every dataset of the organisation (GET /api/dataset), for pickers in other areas. */
export function useAllDatasets() {
  return useQuery({
    queryKey: ['datasets', 'all'] as const,
    queryFn: ({ signal }) => answer(http.GET('/api/dataset', per({ signal }))),
  });
}

export function useDataset(id: string) {
  return useQuery({
    queryKey: datasetKeys.one(id),
    queryFn: ({ signal }) => answer(http.GET('/api/dataset/{id}/{min_schema}', { params: { path: { id, min_schema: 'false' } }, ...per({ signal }) })),
  });
}

/** Column names and types only (GET /api/dataset/{id}/true), for pickers of target and feature columns. */
export function useDatasetSchema(id: string | undefined) {
  return useQuery({
    queryKey: ['datasets', 'schema', id] as const,
    queryFn: ({ signal }) => answer(http.GET('/api/dataset/{id}/{min_schema}', { params: { path: { id: id!, min_schema: 'true' } }, ...per({ signal }) })),
    enabled: !!id,
  });
}

/** One page of rows (page is 1-based, as the API counts). */
export function useDataPage(id: string, page: number, pageSize: number, enabled = true) {
  return useQuery({
    queryKey: datasetKeys.rows(id, page, pageSize),
    queryFn: ({ signal }) => answer(http.GET('/api/dataset/upload/{id}', { params: { path: { id }, query: { page, page_size: pageSize } }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5 * 60_000,
  });
}

export const updateDataset = (id: string, body: BodyOf<'/api/dataset/{id}', 'put'>) => answer(http.PUT('/api/dataset/{id}', { params: { path: { id } }, body }));

export const deleteDataset = (id: string) => answer(http.DELETE('/api/dataset/delete/{id}', { params: { path: { id } } }));

/** The original file, fetched with the bearer and saved under its own name. */
export async function downloadOriginal(dataset: Pick<Dataset, 'id' | 'file_name'>): Promise<void> {
  const { blob, fileName } = await apiBlob(`/api/dataset/download/${enc(dataset.id)}`, dataset.file_name || `${dataset.id}.csv`);
  saveBlob(blob, fileName);
}

export const startStatistics = (id: string) => answer(http.POST('/api/statistics/{dataset_id}', { params: { path: { dataset_id: id } } }));

export const fetchStatistics = (id: string, signal?: AbortSignal) =>
  answer(http.POST('/api/statistics/result/{dataset_id}', { params: { path: { dataset_id: id } }, ...per({ signal }) }));

type RegisterForm = paths['/api/dataset/register']['post']['requestBody']['content']['multipart/form-data'];
/** The register form's fields, as the server declares them: every one sent, as text, before the file. */
export type RegisterFields = Record<keyof Omit<RegisterForm, 'file'>, string>;

/** What a registration answers: a table dataset, or an image dataset (an archive registered for an image type). */
export type Registered = Answer<'/api/dataset/register', 'post'>;
export const isTableDataset = (d: Registered): d is Dataset => !('image' in d);

/** POST /api/dataset/register, multipart: the fields first, the file last (the server streams it). */
export function registerDataset(fields: RegisterFields, file: File, opts: UploadOptions) {
  const form = new FormData();
  (Object.keys(fields) as (keyof RegisterFields)[]).forEach((k) => form.append(k, fields[k]));
  form.append('file', file, file.name);
  return uploadTo('/api/dataset/register', {}, form, opts);
}
