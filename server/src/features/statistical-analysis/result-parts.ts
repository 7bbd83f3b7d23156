import type { z } from 'zod';
import type { BoxData, GroupStats, ReferenceCurve, TestResult } from './responses.js';

/**
 * What each test type's result lists and draws, found by its test_type: one rule for the server's report and CSV and
 * the web app's result page (which imports this file; pure, with type-only imports).
 */

/** The groups' descriptives, then the differences' where a paired test has them (paired t; Wilcoxon on pairs). */
export function descriptiveRows(r: z.infer<typeof TestResult>): z.infer<typeof GroupStats>[] {
  switch (r.test_type) {
    case 'paired_t':
      return [...r.groups, r.differences];
    case 'wilcoxon':
      return r.differences ? [...r.groups, r.differences] : r.groups;
    default:
      return r.groups;
  }
}

/** The groups' box plots and the hypothetical value's line (one-sample tests): all but chi-square and the correlations. */
export function boxesOf(r: z.infer<typeof TestResult>): { boxes: z.infer<typeof BoxData>[]; referenceLine?: number } | null {
  switch (r.test_type) {
    case 'chi_square':
    case 'pearson':
    case 'spearman':
      return null;
    case 'one_sample_t':
    case 'wilcoxon':
      return { boxes: r.charts.box, referenceLine: r.charts.reference_line };
    default:
      return { boxes: r.charts.box };
  }
}

/** The statistic's reference distribution: every test but Shapiro-Wilk (which draws a Q-Q plot). */
export function referenceOf(r: z.infer<typeof TestResult>): z.infer<typeof ReferenceCurve> | null {
  return r.test_type === 'shapiro' ? null : r.charts.reference;
}
