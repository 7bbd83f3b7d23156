import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob, apiDelete, apiGet, apiPost } from '../../api/client';
import { saveBlob } from '../../lib/browser';

/** Shapes of SPEC §7 'Optimization' (server/src/features/optimization/schemas.ts is the source of truth). */
export const ALGORITHMS = ['tpe', 'cmaes', 'nsga2', 'gp', 'random', 'grid'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];
export const GOALS = ['maximize', 'minimize', 'target', 'range'] as const;
export type Goal = (typeof GOALS)[number];
export type FeatureKind = 'range' | 'discrete' | 'fixed';
export type State = 'ready' | 'running' | 'done' | 'failed';
export const DEFAULT_TRIALS = 10; // SPEC §9

export interface ModelRef {
  project_id: string;
  model_key: string;
}
export interface TargetSetting {
  name: string;
  goal: Goal;
  value?: number | null;
  lower?: number | null;
  upper?: number | null;
  weight: number;
}
export interface FeatureSetting {
  name: string;
  kind: FeatureKind;
  lower?: number | null;
  upper?: number | null;
  values?: (number | string)[];
  value?: number | string | null;
  unit: string;
  weight: number;
}
export interface ConstraintSetting {
  name: string;
  type: 'sum' | 'linear';
  features?: string[];
  coefficients?: Record<string, number>;
  operator: '<=' | '>=' | '=';
  value: number;
}
export interface Settings {
  models: ModelRef[];
  targets: TargetSetting[];
  features: FeatureSetting[];
  constraints: ConstraintSetting[];
  algorithms: Algorithm[];
  n_trials: number;
  seed: number;
  forbid_extrapolation: boolean;
}
export interface FeatureInfo {
  name: string;
  kind: 'numeric' | 'category';
  min: number | null;
  max: number | null;
  mean: number | null;
  levels: string[];
}
export interface FeaturesStep {
  dataset_id: string;
  dataset_name: string;
  targets: { name: string; min: number | null; max: number | null; model_key: string; project_id: string }[];
  features: FeatureInfo[];
}
export interface Candidate {
  features: Record<string, number | string>;
  predictions: Record<string, number>;
  evaluation?: number;
  objective?: number;
}
export interface BestCondition extends Candidate {
  rank: number;
  uncertainty: Record<string, number | null>;
  desirability: Record<string, number> | null;
  extrapolation: string[];
  constraints: Record<string, number>;
}
export interface Run {
  id: string;
  algorithm: Algorithm;
  job_id: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
  message: string;
  error: string | null;
  best: BestCondition | null;
  evaluations: number | null;
  seconds: number | null;
  created_at: string;
  finished_at: string | null;
}
export interface Project {
  id: string;
  project_id: string;
  name: string;
  comment: string;
  dataset_id: string;
  dataset_name: string;
  state: State;
  models: { project_id: string; model_key: string; project_name: string; algorithm: string; target: string }[];
  targets: TargetSetting[];
  features: FeatureSetting[];
  constraints: ConstraintSetting[];
  algorithms: Algorithm[];
  n_trials: number;
  seed: number;
  forbid_extrapolation: boolean;
  runs: Run[];
  created_at: string;
  updated_at: string;
}
export interface Profile {
  x: (number | string)[];
  feasible: boolean[];
  targets: Record<string, number[]>;
}
export interface Result {
  algorithm: Algorithm;
  n_trials: number;
  evaluations: number;
  seed: number;
  seconds: number;
  evaluations_per_second: number | null;
  max_violation: number;
  extrapolated_share: number;
  objective: 'prediction' | 'desirability';
  targets: (TargetSetting & { training_min: number; training_max: number })[];
  features: { name: string; kind: string; lower: number | null; upper: number | null; values: (number | string)[] | null; unit: string | null; training_min: number | null; training_max: number | null }[];
  constraints: { name: string; coefficients: Record<string, number>; operator: string; value: number }[];
  best: BestCondition[];
  convergence: { evaluation: number; best: number; value: number }[];
  pareto: Candidate[];
  trials: Candidate[];
  profiles: Record<string, Profile>;
  sensitivity: Record<string, Record<string, number>>;
}
export interface ConditionPrediction {
  features: Record<string, number | string>;
  predictions: Record<string, number>;
  uncertainty: Record<string, number | null>;
  extrapolation: string[];
  feasible: boolean;
  constraints: Record<string, number>;
}

