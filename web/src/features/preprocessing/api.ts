import { cancelJob } from '../../api/jobs';
import { useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import { uploadTo } from '../../api/upload';
import { stepBody } from './stepBody';
import { saveBlob } from '../../lib/browser';

const enc = encodeURIComponent;

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/preprocessing/responses.ts).
export type Step = Schemas['PreprocessStepSettings'];
/** Every parameter of every kind of step (the server's PreprocessStepParams). */
export type StepParams = Schemas['PreprocessStepParams'];
/**
 * A step while it is edited: the form may hold any parameter; normalizeStep (catalogue.ts) makes it a Step of its
 * kind with only what its method reads, as the server requires.
 */
export interface StepDraft {
  process_type: Step['process_type'];
  method: string;
  columns: string[];
  params: StepParams;
}
export type Condition = Schemas['Condition'];
export type Preview = Schemas['PreprocessPreview'];
export type RunResult = Schemas['PreprocessRun'];
export type HistoryEntry = NonNullable<RunResult['result']>['history'][number];

export const keys = {
  conditions: ['preprocessing', 'conditions'] as const,
  load: (id: string) => ['preprocessing', 'load', id] as const,
  run: (id: string) => ['preprocessing', 'run', id] as const,
};

export function useLoadedDataset(id: string) {
  return useQuery({ queryKey: keys.load(id), queryFn: ({ signal }) => answer(http.POST('/api/load/dataset/{id}', { params: { path: { id } }, ...per({ signal }) })) });
}

export function useConditions() {
  return useQuery({ queryKey: keys.conditions, queryFn: ({ signal }) => answer(http.GET('/api/preprocess/conditions', per({ signal }))) });
}

// The steps are sent as the request declares them (stepBody: each kind with its own methods).
export const previewStep = (id: string, steps: Step[], index: number) =>
  answer(http.POST('/api/manual/process/dataset/{id}', { params: { path: { id } }, body: { steps: steps.map(stepBody), index }, ...per({ silent: true }) }));

export const saveCondition = (body: { name: string; steps: Step[]; datetime_column?: string | null; source_dataset_id?: string | null; confirm_overwrite?: boolean }) =>
  answer(http.POST('/api/preprocess/conditions', { body: { ...body, steps: body.steps.map(stepBody) }, ...per({ silent: true }) }));

export const runCondition = (id: string, body: { steps: Step[]; condition_name?: string; confirm_overwrite?: boolean }) =>
  answer(http.POST('/api/preprocess/dataset/{id}', { params: { path: { id } }, body: { ...body, steps: body.steps.map(stepBody) }, ...per({ silent: true }) }));

export function useRun(tempId: string | null) {
  return useQuery({
    queryKey: keys.run(tempId ?? ''),
    queryFn: ({ signal }) => answer(http.GET('/api/preprocess/result/{id}', { params: { path: { id: tempId! } }, ...per({ signal }) })),
    enabled: !!tempId,
    meta: { background: true },
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'queued' || q.state.data.state === 'running') ? 1000 : false),
  });
}

export const registerDataset = (tempId: string, body: { name: string; comment: string }) =>
  answer(http.POST('/api/new_dataset/register/{temp_id}', { params: { path: { temp_id: tempId } }, body }));

/** Stops a running condition (the run's temp_id is its job id). */
export const cancelRun = (tempId: string) => cancelJob(tempId);

export const deleteCondition = (id: string) => answer(http.DELETE('/api/preprocess/conditions/{id}', { params: { path: { id } } }));

export async function downloadCondition(id: string): Promise<void> {
  const { blob } = await apiBlob(`/api/preprocess/conditions/${enc(id)}/download`, 'condition_setting_file.csv');
  saveBlob(blob, 'condition_setting_file.csv');
}

export function uploadConditionFile(file: File) {
  const form = new FormData();
  form.append('file', file);
  return uploadTo('/api/preprocess/conditions/upload', {}, form);
}
