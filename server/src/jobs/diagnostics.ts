import { z } from 'zod';
import { jobKind, jobLang, jobSpec } from './kind.js';

/** tasks/diagnostics.py: a test-only task (sleeps, blocks, prints, answers NaN) for the job machinery's own tests. */
export const diagnosticsJob = jobKind('diagnostics', {
  spec: jobSpec({ lang: jobLang }),
  result: z
    .object({ slept: z.number().optional(), blocked: z.boolean().optional(), printed: z.boolean().optional(), nan: z.number().nullable().optional(), inf: z.number().nullable().optional() })
    .describe('Test-only task')
    .meta({ id: 'DiagnosticsJobResult' }),
});
