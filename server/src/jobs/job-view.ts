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
import type { JobKind } from './kind.js';
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

export const Job = z
  .discriminatedUnion('kind', [
    of(statisticsJob),
    of(preprocessJob),
    of(preprocessPreviewJob),
    of(trainJob),
    of(tuneHelperJob),
    of(tsadTrainJob),
    of(tsadDriftSuggestJob),
    of(predictJob),
    of(statisticalAnalysisJob),
    of(optimizeJob),
    of(optimizeCheckJob),
    of(optimizePredictJob),
    of(optimalDesignJob),
    of(imageIngestJob),
    of(imagePreprocessJob),
    of(imageTrainJob),
    of(imagePredictJob),
    of(platformDriftJob),
    of(diagnosticsJob),
  ])
  .meta({ id: 'Job' });
