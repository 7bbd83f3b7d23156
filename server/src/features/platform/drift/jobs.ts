import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../../jobs/kind.js';
import { driftJobResult } from './schemas.js';

/** tasks/platform_drift.py: the sampled window (a JSON file of rows, or of an image model's scores) against the
 * model's training data, or its validation OK scores. */
export const platformDriftJob = jobKind('platform_drift', {
  spec: jobSpec({ samples: z.string(), model_dir: z.string(), lang: jobLang }),
  result: driftJobResult,
});
