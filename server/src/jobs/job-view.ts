import { z } from 'zod';
import { statisticsJob } from '../features/datasets/jobs.js';
import { imageIngestJob, imagePredictJob, imagePreprocessJob, imageTrainJob } from '../features/images/jobs.js';
import { optimalDesignJob } from '../features/optimal-design/jobs.js';
import { optimizeCheckJob, optimizeJob, optimizePredictJob } from '../features/optimization/jobs.js';
import { platformDriftJob } from '../features/platform/drift/jobs.js';
import { predictJob } from '../features/prediction/jobs.js';
import { preprocessJob, preprocessPreviewJob } from '../features/preprocessing/jobs.js';
import { statisticalAnalysisJob } from '../features/statistical-analysis/jobs.js';
import { tsadDriftSuggestJob, tsadTrainJob } from '../features/timeseries/jobs.js';
import { trainJob, tuneHelperJob } from '../features/training/jobs.js';
import { diagnosticsJob } from './diagnostics.js';
import type { AnyJobKind, JobKind } from './kind.js';
import { JobStateEnum } from './responses.js';

/**
 * A job as GET /jobs/{id} answers it, with its result as the engine task of its kind wrote it
 * (engine/mitate_engine/tasks/<kind>.py; null until the job succeeds). Each kind's spec and result are declared once,
 * with `jobKind` (jobs/kind.ts) in the `jobs.ts` of the area that owns it; a new kind is added to the list below.
 */

const base = {
  id: z.string(),
  state: JobStateEnum,
  progress: z.number(),
  message: z.string(),
  log: z.string(),
  error: z.string().nullable(),
  subject_type: z.string().nullable(),
  subject_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
};
const of = <K extends string, R extends z.ZodType>(job: JobKind<K, z.ZodType, R>) => z.object({ ...base, kind: z.literal(job.kind), result: job.result.nullable() });

/** Every declared job kind; scripts/openapi.ts writes their specs for the engine to check on entry. */
export const jobKinds = [
  statisticsJob,
  preprocessJob,
  preprocessPreviewJob,
  trainJob,
  tuneHelperJob,
  tsadTrainJob,
  tsadDriftSuggestJob,
  predictJob,
  statisticalAnalysisJob,
  optimizeJob,
  optimizeCheckJob,
  optimizePredictJob,
  optimalDesignJob,
  imageIngestJob,
  imagePreprocessJob,
  imageTrainJob,
  imagePredictJob,
  platformDriftJob,
  diagnosticsJob,
] as const;

type JobOf<J> = J extends JobKind<infer K, z.ZodType, infer R> ? ReturnType<typeof of<K, R>> : never;
type Variants<T extends readonly unknown[]> = { -readonly [I in keyof T]: JobOf<T[I]> };
// One variant per kind, typed as the tuple the union needs (map keeps the values, not the tuple's type).
const variants = jobKinds.map((k) => of(k as AnyJobKind)) as unknown as Variants<typeof jobKinds>;

export const Job = z
  .discriminatedUnion('kind', variants)
  .meta({ id: 'Job' });
