import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { FittedCondition, PreviewView, RunResult } from './responses.js';

const n = z.number().nullable();

/** The rows a preprocessing run writes, with where the new file is (tasks/preprocess.py). */
const PreprocessJobResult = RunResult.shape.result
  .unwrap()
  .extend({
    output_dir: z.string(),
    parquet: z.string(),
    changed_columns: z.array(z.string()).nullable().describe('Only these columns were written anew (the others are the source’s), or null: the whole table'),
    column_figures: z
      .record(z.string(), z.object({ count: z.number().int(), unique: z.number().int(), min: n, max: n, mean: n, std: n }))
      .optional()
      .describe('changed column → its figures'),
    condition: FittedCondition,
  })
  .meta({ id: 'PreprocessJobResult' });

/** tasks/preprocess.py: a condition's steps over the whole dataset, into a new Parquet file. */
export const preprocessJob = jobKind('preprocess', {
  spec: jobSpec({ parquet: z.string(), steps: z.array(z.unknown()).optional(), datetime_column: z.string().nullable().optional(), name: z.string(), lang: jobLang }),
  result: PreprocessJobResult,
});

/** tasks/preprocess_preview.py: what one step changes, on (a sample of) the data. */
export const preprocessPreviewJob = jobKind('preprocess_preview', {
  spec: jobSpec({ parquet: z.string(), steps: z.array(z.unknown()), index: z.number().int(), sample_rows: z.number().int() }),
  result: PreviewView,
});
