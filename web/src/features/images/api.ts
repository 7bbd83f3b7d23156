import { useQuery } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiBlob, apiGet, apiPost, apiPut } from '../../api/client';
import { uploadMultipart } from '../../api/upload';
import { saveBlob } from '../../lib/browser';
import { rates } from '@mitate/rules';

const enc = encodeURIComponent;
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
export type Epoch = Schemas['ImageEpoch'];
export type Metrics = Schemas['ImageMetrics'];
export type ImageModel = Schemas['ImageModel'];
export type ImageProject = Schemas['ImageProject'];
export type GalleryItem = Schemas['ImageGalleryItem'];
export type HeldScore = Schemas['ImageHeldScore'];
export type ImageReport = Schemas['ImageReport'];
export type Detail = Schemas['ImageModelDetail'];
export type ImageDataset = Schemas['ImageDataset'];

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
    queryFn: ({ signal }) => apiGet<ImageProject>(`/api/image/train/result/${enc(id!)}`, undefined, { signal }),
    enabled: !!id,
    refetchInterval: (q) => (q.state.data?.training_state === 'training' ? 1000 : false),
  });
}
export function useDetail(id: string | undefined, key: string | undefined) {
  const { i18n } = useTranslation(); // the threshold's rule comes in the reader's language
  return useQuery({
    queryKey: [...imageKeys.detail(id ?? '', key ?? ''), i18n.language],
    queryFn: ({ signal }) => apiGet<Detail>(`/api/detail/${enc(id!)}/${enc(key!)}`, undefined, { signal }),
    enabled: !!id && !!key,
  });
}
export function useImageDataset(id: string | undefined) {
  return useQuery({ queryKey: imageKeys.dataset(id ?? ''), queryFn: ({ signal }) => apiGet<ImageDataset>(`/api/image/dataset/${enc(id!)}`, undefined, { signal }), enabled: !!id });
}
export function useGallery(id: string, page: number, pageSize: number, split: string, label: string) {
  return useQuery({
    queryKey: imageKeys.gallery(id, page, split, label),
    queryFn: ({ signal }) =>
      apiGet<Schemas['ImageDatasetPage']>(
        `/api/image/dataset/${enc(id)}/gallery`,
        { page, page_size: pageSize, split: split || undefined, label: label || undefined },
        { signal },
      ),
  });
}

export const registerImageProject = (datasetId: string, body: { project_type: ImageType; name: string; models: { algorithm: string }[]; settings: Settings }) =>
  apiPost<ImageProject>(`/api/project/register/${enc(datasetId)}`, body);
export const renameImageProject = (id: string, name: string) => apiPut<ImageProject>(`/api/image/project/${enc(id)}`, { name });
export const trainImageProject = (id: string) => apiPost<ImageProject>(`/api/train/${enc(id)}`, {});
export const stopTraining = (id: string) => apiGet<ImageProject>(`/api/stop/image/train/${enc(id)}`);
export const saveThreshold = (id: string, key: string, body: { threshold?: number; target_miss_rate?: number; ok_percentile?: number }) =>
  apiPost<Detail>(`/api/update/threshold/${enc(id)}/${enc(key)}`, body);
export async function download(path: string, name: string) {
  const { blob, fileName } = await apiBlob(path, name);
  saveBlob(blob, fileName);
}
export const predictImages = (id: string, key: string, files: File[]) => {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  return uploadMultipart<Schemas['ImagePredictionStarted']>(`/api/prediction/result/${enc(id)}/${enc(key)}`, form);
};

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
export type PreprocessRun = Schemas['ImagePreprocessRun'];
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
export const previewImagePreprocess = (datasetId: string, operations: ImageOperations, ids: string[], signal?: AbortSignal) =>
  apiPost<PreprocessPreview>(`/api/image/preprocess/${enc(datasetId)}`, { operations, preview: true, ids }, { signal, silent: true });
export const startImagePreprocess = (datasetId: string, operations: ImageOperations) =>
  apiPost<Schemas['ImagePreprocessStarted']>(`/api/image/preprocess/${enc(datasetId)}`, { operations, preview: false });
export const imagePreprocessResult = (tempId: string, signal?: AbortSignal) => apiGet<PreprocessRun>(`/api/image/preprocess/result/${enc(tempId)}`, undefined, { signal });
export const registerPreprocessed = (tempId: string, name: string, comment: string) =>
  apiPost<ImageDataset>(`/api/image/new_dataset/register/${enc(tempId)}`, { name, comment });

/** Histogram bin centres with as many decimals as the bin width needs, so neighbouring bins never read alike (scores
 * 0.485353 to 0.485355 were all labelled '0.485' with three significant digits). */
export function binLabels(lo: number, width: number, bins: number): string[] {
  const decimals = Math.min(10, Math.max(0, 1 - Math.floor(Math.log10(width))));
  return Array.from({ length: bins }, (_, i) => (lo + (i + 0.5) * width).toFixed(decimals));
}
