import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';

const n = z.number().nullable();

/** tasks/predict.py: a trained model over a dataset, into a result file. */
export const predictJob = jobKind('predict', {
  spec: jobSpec({ model: z.string(), parquet: z.string(), condition_path: z.string().nullable().optional(), threshold: n.optional(), lang: jobLang }),
  result: z
    .object({
      rows: z.number().int(),
      columns: z.array(z.string()),
      outputs: z.array(z.string()),
      condition_applied: z.string().nullable(),
      chunks: z.number().int().optional().describe('Row chunks the file was predicted in (a streamed table)'),
      counts: z.record(z.string(), z.number().int()).optional().describe('Classification, clustering: rows per class or cluster'),
      stats: z.object({ mean: n, min: n, max: n, missing: z.number().int() }).optional().describe('Regression, soft sensor'),
      anomaly: z
        .object({ threshold: n, alarm_rows: z.number().int(), alarms: z.number().int(), first_alarm_row: z.number().int().nullable(), scored_rows: z.number().int() })
        .optional()
        .describe('Time-series anomaly detection'),
    })
    .meta({ id: 'PredictJobResult' }),
});
