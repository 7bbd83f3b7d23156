import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import { answer, http, per } from '../../api/typed';
import { isOneOf } from '../../api/types';
import type { components } from '../../api/schema';
import type { ProjectArea } from '../../components/useProjectActions';
import { saveBlob } from '../../lib/browser';

/** The project states a list can be narrowed to (an empty choice lists all). */
const STATES = ['running', 'ready', 'done', 'failed'] as const;

/** Shapes of SPEC §7 'Optimization' (server/src/features/optimization/schemas.ts is the source of truth). */
export const ALGORITHMS = ['tpe', 'cmaes', 'nsga2', 'gp', 'random', 'grid'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];
export const GOALS = ['maximize', 'minimize', 'target', 'range'] as const;
export type Goal = (typeof GOALS)[number];
export type FeatureKind = 'range' | 'discrete' | 'fixed';
export const DEFAULT_TRIALS = 10; // SPEC §9

export interface ModelRef {
  project_id: string;
  model_key: string;
}

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/optimization/schemas.ts).
export type Project = Schemas['OptimizationProject'];
export type TargetSetting = Project['targets'][number];
export type FeatureSetting = Project['features'][number];
export type ConstraintSetting = Project['constraints'][number];
export type Run = Schemas['OptimizationRun'];
export type FeatureInfo = Schemas['OptimizationFeatureInfo'];
export type Candidate = Schemas['OptimizationCandidate'];
export type BestCondition = Schemas['OptimizationBest'];
export type Profile = Schemas['OptimizationProfile'];
export type Result = Schemas['OptimizationResult'];
export type ConditionPrediction = Schemas['OptimizationConditionPrediction'];

/** The wizard's settings (the request body of register, without name and comment). */
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
export const detailsPath = (id: string) => `/optimization/regress/details/${enc(id)}`;
export const resultPath = (id: string, algorithm: string) => `/optimization/regress/result/${enc(id)}/${enc(algorithm)}`;
export const visualizationPath = (id: string, algorithm: string) => `/optimization/regress/visualization/${enc(id)}/${enc(algorithm)}`;

const active = (p?: Project) => p?.state === 'running';

export function useProjects(params: { query: string; state: string; page: number; page_size: number }) {
  return useQuery({
    queryKey: optKeys.list(params),
    queryFn: ({ signal }) =>
      answer(http.GET('/api/optimization/projects/list', { params: { query: { ...params, state: isOneOf(STATES, params.state) ? params.state : undefined } }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
    meta: { background: true },
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useProject(id: string | undefined) {
  return useQuery({
    queryKey: optKeys.project(id ?? ''),
    queryFn: ({ signal }) => answer(http.GET('/api/optimization/project/{id}', { params: { path: { id: id! } }, ...per({ signal }) })),
    enabled: !!id,
    meta: { background: true },
    refetchInterval: (q) => (active(q.state.data) ? 1000 : false),
  });
}

export function useResult(id: string | undefined, algorithm: string | undefined, finishedAt: string | null | undefined) {
  return useQuery({
    queryKey: [...optKeys.result(id ?? '', algorithm ?? ''), finishedAt],
    queryFn: ({ signal }) => answer(http.GET('/api/optimization/result/{id}', { params: { path: { id: id! }, query: { algorithm: algorithm! } }, ...per({ signal }) })),
    enabled: !!id && !!algorithm && !!finishedAt,
  });
}

export function useFeaturesStep(refs: ModelRef[]) {
  return useQuery({
    queryKey: optKeys.features(refs),
    queryFn: ({ signal }) => answer(http.POST('/api/optimization/preprocess/{project_id}', { params: { path: { project_id: refs[0].project_id } }, body: { models: refs }, ...per({ signal }) })),
    enabled: refs.length > 0,
  });
}

export const registerProject = (datasetId: string, body: Settings & { name: string; comment: string }) =>
  answer(http.POST('/api/optimization/register/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body }));
export const evaluateProject = (id: string, algorithms?: Algorithm[]) =>
  answer(http.POST('/api/optimization/evaluate/{optimizer_id}', { params: { path: { optimizer_id: id } }, body: algorithms ? { algorithms } : {} }));
export const deleteProject = (id: string) => answer(http.DELETE('/api/optimization/project/delete/{id}', { params: { path: { id } } }));
export const renameProject = (id: string, name: string) => answer(http.PUT('/api/optimization/project/{id}', { params: { path: { id } }, body: { name } }));
/** Rename and Delete on an optimisation project's page (ProjectFrame). */
export const optimizationProjects: ProjectArea<unknown> = { key: optKeys.project, rename: renameProject, remove: deleteProject, lists: ['optimization', 'list'], listPath };

export async function predictConditions(projectId: string, conditions: Record<string, number | string>[]): Promise<ConditionPrediction[]> {
  const task = await answer(http.POST('/api/optimization/prediction/{project_id}', { params: { path: { project_id: projectId } }, body: { conditions } }));
  // a small job: poll until it finishes (limits generous, the machine may be busy)
  for (let i = 0; i < 600; i++) {
    const r = await answer(http.POST('/api/optimization/prediction/result/{task_id}', { params: { path: { task_id: task.id } } }));
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