const enc = encodeURIComponent;
export const optKeys = {
  all: ['optimization'] as const,
  list: (p: Record<string, unknown>) => ['optimization', 'list', p] as const,
  project: (id: string) => ['optimization', 'project', id] as const,
  result: (id: string, algorithm: string) => ['optimization', 'result', id, algorithm] as const,
  features: (refs: ModelRef[]) => ['optimization', 'features', refs] as const,
};

export const listPath = '/optimization';
export const registerPath = '/optimization/regress/register';
export const fromModelPath = (projectId: string, modelKey: string) => `/training/optimization/register/${enc(projectId)}/${enc(modelKey)}`;
export const detailsPath = (id: string) => `/optimization/regress/details/${enc(id)}`;
export const resultPath = (id: string, algorithm: string) => `/optimization/regress/result/${enc(id)}/${enc(algorithm)}`;
export const visualizationPath = (id: string, algorithm: string) => `/optimization/regress/visualization/${enc(id)}/${enc(algorithm)}`;

const active = (p?: Project) => p?.state === 'running';

export function useProjects(params: { query: string; state: string; page: number; page_size: number }) {
  return useQuery({
    queryKey: optKeys.list(params),
    queryFn: ({ signal }) =>
      apiGet<{ items: Project[]; total: number; counts: Record<string, number> }>('/api/optimization/projects/list', { ...params, state: params.state || undefined }, { signal }),
    placeholderData: keepPreviousData,
    meta: { background: true },
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useProject(id: string | undefined) {
  return useQuery({
    queryKey: optKeys.project(id ?? ''),
    queryFn: ({ signal }) => apiGet<Project>(`/api/optimization/project/${enc(id!)}`, undefined, { signal }),
    enabled: !!id,
    meta: { background: true },
    refetchInterval: (q) => (active(q.state.data) ? 1000 : false),
  });
}

export function useResult(id: string | undefined, algorithm: string | undefined, finishedAt: string | null | undefined) {
  return useQuery({
    queryKey: [...optKeys.result(id ?? '', algorithm ?? ''), finishedAt],
    queryFn: ({ signal }) => apiGet<{ run: Run; project_id: string; result: Result }>(`/api/optimization/result/${enc(id!)}`, { algorithm: algorithm! }, { signal }),
    enabled: !!id && !!algorithm && !!finishedAt,
  });
}

export function useFeaturesStep(refs: ModelRef[]) {
  return useQuery({
    queryKey: optKeys.features(refs),
    queryFn: ({ signal }) => apiPost<FeaturesStep>(`/api/optimization/preprocess/${enc(refs[0].project_id)}`, { models: refs }, { signal }),
    enabled: refs.length > 0,
  });
}

export const registerProject = (datasetId: string, body: Settings & { name: string; comment: string }) => apiPost<Project>(`/api/optimization/register/${enc(datasetId)}`, body);
export const evaluateProject = (id: string, algorithms?: Algorithm[]) => apiPost<Project>(`/api/optimization/evaluate/${enc(id)}`, algorithms ? { algorithms } : {});
export const deleteProject = (id: string) => apiDelete<{ id: string }>(`/api/optimization/project/delete/${enc(id)}`);

export async function predictConditions(projectId: string, conditions: Record<string, number | string>[]): Promise<ConditionPrediction[]> {
  const task = await apiPost<{ id: string }>(`/api/optimization/prediction/${enc(projectId)}`, { conditions });
  // a small job: poll until it finishes (limits generous, the machine may be busy)
  for (let i = 0; i < 600; i++) {
    const r = await apiPost<{ state: string; error: string | null; result: { predictions: ConditionPrediction[] } | null }>(`/api/optimization/prediction/result/${enc(task.id)}`, {});
    if (r.state === 'done' && r.result) return r.result.predictions;
    if (r.state === 'failed') throw new Error(r.error ?? 'failed');
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error('timeout');
}

export async function downloadConditions(datasetId: string, runId: string) {
  const { blob, fileName } = await apiBlob(`/api/opt/feature/download/${enc(datasetId)}`, 'conditions.csv', { method: 'POST', json: { run_id: runId } });
  saveBlob(blob, fileName);
}
