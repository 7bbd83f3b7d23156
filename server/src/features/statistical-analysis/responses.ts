import { z } from 'zod';
import { page, storedEnum } from '../../http/responses.js';
import { ALTERNATIVES, EQUAL_VARIANCE, STATES, TEST_TYPES } from './schemas.js';

/** Answers of SPEC §7 'Statistical analysis'. The test result is what the engine task writes (engine/mitate_engine/tasks). */

const n = z.number().nullable();
const Both = z.object({ en: z.string(), ja: z.string() });

/** One group's descriptives (engine stats/describe.py describe). */
export const GroupStats = z
  .object({
    label: z.string(),
    n: z.number(),
    missing: z.number(),
    mean: n,
    sd: n,
    variance: n.optional(),
    se: n,
    median: n,
    q1: n,
    q3: n,
    min: n,
    max: n,
    ci_low: n,
    ci_high: n,
    skewness: n.optional(),
    kurtosis: n.optional(),
  })
  .meta({ id: 'GroupStats' });

export const BoxData = z
  .object({ label: z.string(), q1: z.number(), median: z.number(), q3: z.number(), low: z.number(), high: z.number(), mean: z.number(), outliers: z.array(z.number()), outlier_count: z.number(), points: z.array(z.number()) })
  .meta({ id: 'BoxData' });

export const ReferenceCurve = z
  .object({
    dist: z.enum(['t', 'normal', 'f', 'chi2']),
    params: z.record(z.string(), z.number()),
    x: z.array(z.number()),
    y: z.array(z.number()),
    observed: n,
    observed_off_chart: z.boolean(),
    critical_low: n,
    critical_high: n,
    alternative: z.enum(ALTERNATIVES),
  })
  .meta({ id: 'ReferenceCurve' });

export const Assumption = z
  .object({
    check: z.string().describe('normality, equal_variance or expected_counts'),
    method: z.string(),
    target: z.string(),
    statistic: n,
    p_value: n,
    passed: z.boolean(),
    subsampled: z.boolean().optional(),
    n_tested: z.number().optional(),
    min_expected: z.number().optional(),
    cells: z.number().optional(),
  })
  .meta({ id: 'Assumption' });

/** The effect size (engine stats/methods.py _es): cohens_d (a paired test's is d_z), r, eta_squared or cramers_v. */
export const EffectSize = z.object({
  kind: z.enum(['cohens_d', 'r', 'eta_squared', 'cramers_v']),
  value: n,
  magnitude: z.string().nullable(),
  hedges_g: n.optional().describe("Two-sample t test: Hedges' g"),
  variant: z.string().optional().describe('Paired t test: d_z'),
  rank_biserial: n.optional().describe('Mann-Whitney U: the rank-biserial correlation'),
});
/** A caution about the result; its parameters fill the message (interpret.ts warningText). */
export const Warning = z.object({
  code: z.string().describe('missing_dropped, zeros_dropped, normality_subsampled, normality_failed, equal_variance_failed(_groups), expected_counts_failed'),
  params: z.object({
    count: z.number().int().optional().describe('Rows left out'),
    target: z.string().optional(),
    targets: z.array(z.string()).optional().describe('normality_failed: every group that failed'),
    n: z.number().int().optional().describe('normality_subsampled: values tested'),
    p: n.optional(),
  }),
});

