import { useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import { SERVICE_STATUS_INTERVAL_MS } from '../../api/me';
import { saveBlob } from '../../lib/browser';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import type { BodyOf } from '../../api/types';

/** Shapes of the hosted model APIs: the answers come from the server's OpenAPI document (schema.d.ts). */
export type Status = 'draft' | 'under_review' | 'approved' | 'rejected' | 'running' | 'stopped';
export const STATUSES: Status[] = ['draft', 'under_review', 'approved', 'rejected', 'running', 'stopped'];
export type Action = 'submit' | 'draft' | 'start' | 'stop';

type Schemas = components['schemas'];
export type Settings = Schemas['PlatformSettings'];
export type PlatformProject = Schemas['PlatformProject'];
export type ImageModelView = Schemas['HostedImageModel'];
export type Credential = Schemas['PlatformCredential'];
export type Quote = Schemas['PlatformQuote'];
export type Stats = Schemas['PlatformStats'];
export type Ratio = Stats['devices'][number];

const enc = encodeURIComponent;
export const projectsKey = ['platform', 'projects'] as const;

/** The status of every project is polled every 30000 ms (SPEC §9). */
export function useProjects(status: Status | 'all') {
  return useQuery({
    queryKey: [...projectsKey, status],
    queryFn: ({ signal }) => answer(http.GET('/api/platform/projects', { params: { query: { status, page_size: 200 } }, ...per({ signal }) })),
    refetchInterval: SERVICE_STATUS_INTERVAL_MS,
  });
}
export function useProject(id: string) {
  return useQuery({ queryKey: [...projectsKey, 'one', id], queryFn: ({ signal }) => answer(http.GET('/api/platform/projects/{id}', { params: { path: { id } }, ...per({ signal }) })), refetchInterval: SERVICE_STATUS_INTERVAL_MS });
}
export function useCredentials(id: string) {
  return useQuery({ queryKey: [...projectsKey, 'credentials', id], queryFn: ({ signal }) => answer(http.GET('/api/platform/projects/{id}/credentials', { params: { path: { id } }, ...per({ signal }) })) });
}
export function useStats(id: string, bucket: 'hour' | 'day') {
  return useQuery({
    queryKey: [...projectsKey, 'stats', id, bucket],
    queryFn: ({ signal }) =>
      answer(http.GET('/api/platform/projects/{id}/statistics', { params: { path: { id }, query: { bucket, days: bucket === 'day' ? 30 : 2 } }, ...per({ signal }) })),
    refetchInterval: SERVICE_STATUS_INTERVAL_MS,
  });
}
export const usePublishable = () => useQuery({ queryKey: ['platform', 'models'], queryFn: ({ signal }) => answer(http.GET('/api/platform/models', per({ signal }))) });
/** Silent: pages only add words and links from it (who reviews, whether submitting approves at once). */
export const useIsPlatformAdmin = () =>
  useQuery({ queryKey: ['platform', 'admin'], queryFn: ({ signal }) => answer(http.GET('/api/platform/admin/me', per({ signal, silent: true }))), staleTime: 5 * 60_000 });
export const useReviewQueue = (status: Status | 'all') =>
  useQuery({ queryKey: ['platform', 'review', status], queryFn: ({ signal }) => answer(http.GET('/api/platform/admin/projects', { params: { query: { status } }, ...per({ signal }) })) });

export const quote = (s: Pick<Settings, 'subscription_type' | 'billing_cycle' | 'cpu_cores' | 'memory_gb' | 'gpu_gb' | 'auto_scaling' | 'expected_requests_per_month'>) =>
  answer(http.POST('/api/platform/quote', { body: s, ...per({ silent: true }) }));
/** Silent: the form puts the server's refusals on its fields, or shows them itself (ProjectForm serverProblems). */
export const createProject = (body: BodyOf<'/api/platform/projects', 'post'>) => answer(http.POST('/api/platform/projects', { body, ...per({ silent: true }) }));
export const updateProject = (id: string, body: BodyOf<'/api/platform/projects/{id}', 'put'>) =>
  answer(http.PUT('/api/platform/projects/{id}', { params: { path: { id } }, body, ...per({ silent: true }) }));
/** The statuses in which a project's settings may change (the server's update refuses the others with a 409). */
export const EDITABLE: Status[] = ['draft', 'rejected'];
export const act = (id: string, action: Action) => answer(http.POST(`/api/platform/projects/{id}/${action}`, { params: { path: { id } } }));
export const deleteProject = (id: string) => answer(http.DELETE('/api/platform/projects/{id}', { params: { path: { id } } }));
export const createCredential = (id: string, name: string, kind: 'production' | 'sandbox') =>
  answer(http.POST('/api/platform/projects/{id}/credentials', { params: { path: { id } }, body: { name, kind } }));
export const revokeCredential = (id: string, cid: string) =>
  answer(http.DELETE('/api/platform/projects/{id}/credentials/{credential_id}', { params: { path: { id, credential_id: cid } } }));
export const review = (id: string, decision: 'approve' | 'reject', reason?: string) =>
  answer(http.POST('/api/platform/admin/projects/{id}/review', { params: { path: { id } }, body: { decision, reason } }));
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
  return useQuery({ queryKey: [...projectsKey, 'time-series', p.id], queryFn: ({ signal }) => answer(http.GET('/api/platform/projects/{id}/time-series', { params: { path: { id: p.id } }, ...per({ signal }) })), enabled: isTimeSeries(p) });
}
export type Drift = Schemas['PlatformDrift'];
export type DriftSettings = Schemas['PlatformDriftSettings'];
export const driftKey = (id: string) => [...projectsKey, 'drift', id] as const;
/** The drift view; polled while a check runs. Silent: a failed read says so in the panel, not over the whole page. */
export const useDrift = (id: string) =>
  useQuery({ queryKey: driftKey(id), queryFn: ({ signal }) => answer(http.GET('/api/platform/projects/{id}/drift', { params: { path: { id } }, ...per({ signal, silent: true }) })), refetchInterval: (q) => (q.state.data?.running ? 2000 : SERVICE_STATUS_INTERVAL_MS) });
export const checkDrift = (id: string) => answer(http.POST('/api/platform/projects/{id}/drift/check', { params: { path: { id } } }));
export const saveDriftSettings = (id: string, s: Partial<DriftSettings>) =>
  answer(http.PUT('/api/platform/projects/{id}/drift/settings', { params: { path: { id } }, body: s }));
