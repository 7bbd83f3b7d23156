import type { AppContext } from '../../context.js';
import type { DatasetService } from '../datasets/service.js';
import type { RunService } from '../training/runs.js';
import { makeImageBase, type ImageDeps } from './base.js';
import { gallery, imageFile, registerZip, summary } from './image-datasets.js';
import { list, register, remove, rename, stop, train } from './projects.js';
import { detail, updateThreshold } from './threshold.js';
import { installJobHandlers } from './events.js';
import { modelFile, report, trainProgress } from './model-files.js';

// what other modules import from here (moved beside it, issue 32)
export { IMAGE_DIR } from './base.js';

export function makeImageService(ctx: AppContext, { datasets, runs }: { datasets: DatasetService; runs: RunService }) {
  const deps = makeImageBase(ctx, { datasets, runs });
  const on = <A extends unknown[], R>(f: (d: ImageDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);
  const { datasetDir, readManifest, manifestOf, ingestZip, getImageDataset, getProject, getModel, runDir, view } = deps;

  return {
    datasetDir,
    readManifest,
    manifestOf,
    /** A ZIP of images to predict unpacked (kind inference); a refusal is said on `field`. */
    ingestZip,
    getImageDataset,
    getProject,
    getModel,
    runDir,
    view,
    list: on(list),
    registerZip: on(registerZip),
    summary: on(summary),
    gallery: on(gallery),
    imageFile: on(imageFile),
    register: on(register),
    train: on(train),
    rename: on(rename),
    remove: on(remove),
    stop: on(stop),
    detail: on(detail),
    modelFile: on(modelFile),
    report: on(report),
    trainProgress: on(trainProgress),
    updateThreshold: on(updateThreshold),
    /** Installed once at start-up (services.ts): model rows and epoch curves follow the image training job. */
    installJobHandlers: () => installJobHandlers(deps),
  };
}
export type ImageService = ReturnType<typeof makeImageService>;
