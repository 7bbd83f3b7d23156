import { useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost, apiPut } from '../../api/client';
import { SERVICE_STATUS_INTERVAL_MS } from '../../api/me';
import { saveBlob } from '../../lib/browser';
import type { components } from '../../api/schema';
import type { Answer, Deleted } from '../../api/types';

/** Shapes of the hosted model APIs: the answers come from the server's OpenAPI document (schema.d.ts). */
export type Status = 'draft' | 'under_review' | 'approved' | 'rejected' | 'running' | 'stopped';
export const STATUSES: Status[] = ['draft', 'under_review', 'approved', 'rejected', 'running', 'stopped'];
export type Action = 'submit' | 'draft' | 'start' | 'stop';

type Schemas = components['schemas'];
export type Settings = Schemas['PlatformSettings'];
export type PlatformProject = Schemas['PlatformProject'] & { identity_verified?: boolean };
export type ImageModelView = Schemas['HostedImageModel'];
export type Credential = Schemas['PlatformCredential'];
export type Quote = Schemas['PlatformQuote'];
export type PublishableModel = Schemas['PublishableModel'];
export type Stats = Schemas['PlatformStats'];
export type Ratio = Stats['devices'][number];

const enc = encodeURIComponent;
export const projectsKey = ['platform', 'projects'] as const;

/** The status of every project is polled every 30000 ms (SPEC §9). */
export function useProjects(status: Status | 'all') {
  return useQuery({
    queryKey: [...projectsKey, status],
    queryFn: () => apiGet<Answer<'/api/platform/projects', 'get'>>('/api/platform/projects', { status, page_size: 200 }),
    refetchInterval: SERVICE_STATUS_INTERVAL_MS,
  });
}
export function useProject(id: string) {
  return useQuery({ queryKey: [...projectsKey, 'one', id], queryFn: () => apiGet<PlatformProject>(`/api/platform/projects/${enc(id)}`), refetchInterval: SERVICE_STATUS_INTERVAL_MS });
}
export function useCredentials(id: string) {
  return useQuery({ queryKey: [...projectsKey, 'credentials', id], queryFn: () => apiGet<Credential[]>(`/api/platform/projects/${enc(id)}/credentials`) });
}
export function useStats(id: string, bucket: 'hour' | 'day') {
  return useQuery({
    queryKey: [...projectsKey, 'stats', id, bucket],
    queryFn: () => apiGet<Stats>(`/api/platform/projects/${enc(id)}/statistics`, { bucket, days: bucket === 'day' ? 30 : 2 }),
    refetchInterval: SERVICE_STATUS_INTERVAL_MS,
  });
}
export const usePublishable = () => useQuery({ queryKey: ['platform', 'models'], queryFn: () => apiGet<PublishableModel[]>('/api/platform/models') });
/** Silent: pages only add words and links from it (who reviews, whether submitting approves at once). */
export const useIsPlatformAdmin = () =>
  useQuery({ queryKey: ['platform', 'admin'], queryFn: () => apiGet<Answer<'/api/platform/admin/me', 'get'>>('/api/platform/admin/me', undefined, { silent: true }), staleTime: 5 * 60_000 });
export const useReviewQueue = (status: Status | 'all') =>
  useQuery({ queryKey: ['platform', 'review', status], queryFn: () => apiGet<Answer<'/api/platform/admin/projects', 'get'>>('/api/platform/admin/projects', { status }) });

export const quote = (s: Pick<Settings, 'subscription_type' | 'billing_cycle' | 'cpu_cores' | 'memory_gb' | 'gpu_gb' | 'auto_scaling' | 'expected_requests_per_month'>) =>
  apiPost<Quote>('/api/platform/quote', s, { silent: true });
export const createProject = (body: Partial<Settings> & { name: string; key: string; project_id: string; model_key: string }) => apiPost<PlatformProject>('/api/platform/projects', body);
export const updateProject = (id: string, body: Partial<Settings> & { name?: string }) => apiPut<PlatformProject>(`/api/platform/projects/${enc(id)}`, body);
export const act = (id: string, action: Action) => apiPost<PlatformProject>(`/api/platform/projects/${enc(id)}/${action}`);
export const deleteProject = (id: string) => apiDelete<Deleted>(`/api/platform/projects/${enc(id)}`);
export const createCredential = (id: string, name: string, kind: 'production' | 'sandbox') => apiPost<Credential>(`/api/platform/projects/${enc(id)}/credentials`, { name, kind });
export const revokeCredential = (id: string, cid: string) => apiDelete<Credential>(`/api/platform/projects/${enc(id)}/credentials/${enc(cid)}`);
export const review = (id: string, decision: 'approve' | 'reject', reason?: string) => apiPost<PlatformProject>(`/api/platform/admin/projects/${enc(id)}/review`, { decision, reason });
export async function downloadStats(p: PlatformProject, bucket: 'hour' | 'day') {
  const { blob, fileName } = await apiBlob(`/api/platform/projects/${enc(p.id)}/statistics/download?bucket=${bucket}&days=${bucket === 'day' ? 30 : 2}`, `${p.key}-request_statistics.csv`);
  saveBlob(blob, fileName);
}

/** Amounts are integer minor units; JPY has none, most currencies two. */
export function money(amount: number, currency: string, lang: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(lang === 'ja' ? 'ja-JP' : 'en-GB', { style: 'currency', currency }).format(amount / 10 ** digits);
}

/** A hosted time-series detector's interface (time column, history rows, alarm rule, threshold, outputs, examples,
 * its OpenAPI document). */
export type TsInterface = Schemas['HostedTimeSeriesInterface'];
export const isTimeSeries = (p: Pick<PlatformProject, 'model'>) => p.model.type.startsWith('time_series_anomaly_detection');
export function useTsInterface(p: PlatformProject) {
  return useQuery({ queryKey: [...projectsKey, 'time-series', p.id], queryFn: () => apiGet<TsInterface>(`/api/platform/projects/${enc(p.id)}/time-series`), enabled: isTimeSeries(p) });
}
export type Drift = Schemas['PlatformDrift'];
export type DriftSettings = Schemas['PlatformDriftSettings'];
export const driftKey = (id: string) => [...projectsKey, 'drift', id] as const;
/** The drift view; polled while a check runs. Silent: a failed read says so in the panel, not over the whole page. */
export const useDrift = (id: string) =>
  useQuery({ queryKey: driftKey(id), queryFn: ({ signal }) => apiGet<Drift>(`/api/platform/projects/${enc(id)}/drift`, undefined, { signal, silent: true }), refetchInterval: (q) => (q.state.data?.running ? 2000 : SERVICE_STATUS_INTERVAL_MS) });
export const checkDrift = (id: string) => apiPost<Drift>(`/api/platform/projects/${enc(id)}/drift/check`);
export const saveDriftSettings = (id: string, s: Partial<DriftSettings>) => apiPut<Drift>(`/api/platform/projects/${enc(id)}/drift/settings`, s);
