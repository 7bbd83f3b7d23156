/**
 * What each statistical test's result lists and draws, found by its test_type: one rule for the server's report and
 * CSV and the web app's result page. The result's whole shape is declared by the server
 * (server/src/features/statistical-analysis/responses.ts); these rules read only the parts below, whatever the types
 * of a group's descriptives (G), a box (B) and the reference curve (R) are.
 */
export interface TestResultParts<G, B, R> {
  test_type: string;
  groups: G[];
  /** paired t (always) and Wilcoxon on pairs */
  differences?: G;
  /** chi-square and the correlations draw no boxes; Shapiro-Wilk has no reference curve */
  charts: { box?: B[]; reference?: R; reference_line?: number };
}

/** The groups' descriptives, then the differences' where a paired test has them (paired t; Wilcoxon on pairs). */
export function descriptiveRows<G, B, R>(r: TestResultParts<G, B, R>): G[] {
  switch (r.test_type) {
    case 'paired_t':
    case 'wilcoxon':
      return r.differences ? [...r.groups, r.differences] : r.groups;
    default:
      return r.groups;
  }
}

/** The groups' box plots and the hypothetical value's line (one-sample tests): all but chi-square and the correlations. */
export function boxesOf<G, B, R>(r: TestResultParts<G, B, R>): { boxes: B[]; referenceLine?: number } | null {
  switch (r.test_type) {
    case 'chi_square':
    case 'pearson':
    case 'spearman':
      return null;
    case 'one_sample_t':
    case 'wilcoxon':
      return { boxes: r.charts.box ?? [], referenceLine: r.charts.reference_line };
    default:
      return { boxes: r.charts.box ?? [] };
  }
}

/** The statistic's reference distribution: every test but Shapiro-Wilk (which draws a Q-Q plot). */
export function referenceOf<G, B, R>(r: TestResultParts<G, B, R>): R | null {
  return r.test_type === 'shapiro' ? null : (r.charts.reference ?? null);
}
