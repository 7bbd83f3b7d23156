import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet } from '../../api/client';
import { uploadMultipart } from '../../api/upload';
import { saveBlob } from '../../lib/browser';

/** Shapes of SPEC §7 'Optimal design' (server/src/features/optimal-design/schemas.ts is the source of truth). */
export const ALGORITHMS = ['d_optimal', 'i_optimal', 'space_filling', 'full_factorial', 'fractional_factorial', 'central_composite', 'box_behnken', 'simplex_lattice', 'simplex_centroid', 'bayesian'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];
export const MODELS = ['linear', 'interactions', 'quadratic', 'scheffe_linear', 'scheffe_quadratic', 'scheffe_special_cubic', 'custom'] as const;
export type ModelKind = (typeof MODELS)[number];
export type VariableType = 'continuous' | 'discrete' | 'categorical' | 'mixture';

export interface Variable {
  name: string;
  type: VariableType;
  low?: number;
  high?: number;
  levels?: (string | number)[];
}
export interface Constraint {
  type: 'sum' | 'linear';
  coefficients: Record<string, number>;
  op: '=' | '<=' | '>=';
  total: number;
}
export interface RoundSettings {
  algorithm: Algorithm;
  n_runs: number;
  seed?: number;
  parameters?: { resolution?: number; center?: number; degree?: number };
  bo?: { response: string; direction: 'maximize' | 'minimize'; model?: { project_id: string; model_key: string } | null } | null;
}
export interface RegisterSettings extends RoundSettings {
  name: string;
  comment: string;
  variables: Variable[];
  constraints: Constraint[];
  mixture_total?: number;
  model: { kind: ModelKind; terms?: string[] };
  responses: string[];
  exclude_tolerance: number;
  existing_project_ids: string[];
}

export type Row = Record<string, string | number | null>;
export interface Criteria {
  runs: number;
  terms: number;
  det_xtx: number | null;
  singular: boolean;
  d_efficiency: number | null;
  a_efficiency: number | null;
  g_efficiency: number | null;
  i_value: number | null;
  i_efficiency?: number | null;
  vif: Record<string, number | null>;
  variance_profile: { fraction: number[]; scaled_variance: number[]; points: number } | null;
}
export interface FitTerm {
  term: string;
  estimate: number;
  std_error: number;
  t: number;
  p_value: number;
}
export interface DesignResult {
  algorithm: string;
  method: string;
  model: { kind: string; terms: string[] };
  variables: { name: string; type: VariableType; low: number; high: number; levels: (string | number)[] }[];
  mixture_total: number | null;
  existing: Row[];
  runs: Row[];
  criteria: Criteria;
  min_distance: number | null;
  candidates: number;
  region_points: number;
  excluded: number;
  fits: Record<string, { terms: FitTerm[]; r2: number | null; r2_adj: number | null; rmse: number; runs: number }>;
  seed: number;
  seconds?: number;
  bo?: { mean: number[]; sd: number[]; ei: number[]; best_observed: number; response: string; direction: string; surrogate: string };
}
export interface Round {
  round: number;
  algorithm: Algorithm;
  n_runs: number;
  parameters: Record<string, unknown>;
  state: string;
  job_id: string | null;
  error: string | null;
  result: DesignResult | null;
  results: Row[] | null;
  created_at: string;
  finished_at: string | null;
}
export interface Project {
  id: string;
  name: string;
  comment: string;
  state: string;
  rounds: number;
  settings: { variables: Variable[]; constraints: Constraint[]; responses: string[]; model: { kind: ModelKind }; mixture_total?: number; exclude_count: number; existing_rows: Row[] };
  round_list: Round[];
  eval_state: string | null;
  eval_error: string | null;
  created_at: string;
  updated_at: string;
}
export interface ProjectSummary {
  id: string;
  name: string;
  state: string;
  rounds: number;
  variables: number;
  created_at: string;
  updated_at: string;
}
export interface Evaluation {
  project_id: string;
  state: string | null;
  error: string | null;
  evaluation: { user: Criteria; ours: Criteria | null; user_runs: number; user_outside: { row: number; constraints: string[] }[] } | null;
}

const base = '/api/optimal';
const enc = encodeURIComponent;
export const doeKeys = {
  all: ['optimal-design'] as const,
  list: (p: Record<string, unknown>) => ['optimal-design', 'list', p] as const,
  project: (id: string) => ['optimal-design', 'project', id] as const,
  evaluation: (id: string) => ['optimal-design', 'eval', id] as const,
};

export function useProjects(params: { query: string; page: number; page_size: number }) {
  return useQuery({
    queryKey: doeKeys.list(params),
    queryFn: ({ signal }) => apiGet<{ items: ProjectSummary[]; total: number }>(`${base}/projects`, params, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useAllProjects() {
  return useQuery({ queryKey: ['optimal-design', 'all'], queryFn: ({ signal }) => apiGet<{ items: ProjectSummary[] }>(`${base}/projects/list`, undefined, { signal }) });
}

export function useProject(id: string) {
  return useQuery({
    queryKey: doeKeys.project(id),
    queryFn: ({ signal }) => apiGet<Project>(`${base}/project/${enc(id)}`, undefined, { signal }),
    refetchInterval: (q) => (q.state.data?.state === 'running' ? 1000 : false),
  });
}

export function useEvaluation(id: string, enabled: boolean) {
  return useQuery({
    queryKey: doeKeys.evaluation(id),
    queryFn: ({ signal }) => apiGet<Evaluation>(`${base}/eval/result/${enc(id)}`, undefined, { signal, silent: true }),
    enabled,
    refetchInterval: (q) => (q.state.data?.state === 'running' ? 1000 : false),
  });
}

function form(settings: unknown, files: Record<string, File | null | undefined>): FormData {
  const f = new FormData();
  f.append('settings', JSON.stringify(settings));
  for (const [k, v] of Object.entries(files)) if (v) f.append(k, v, v.name);
  return f;
}

export const registerProject = (s: RegisterSettings, files: { exclude_file?: File | null; runs_file?: File | null }) =>
  uploadMultipart<Project>(`${base}/register`, form(s, files));
export const nextRound = (id: string, s: RoundSettings, file: File | null) => uploadMultipart<Project>(`${base}/round/${enc(id)}`, form(s, { file }));
export const evaluateDesign = (id: string, file: File) => uploadMultipart<Evaluation>(`${base}/evaluate/${enc(id)}`, form({}, { file }));
export const deleteProject = (id: string) => apiDelete<{ id: string }>(`${base}/project/delete/${enc(id)}`);

export async function downloadExperimentSheet(id: string, round: number) {
  const { blob, fileName } = await apiBlob(`${base}/experiment/download`, 'experiment.csv', { method: 'POST', json: { project_id: id, round } });
  saveBlob(blob, fileName);
}
export async function downloadDesign(id: string) {
  const { blob, fileName } = await apiBlob(`${base}/result/download/${enc(id)}`, 'optimal_design.csv');
  saveBlob(blob, fileName);
}
