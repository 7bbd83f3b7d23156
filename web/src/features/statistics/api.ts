import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost, type RequestOptions } from '../../api/client';
import type { Page } from '../../api/types';
import { saveBlob } from '../../lib/browser';

/** Shapes of SPEC §7 'Statistical analysis' (server/src/features/statistical-analysis is the source of truth). */
export const TEST_TYPES = [
  'two_sample_t',
  'paired_t',
  'one_sample_t',
  'mann_whitney',
  'wilcoxon',
  'anova',
  'chi_square',
  'pearson',
  'spearman',
  'shapiro',
  'f_test',
] as const;
export type TestType = (typeof TEST_TYPES)[number];
export type Alternative = 'two-sided' | 'less' | 'greater';
export type EqualVariance = 'auto' | 'student' | 'welch';
export type ProjectState = 'ready' | 'running' | 'done' | 'failed';
export const STATES: ProjectState[] = ['done', 'running', 'failed', 'ready'];

export interface ProjectSettings {
  test_type: TestType;
  variable1: string;
  variable2: string | null;
  category: string | null;
  group1: string | null;
  group2: string | null;
  groups: string[];
  hypothetical_mean: number;
  significance_level: number;
  alternative: Alternative;
  equal_variance: EqualVariance;
}

export interface Project extends ProjectSettings {
  id: string;
  name: string;
  comment: string;
  dataset_id: string;
  dataset_name: string;
  state: ProjectState;
  job_id: string | null;
  error: string | null;
  summary: { statistic: string | null; value: number | null; p_value: number | null; reject: boolean; method: string } | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface GroupStats {
  label: string;
  n: number;
  missing: number;
  mean: number | null;
  sd: number | null;
  se: number | null;
  median: number | null;
  q1: number | null;
  q3: number | null;
  min: number | null;
  max: number | null;
  ci_low: number | null;
  ci_high: number | null;
  skewness?: number | null;
  kurtosis?: number | null;
}

export interface BoxData {
  label: string;
  q1: number;
  median: number;
  q3: number;
  low: number;
  high: number;
  mean: number;
  outliers: number[];
  outlier_count: number;
  points: number[];
}

export interface ReferenceCurve {
  dist: 't' | 'normal' | 'f' | 'chi2';
  params: Record<string, number>;
  x: number[];
  y: number[];
  observed: number | null;
  observed_off_chart: boolean;
  critical_low: number | null;
  critical_high: number | null;
  alternative: Alternative;
}

export interface Assumption {
  check: 'normality' | 'equal_variance' | 'expected_counts' | string;
  method: string;
  target: string;
  statistic: number | null;
  p_value: number | null;
  passed: boolean;
  subsampled?: boolean;
  n_tested?: number;
  min_expected?: number;
  cells?: number;
}

export interface TestResult {
  test_type: TestType;
  method: string;
  alternative: Alternative;
  alpha: number;
  confidence_level: number;
  statistic: { symbol: string; value: number | null } | null;
  df: number | null;
  df2: number | null;
  p_value: number | null;
  reject: boolean;
  hypothetical_mean?: number;
  z?: number;
  estimate: { kind: string; value: number | null } | null;
  ci: { kind: string; level: number; low: number | null; high: number | null; approximate?: boolean } | null;
  effect_size: { kind: string; value: number | null; magnitude: string | null; hedges_g?: number | null } | null;
  groups: GroupStats[];
  differences?: GroupStats;
  pairs?: number;
  n_missing?: number;
  equal_variance?: { mode: EqualVariance; levene_statistic: number; levene_p: number; pooled: boolean };
  assumptions: Assumption[];
  warnings: { code: string; params: Record<string, unknown> }[];
  post_hoc?: { method: string; pairs: { a: string; b: string; difference: number; low: number; high: number; p_value: number; reject: boolean }[] };
  anova_table?: { ss_between: number; ss_within: number; ms_between: number; ms_within: number };
  table?: { rows: string[]; columns: string[]; row_variable: string; column_variable: string; observed: number[][]; expected: number[][] };
  charts: {
    box?: BoxData[];
    reference?: ReferenceCurve;
    reference_line?: number;
    scatter?: { x: number[]; y: number[]; slope: number | null; intercept: number | null; shown: number; n: number };
    qq?: { theoretical: number[]; sample: number[]; slope: number; intercept: number };
  };
  variables: { variable1: string; variable2: string | null; category: string | null; group1: string | null; group2: string | null };
  seconds?: number;
}

export interface RunState {
  project_id: string;
  state: ProjectState;
  job_id: string | null;
  job_state: string;
  progress: number;
  message: string;
  error: string | null;
  log: string;
  started_at: string | null;
  finished_at: string | null;
  result: TestResult | null;
}

type Both = { en: string; ja: string };
export interface Evaluation {
  project_id: string;
  reject: boolean;
  p_value: number | null;
  alpha: number;
  statistic_text: string;
  p_text: string;
  method_name: Both;
  sentence: Both;
  effect_size: (NonNullable<TestResult['effect_size']> & { name: Both; magnitude_text: Both | null }) | null;
  warnings: { code: string; params: Record<string, unknown>; text: Both }[];
}

export interface ColumnValues {
  column: string;
  type: string;
  distinct: number;
  values: { value: string; count: number }[];
}

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

export function useProjects(params: { state: string; query: string; page: number; page_size: number }) {
  return useQuery({
    queryKey: statKeys.list(params),
    queryFn: ({ signal }) => apiGet<Page<Project>>(`${base}/projects`, params, { signal }),
    placeholderData: keepPreviousData,
    meta: { background: true },
    // While a test runs the list follows it.
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useStateCounts() {
  return useQuery({
    queryKey: statKeys.counts,
    queryFn: ({ signal }) => apiGet<{ items: unknown[]; counts: Record<string, number> }>(`${base}/projects/list`, undefined, { signal }),
    meta: { background: true },
    refetchInterval: (q) => (q.state.data?.counts.running ? 2000 : false),
  });
}

export function useProject(id: string) {
  return useQuery({ queryKey: statKeys.project(id), queryFn: ({ signal }) => apiGet<Project>(`${base}/project/${enc(id)}`, undefined, { signal }) });
}

export function useRunState(id: string, enabled: boolean) {
  return useQuery({
    queryKey: statKeys.run(id),
    queryFn: ({ signal }) => apiGet<RunState>(`${base}/train/result/${enc(id)}`, undefined, { signal }),
    enabled,
    meta: { background: true },
    refetchInterval: (q) => (q.state.status === 'error' ? false : isActive(q.state.data?.state) ? POLL_MS : false),
  });
}

export function useEvaluation(id: string, finishedAt: string | null, enabled: boolean) {
  return useQuery({
    queryKey: statKeys.evaluation(id, finishedAt),
    queryFn: ({ signal }) => apiGet<Evaluation>(`${base}/eval/result/${enc(id)}`, undefined, { signal }),
    enabled,
  });
}

export function useColumnValues(datasetId: string, column: string | null) {
  return useQuery({
    queryKey: statKeys.values(datasetId, column ?? ''),
    queryFn: ({ signal }) => apiGet<ColumnValues>(`${base}/values/${enc(datasetId)}`, { column: column! }, { signal }),
    enabled: !!column,
    staleTime: 5 * 60_000,
  });
}

export type RegisterInput = ProjectSettings & { name: string; comment: string; run?: boolean };

export const registerProject = (datasetId: string, body: RegisterInput, opts: RequestOptions = {}) =>
  apiPost<Project>(`${base}/register/${enc(datasetId)}`, body, opts);

export const runProject = (id: string, body: Partial<ProjectSettings> = {}, opts: RequestOptions = {}) =>
  apiPost<Project>(`${base}/train/model/${enc(id)}`, body, opts);

export const deleteProject = (id: string) => apiDelete<{ id: string }>(`${base}/project/delete/${enc(id)}`);

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
