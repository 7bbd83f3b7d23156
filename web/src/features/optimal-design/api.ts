import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import { uploadTo } from '../../api/upload';
import type { ProjectArea } from '../../components/useProjectActions';
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

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/optimal-design/schemas.ts).
export type Project = Schemas['DesignProject'];
export type ProjectSummary = Schemas['DesignProjectSummary'];
export type Round = Schemas['DesignRound'];
export type DesignResult = Schemas['DesignResult'];
export type Criteria = Schemas['DesignCriteria'];
export type Row = DesignResult['runs'][number];

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
    queryFn: ({ signal }) => answer(http.GET('/api/optimal/projects', { params: { query: params }, ...per({ signal }) })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.state === 'running') ? 2000 : false),
  });
}

export function useAllProjects() {
  return useQuery({ queryKey: ['optimal-design', 'all'], queryFn: ({ signal }) => answer(http.GET('/api/optimal/projects/list', per({ signal }))) });
}

export function useProject(id: string) {
  return useQuery({
    queryKey: doeKeys.project(id),
    queryFn: ({ signal }) => answer(http.GET('/api/optimal/project/{id}', { params: { path: { id } }, ...per({ signal }) })),
    refetchInterval: (q) => (q.state.data?.state === 'running' ? 1000 : false),
  });
}

export function useEvaluation(id: string, enabled: boolean) {
  return useQuery({
    queryKey: doeKeys.evaluation(id),
    queryFn: ({ signal }) => answer(http.GET('/api/optimal/eval/result/{id}', { params: { path: { id } }, ...per({ signal, silent: true }) })),
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
  uploadTo('/api/optimal/register', {}, form(s, files));
export const nextRound = (id: string, s: RoundSettings, file: File | null) => uploadTo('/api/optimal/round/{id}', { id }, form(s, { file }));
export const evaluateDesign = (id: string, file: File) => uploadTo('/api/optimal/evaluate/{id}', { id }, form({}, { file }));
export const deleteProject = (id: string) => answer(http.DELETE('/api/optimal/project/delete/{id}', { params: { path: { id } } }));
export const renameProject = (id: string, name: string) => answer(http.PUT('/api/optimal/project/{id}', { params: { path: { id } }, body: { name } }));
/** Rename and Delete on a design project's page (ProjectFrame). */
export const designProjects: ProjectArea<unknown> = { key: doeKeys.project, rename: renameProject, remove: deleteProject, lists: ['optimal-design', 'list'], listPath: '/optimal-design' };

export async function downloadExperimentSheet(id: string, round: number) {
  const { blob, fileName } = await apiBlob(`${base}/experiment/download`, 'experiment.csv', { method: 'POST', json: { project_id: id, round } });
  saveBlob(blob, fileName);
}
export async function downloadDesign(id: string) {
  const { blob, fileName } = await apiBlob(`${base}/result/download/${enc(id)}`, 'optimal_design.csv');
  saveBlob(blob, fileName);
}
