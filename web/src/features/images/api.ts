import { useQuery } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiBlob } from '../../api/client';
import { answer, http, per } from '../../api/typed';
import { isOneOf, type QueryOf } from '../../api/types';
import { isImagePrediction } from '../prediction/api';
import { uploadTo } from '../../api/upload';
import type { ProjectArea } from '../../components/useProjectActions';
import { saveBlob } from '../../lib/browser';
import { deleteProject } from '../training/api';
import { rates } from '@mitate/rules';

export const IMAGE_TYPES = ['analysis', 'classification'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
export const isImageType = (t: string | undefined): t is ImageType => !!t && (IMAGE_TYPES as readonly string[]).includes(t);
export const ALGORITHMS: Record<ImageType, string[]> = { analysis: ['patchcore', 'finetune', 'compact_cnn'], classification: ['finetune', 'compact_cnn'] };

/** An image project's settings (SPEC §3), as the server declares them with their defaults applied. */
export type Settings = components['schemas']['ImageProject']['settings'];
export type Augmentation = Settings['augmentation'];
export const DEFAULT_SETTINGS: Settings = {
  image_size: 128,
  epochs: 10,
  batch_size: 16,
  learning_rate: 0.001,
  schedule: 'cosine',
  early_stopping: 5,
  balance: true,
  coreset_ratio: 0.05,
  patchcore_backbone: 'lite0',
  ok_percentile: 99,
  train_layers: 'top',
  augmentation: { hflip: false, vflip: false, rotate: 0, brightness: 0, contrast: 0, crop: 0 },
};

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/images/schemas.ts).
export type Metrics = Schemas['ImageMetrics'];
export type ImageModel = Schemas['ImageModel'];
export type GalleryItem = Schemas['ImageGalleryItem'];
export type HeldScore = Schemas['ImageHeldScore'];

export const imageKeys = {
  project: (id: string) => ['images', 'project', id] as const,
  detail: (id: string, key: string) => ['images', 'detail', id, key] as const,
  dataset: (id: string) => ['images', 'dataset', id] as const,
  gallery: (id: string, page: number, split: string, label: string) => ['images', 'gallery', id, page, split, label] as const,
};

/** The project, polled every second while it trains so the epoch chart moves. */
export function useImageProject(id: string | undefined) {
  return useQuery({
    queryKey: imageKeys.project(id ?? ''),
    queryFn: ({ signal }) => answer(http.GET('/api/image/train/result/{project_id}', { params: { path: { project_id: id! } }, ...per({ signal }) })),
    enabled: !!id,
    refetchInterval: (q) => (q.state.data?.training_state === 'training' ? 1000 : false),
  });
}
export function useDetail(id: string | undefined, key: string | undefined) {
  const { i18n } = useTranslation(); // the threshold's rule comes in the reader's language
  return useQuery({
    queryKey: [...imageKeys.detail(id ?? '', key ?? ''), i18n.language],
    queryFn: ({ signal }) => answer(http.GET('/api/detail/{project_id}/{model_key}', { params: { path: { project_id: id!, model_key: key! } }, ...per({ signal }) })),
    enabled: !!id && !!key,
  });
}
export function useImageDataset(id: string | undefined) {
  return useQuery({ queryKey: imageKeys.dataset(id ?? ''), queryFn: ({ signal }) => answer(http.GET('/api/image/dataset/{id}', { params: { path: { id: id! } }, ...per({ signal }) })), enabled: !!id });
}
const SPLITS = ['train', 'validation', 'test'] as const satisfies readonly NonNullable<QueryOf<'/api/image/dataset/{id}/gallery', 'get'>['split']>[];
/** `split` narrows to one of SPLITS; an empty choice (or any other) shows every split. */
export function useGallery(id: string, page: number, pageSize: number, split: string, label: string) {
  return useQuery({
    queryKey: imageKeys.gallery(id, page, split, label),
    queryFn: ({ signal }) =>
      answer(
        http.GET('/api/image/dataset/{id}/gallery', {
          params: { path: { id }, query: { page, page_size: pageSize, split: isOneOf(SPLITS, split) ? split : undefined, label: label || undefined } },
          ...per({ signal }),
        }),
      ),
  });
}

