import { z } from 'zod';
import { checked, jobKind, jobLang, jobSpec } from '../../jobs/kind.js';
import { designEvaluation, designResult } from './schemas.js';

/** tasks/optimal_design.py: a design round, or (mode evaluate) a comparison of the user's design with ours. */
export const optimalDesignJob = jobKind('optimal_design', {
  spec: jobSpec({ mode: z.string().optional(), variables: z.array(z.unknown()), lang: jobLang }),
  result: z.union([designResult, designEvaluation]),
});

/** A design round's stored result (mode design): as its job answered it, checked again on reading. */
export const storedDesign = (json: string) => checked(optimalDesignJob.kind, designResult, JSON.parse(json));
/** A stored evaluation (mode evaluate). */
export const storedEvaluation = (json: string) => checked(optimalDesignJob.kind, designEvaluation, JSON.parse(json));
