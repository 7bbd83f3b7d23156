import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, type RequestOptions } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import type { QueryOf } from '../../api/types';
import { saveBlob } from '../../lib/browser';

type Schemas = components['schemas'];
/** Shapes of SPEC §7 'Statistical analysis', taken from the server's declared answers
 * (server/src/features/statistical-analysis is the source of truth). */
export type TestType = Schemas['StatisticalProject']['test_type'];
export type Alternative = Schemas['StatisticalProject']['alternative'];
export type EqualVariance = Schemas['StatisticalProject']['equal_variance'];
export type ProjectState = Schemas['StatisticalProject']['state'];
// Answers, as the server declares them (server/src/features/statistical-analysis/responses.ts).
export type Project = Schemas['StatisticalProject'];
export type BoxData = Schemas['BoxData'];
export type ReferenceCurve = Schemas['ReferenceCurve'];
export type TestResult = Schemas['TestResult'];
/** One test type's result: TestResult is a union on test_type, each member with the fields its test has. */
export type ResultOf<T extends TestType> = Extract<TestResult, { test_type: T }>;
export type RunState = Schemas['StatisticalRunState'];
export type Evaluation = Schemas['StatisticalEvaluation'];

export const STATES: ProjectState[] = ['done', 'running', 'failed', 'ready'];

/** A project's test settings, as the server keeps and answers them (also what registering sends). */
export type ProjectSettings = Schemas['StatisticalProjectSettings'];

export type ListParams = Required<QueryOf<'/api/statistical/analysis/projects', 'get'>>;

const enc = encodeURIComponent;
const base = '/api/statistical/analysis';

export const statKeys = {
  all: ['statistical-analysis'] as const,
  list: (p: Record<string, unknown>) => ['statistical-analysis', 'list', p] as const,
  counts: ['statistical-analysis', 'counts'] as const,
  project: (id: string) => ['statistical-analysis', 'project', id] as const,
  run: (id: string) => ['statistical-analysis', 'run', id] as const,
  evaluation: (id: string, finished: string | null) => ['statistical-analysis', 'eval', id, finished] as const,
  values: (datasetId: string, column: string) => ['statistical-analysis', 'values', datasetId, column] as const,
};

export const isActive = (s: string | undefined) => s === 'running';
export const POLL_MS = 1000;

export function useProjects(params: ListParams) {
  return useQuery({
    queryKey: statKeys.list(params),
    queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/projects', { params: { query: params }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
    meta: { background: true },
    // While a test runs the list follows it.
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useStateCounts() {
  return useQuery({
    queryKey: statKeys.counts,
    queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/projects/list', per({ signal }))),
    meta: { background: true },
    refetchInterval: (q) => (q.state.data?.counts.running ? 2000 : false),
  });
}

export function useProject(id: string) {
  return useQuery({ queryKey: statKeys.project(id), queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/project/{id}', { params: { path: { id } }, ...per({ signal }) })) });
}

export function useRunState(id: string, enabled: boolean) {
  return useQuery({
    queryKey: statKeys.run(id),
    queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/train/result/{id}', { params: { path: { id } }, ...per({ signal }) })),
    enabled,
    meta: { background: true },
    refetchInterval: (q) => (q.state.status === 'error' ? false : isActive(q.state.data?.state) ? POLL_MS : false),
  });
}

export function useEvaluation(id: string, finishedAt: string | null, enabled: boolean) {
  return useQuery({
    queryKey: statKeys.evaluation(id, finishedAt),
    queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/eval/result/{id}', { params: { path: { id } }, ...per({ signal }) })),
    enabled,
  });
}

export function useColumnValues(datasetId: string, column: string | null) {
  return useQuery({
    queryKey: statKeys.values(datasetId, column ?? ''),
    queryFn: ({ signal }) => answer(http.GET('/api/statistical/analysis/values/{dataset_id}', { params: { path: { dataset_id: datasetId }, query: { column: column! } }, ...per({ signal }) })),
    enabled: !!column,
    staleTime: 5 * 60_000,
  });
}

export type RegisterInput = ProjectSettings & { name: string; comment: string; run?: boolean };

export const registerProject = (datasetId: string, body: RegisterInput, opts: RequestOptions = {}) =>
  answer(http.POST('/api/statistical/analysis/register/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body, ...per(opts) }));

export const runProject = (id: string, body: Partial<ProjectSettings> = {}, opts: RequestOptions = {}) =>
  answer(http.POST('/api/statistical/analysis/train/model/{id}', { params: { path: { id } }, body, ...per(opts) }));

export const deleteProject = (id: string) => answer(http.DELETE('/api/statistical/analysis/project/delete/{id}', { params: { path: { id } } }));

export async function downloadResult(p: Pick<Project, 'id' | 'name'>, format: 'csv' | 'html', lang: 'en' | 'ja') {
  const { blob, fileName } = await apiBlob(`${base}/result/download/${enc(p.id)}`, `${p.name}_${format === 'csv' ? 'result.csv' : 'report.html'}`, {
    query: { format, lang },
  });
  saveBlob(blob, fileName);
}

export async function downloadSummary(ids: string[]) {
  const { blob, fileName } = await apiBlob(`${base}/download`, 'statistical_analysis.csv', { method: 'POST', json: { ids } });
  saveBlob(blob, fileName);
}