export const registerImageProject = (datasetId: string, body: { project_type: ImageType; name: string; models: { algorithm: string }[]; settings: Settings }) =>
  answer(http.POST('/api/project/register/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body }));
export const renameImageProject = (id: string, name: string) => answer(http.PUT('/api/image/project/{project_id}', { params: { path: { project_id: id } }, body: { name } }));
/** Rename and Delete on an image project's page (ProjectFrame); the project is listed among training projects. */
export const imageProjects: ProjectArea<{ project_type: string }> = {
  key: imageKeys.project,
  rename: renameImageProject,
  remove: (id, p) => deleteProject(p.project_type, id),
  lists: ['training', 'list'],
  listPath: '/training',
};
export const trainImageProject = (id: string) => answer(http.POST('/api/train/{project_id}', { params: { path: { project_id: id } }, body: {} }));
export const stopTraining = (id: string) => answer(http.GET('/api/stop/image/train/{id}', { params: { path: { id } } }));
export const saveThreshold = (id: string, key: string, body: { threshold?: number; target_miss_rate?: number; ok_percentile?: number }) =>
  answer(http.POST('/api/update/threshold/{project_id}/{model_key}', { params: { path: { project_id: id, model_key: key } }, body }));
export async function download(path: string, name: string) {
  const { blob, fileName } = await apiBlob(path, name);
  saveBlob(blob, fileName);
}
export const predictImages = (id: string, key: string, files: File[]) => {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  return uploadTo('/api/prediction/result/{project_id}/{model_key}', { project_id: id, model_key: key }, form);
};

/** Predicts an image dataset. The route takes multipart files or this JSON and its OpenAPI entry declares no body
 * (it consumes both), so the JSON goes as the call's own option; path, parameters and answer stay typed. */
export const predictDataset = (id: string, key: string, datasetId: string) =>
  answer(http.POST('/api/prediction/result/{project_id}/{model_key}', { params: { path: { project_id: id, model_key: key } }, ...per({ json: { dataset_id: datasetId } }) }));

/** An image prediction (the report page), polled while it runs; another kind of prediction is not this page's. */
export function useImagePrediction(id: string | undefined) {
  const { i18n } = useTranslation(); // the reasons of left-out images are said in the reader's language
  return useQuery({
    queryKey: ['images', 'prediction', id, i18n.language],
    queryFn: async ({ signal }) => {
      const p = await answer(http.GET('/api/inference/{id}', { params: { path: { id: id! } }, ...per({ signal }) }));
      if (!isImagePrediction(p)) throw new TypeError(`prediction ${p.id} is not an image prediction`);
      return p;
    },
    enabled: !!id,
    refetchInterval: (q) => (q.state.data && ['queued', 'running'].includes(q.state.data.state) ? 1000 : false),
  });
}

/** The organisation's image classification projects (the training list, filtered by type). */
export function useClassificationProjects() {
  return useQuery({
    queryKey: ['images', 'classification-projects'],
    queryFn: ({ signal }) => answer(http.GET('/api/image/project/list', { params: { query: { project_type: 'classification' } }, ...per({ signal }) })),
  });
}

/** An image behind the bearer: fetched as a blob and shown through an object URL. */
export function useAuthedImage(path: string | null) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!path) return;
    let revoke: string | null = null;
    let live = true;
    apiBlob(path, 'image', { silent: true })
      .then(({ blob }) => {
        if (!live) return;
        revoke = URL.createObjectURL(blob);
        setUrl(revoke);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (revoke) URL.revokeObjectURL(revoke);
    };
  }, [path]);
  return url;
}

/** Miss rate (NG passed as OK) and over-detection rate (OK flagged) of held-out scores at a threshold, for the live
 * slider: the rule the server applies too (@mitate/rules thresholds.ts), which saves and reports the same rates. */
export const ratesAt = (scores: HeldScore[], threshold: number) =>
  rates(
    scores.map((s) => s.label),
    scores.map((s) => s.score),
    threshold,
  );

// ---- pre-processing (SPEC §7 'Image') ------------------------------------------------------------------------
export type ImageOperations = Schemas['ImageOperations'];
export type PreprocessPreview = Schemas['ImagePreprocessPreview'];
export const DEFAULT_OPERATIONS: ImageOperations = {
  crop: { left: 0, top: 0, right: 0, bottom: 0 },
  rotate: 0,
  hflip: false,
  vflip: false,
  resize: null,
  grayscale: false,
  brightness: 1,
  contrast: 1,
  normalize: 'none',
};
/** The pre-processing call answers a preview (`preview: true`) or the started run; each caller reads its own. */
type PreprocessAnswer = PreprocessPreview | Schemas['ImagePreprocessStarted'];
function expect<T extends PreprocessAnswer>(a: PreprocessAnswer, is: (a: PreprocessAnswer) => a is T): T {
  if (!is(a)) throw new TypeError('unexpected answer of /api/image/preprocess');
  return a;
}
const isPreview = (a: PreprocessAnswer): a is PreprocessPreview => 'items' in a;
const isStarted = (a: PreprocessAnswer): a is Schemas['ImagePreprocessStarted'] => 'temp_id' in a;
export const previewImagePreprocess = async (datasetId: string, operations: ImageOperations, ids: string[], signal?: AbortSignal) =>
  expect(await answer(http.POST('/api/image/preprocess/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body: { operations, preview: true, ids }, ...per({ signal, silent: true }) })), isPreview);
export const startImagePreprocess = async (datasetId: string, operations: ImageOperations) =>
  expect(await answer(http.POST('/api/image/preprocess/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body: { operations, preview: false } })), isStarted);
export const imagePreprocessResult = (tempId: string, signal?: AbortSignal) => answer(http.GET('/api/image/preprocess/result/{temp_id}', { params: { path: { temp_id: tempId } }, ...per({ signal }) }));
export const registerPreprocessed = (tempId: string, name: string, comment: string) =>
  answer(http.POST('/api/image/new_dataset/register/{temp_id}', { params: { path: { temp_id: tempId } }, body: { name, comment } }));

/** Histogram bin centres with as many decimals as the bin width needs, so neighbouring bins never read alike (scores
 * 0.485353 to 0.485355 were all labelled '0.485' with three significant digits). */
export function binLabels(lo: number, width: number, bins: number): string[] {
  const decimals = Math.min(10, Math.max(0, 1 - Math.floor(Math.log10(width))));
  return Array.from({ length: bins }, (_, i) => (lo + (i + 0.5) * width).toFixed(decimals));
}
