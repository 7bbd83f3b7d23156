import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { StatisticsResult } from './responses.js';

/** tasks/statistics.py: a dataset's full column statistics (and its exploration sketches). */
export const statisticsJob = jobKind('statistics', {
  spec: jobSpec({ parquet: z.string(), sketch_dir: z.string().optional(), datetime_column: z.string().nullable().optional(), lang: jobLang }),
  result: StatisticsResult,
});
