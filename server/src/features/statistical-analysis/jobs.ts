import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { TestResult } from './responses.js';

/** tasks/statistical_analysis.py: one test over a dataset's columns. */
export const statisticalAnalysisJob = jobKind('statistical_analysis', {
  spec: jobSpec({ parquet: z.string(), test_type: z.string(), lang: jobLang }),
  result: TestResult,
});