/** What the engine task writes (stats/methods.py, tasks/statistical_analysis.py); which keys a test fills depends on it. */
export const TestResult = z
  .object({
    test_type: z.enum(TEST_TYPES),
    method: z.string(),
    alternative: z.enum(ALTERNATIVES),
    alpha: z.number(),
    confidence_level: z.number(),
    statistic: z.object({ symbol: z.string(), value: n }).nullable(),
    df: n,
    df2: n,
    p_value: n,
    reject: z.boolean(),
    hypothetical_mean: z.number().optional(),
    z: z.number().optional(),
    t: n.optional().describe('Correlation: the t statistic of r'),
    t_plus: z.number().optional().describe('Wilcoxon signed-rank: the sum of positive ranks'),
    zeros_dropped: z.number().int().optional().describe('Wilcoxon signed-rank: zero differences left out'),
    n: z.number().int().optional().describe('Chi-square: the observations in the table'),
    n_tested: z.number().int().optional().describe('Shapiro-Wilk: the values tested (a sample of a large column)'),
    estimate: z.object({ kind: z.string(), value: n }).nullable(),
    ci: z.object({ kind: z.string(), level: z.number(), low: n, high: n, approximate: z.boolean().optional() }).nullable(),
    effect_size: EffectSize.nullable(),
    groups: z.array(GroupStats),
    differences: GroupStats.optional(),
    pairs: z.number().optional(),
    n_missing: z.number().optional(),
    equal_variance: z.object({ mode: z.enum(EQUAL_VARIANCE), levene_statistic: z.number(), levene_p: z.number(), pooled: z.boolean() }).optional(),
    assumptions: z.array(Assumption),
    warnings: z.array(Warning),
    post_hoc: z
      .object({ method: z.string(), pairs: z.array(z.object({ a: z.string(), b: z.string(), difference: z.number(), low: z.number(), high: z.number(), p_value: z.number(), reject: z.boolean() })) })
      .optional(),
    anova_table: z.object({ ss_between: z.number(), ss_within: z.number(), ms_between: z.number(), ms_within: z.number() }).optional(),
    table: z
      .object({ rows: z.array(z.string()), columns: z.array(z.string()), row_variable: z.string(), column_variable: z.string(), observed: z.array(z.array(z.number())), expected: z.array(z.array(z.number())) })
      .optional(),
    charts: z.object({
      box: z.array(BoxData).optional(),
      reference: ReferenceCurve.optional(),
      reference_line: z.number().optional(),
      scatter: z.object({ x: z.array(z.number()), y: z.array(z.number()), slope: n, intercept: n, shown: z.number(), n: z.number() }).optional(),
      qq: z.object({ theoretical: z.array(z.number()), sample: z.array(z.number()), slope: z.number(), intercept: z.number() }).optional(),
    }),
    variables: z.object({ variable1: z.string(), variable2: z.string().nullable(), category: z.string().nullable(), group1: z.string().nullable(), group2: z.string().nullable() }),
    seconds: z.number().optional(),
  })
  .meta({ id: 'TestResult' });

const settings = {
  test_type: storedEnum(TEST_TYPES),
  variable1: z.string(),
  variable2: z.string().nullable(),
  category: z.string().nullable(),
  group1: z.string().nullable(),
  group2: z.string().nullable(),
  groups: z.array(z.string()),
  hypothetical_mean: z.number(),
  significance_level: z.number(),
  alternative: storedEnum(ALTERNATIVES),
  equal_variance: storedEnum(EQUAL_VARIANCE),
};
export const ProjectSettingsView = z.object(settings).meta({ id: 'StatisticalProjectSettings' });

export const StatisticalProject = z
  .object({
    id: z.string(),
    name: z.string(),
    comment: z.string(),
    dataset_id: z.string(),
    dataset_name: z.string(),
    ...settings,
    state: storedEnum(STATES),
    job_id: z.string().nullable(),
    error: z.string().nullable(),
    summary: z.object({ statistic: z.string().nullable(), value: n, p_value: n, reject: z.boolean(), method: z.string() }).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'StatisticalProject' });

export const StatisticalProjectPage = page(StatisticalProject);

export const StatisticalProjectBrief = z.object({
  id: z.string(),
  name: z.string(),
  state: storedEnum(STATES),
  test_type: z.string(),
  dataset_id: z.string(),
  dataset_name: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export const StatisticalProjectsByState = z.object({ items: z.array(StatisticalProjectBrief), counts: z.record(z.string(), z.number()) });

export const RunState = z
  .object({
    project_id: z.string(),
    state: storedEnum(STATES),
    job_id: z.string().nullable(),
    job_state: z.string(),
    progress: z.number(),
    message: z.string(),
    error: z.string().nullable(),
    log: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    result: TestResult.nullable(),
  })
  .meta({ id: 'StatisticalRunState' });

export const Evaluation = z
  .object({
    project_id: z.string(),
    reject: z.boolean(),
    p_value: n,
    alpha: z.number(),
    statistic_text: z.string(),
    p_text: z.string(),
    method_name: Both,
    sentence: Both,
    effect_size: EffectSize.extend({ name: Both, magnitude_text: Both.nullable() }).nullable(),
    warnings: z.array(Warning.extend({ text: Both })),
  })
  .meta({ id: 'StatisticalEvaluation' });

export const ColumnValues = z
  .object({ column: z.string(), type: z.string(), distinct: z.number(), values: z.array(z.object({ value: z.string(), count: z.number() })) })
  .meta({ id: 'ColumnValues' });
