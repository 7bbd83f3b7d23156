import { z } from 'zod';
import { page, storedEnum } from '../../http/responses.js';
import { ALTERNATIVES, EQUAL_VARIANCE, STATES, TEST_TYPES, type TestType } from './schemas.js';

/** Answers of SPEC §7 'Statistical analysis'. The test result is what the engine task writes (engine/mitate_engine/tasks). */

const n = z.number().nullable();
const Both = z.object({ en: z.string(), ja: z.string() });

/** One group's descriptives (engine statistical_analysis/describe.py describe). */
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

/** The effect size (engine statistical_analysis/methods.py _es): cohens_d (a paired test's is d_z), r, eta_squared or cramers_v. */
export const EffectSize = z
  .object({
    kind: z.enum(['cohens_d', 'r', 'eta_squared', 'cramers_v']),
    value: n,
    magnitude: z.string().nullable(),
    hedges_g: n.optional().describe("Two-sample t test: Hedges' g"),
    variant: z.string().optional().describe('Paired t test: d_z'),
    rank_biserial: n.optional().describe('Mann-Whitney U: the rank-biserial correlation'),
  })
  .meta({ id: 'EffectSize' });
/** A caution about the result; its parameters fill the message (interpret.ts warningText). */
export const Warning = z
  .object({
    code: z.string().describe('missing_dropped, zeros_dropped, normality_subsampled, normality_failed, equal_variance_failed(_groups), expected_counts_failed'),
    params: z.object({
      count: z.number().int().optional().describe('Rows left out'),
      target: z.string().optional(),
      targets: z.array(z.string()).optional().describe('normality_failed: every group that failed'),
      n: z.number().int().optional().describe('normality_subsampled: values tested'),
      p: n.optional(),
    }),
  })
  .meta({ id: 'TestWarning' });

/** The statistic, estimate and confidence interval every test carries (null where a test has none). */
const Statistic = z.object({ symbol: z.string(), value: n }).meta({ id: 'TestStatistic' });
const Estimate = z.object({ kind: z.string(), value: n }).meta({ id: 'TestEstimate' });
const Interval = z.object({ kind: z.string(), level: z.number(), low: n, high: n, approximate: z.boolean().optional().describe('Spearman: an approximate (Fisher z) interval') }).meta({ id: 'ConfidenceInterval' });
const Variables = z.object({ variable1: z.string(), variable2: z.string().nullable(), category: z.string().nullable(), group1: z.string().nullable(), group2: z.string().nullable() }).meta({ id: 'TestVariables' });
const Boxes = z.array(BoxData);

/** What every test's result holds (engine statistical_analysis/methods.py _base and _finish, tasks/statistical_analysis.py). */
const common = {
  method: z.string(),
  alternative: z.enum(ALTERNATIVES),
  alpha: z.number(),
  confidence_level: z.number(),
  statistic: Statistic.nullable(),
  df: n,
  df2: n,
  p_value: n,
  reject: z.boolean(),
  estimate: Estimate.nullable(),
  ci: Interval.nullable(),
  effect_size: EffectSize.nullable(),
  groups: z.array(GroupStats),
  n_missing: z.number().int().describe('Rows left out for a missing value'),
  assumptions: z.array(Assumption),
  warnings: z.array(Warning),
  variables: Variables,
  seconds: z.number().describe('How long the engine took'),
};
const hypothetical_mean = z.number().describe('The hypothetical mean (median for Wilcoxon) tested against');
const rankZ = z.number().describe('The normal approximation of the rank statistic');

const OneSampleT = z
  .object({ test_type: z.literal('one_sample_t'), ...common, hypothetical_mean, charts: z.object({ box: Boxes, reference: ReferenceCurve, reference_line: z.number() }) })
  .meta({ id: 'TestResultOneSampleT' });
const TwoSampleT = z
  .object({
    test_type: z.literal('two_sample_t'),
    ...common,
    equal_variance: z.object({ mode: z.enum(EQUAL_VARIANCE), levene_statistic: z.number(), levene_p: z.number(), pooled: z.boolean() }),
    charts: z.object({ box: Boxes, reference: ReferenceCurve }),
  })
  .meta({ id: 'TestResultTwoSampleT' });
const PairedT = z
  .object({
    test_type: z.literal('paired_t'),
    ...common,
    hypothetical_mean,
    differences: GroupStats.describe('Descriptives of the differences a - b'),
    pairs: z.number().int().describe('Complete pairs tested'),
    charts: z.object({ box: Boxes, reference: ReferenceCurve }),
  })
  .meta({ id: 'TestResultPairedT' });
const MannWhitney = z
  .object({ test_type: z.literal('mann_whitney'), ...common, z: rankZ, charts: z.object({ box: Boxes, reference: ReferenceCurve }) })
  .meta({ id: 'TestResultMannWhitney' });
const Wilcoxon = z
  .object({
    test_type: z.literal('wilcoxon'),
    ...common,
    hypothetical_mean,
    z: rankZ,
    t_plus: z.number().describe('The sum of positive ranks'),
    zeros_dropped: z.number().int().describe('Zero differences left out'),
    differences: GroupStats.optional().describe('Paired (method wilcoxon_paired) only: descriptives of the differences'),
    charts: z.object({ box: Boxes, reference: ReferenceCurve, reference_line: z.number().optional().describe('One sample (method wilcoxon_one_sample) only') }),
  })
  .meta({ id: 'TestResultWilcoxon' });
const Anova = z
  .object({
    test_type: z.literal('anova'),
    ...common,
    anova_table: z.object({ ss_between: z.number(), ss_within: z.number(), ms_between: z.number(), ms_within: z.number() }),
    post_hoc: z.object({
      method: z.string(),
      pairs: z.array(z.object({ a: z.string(), b: z.string(), difference: z.number(), low: z.number(), high: z.number(), p_value: z.number(), reject: z.boolean() })),
    }),
    charts: z.object({ box: Boxes, reference: ReferenceCurve }),
  })
  .meta({ id: 'TestResultAnova' });
const ChiSquare = z
  .object({
    test_type: z.literal('chi_square'),
    ...common,
    n: z.number().int().describe('The observations in the table'),
    table: z.object({
      rows: z.array(z.string()),
      columns: z.array(z.string()),
      row_variable: z.string(),
      column_variable: z.string(),
      observed: z.array(z.array(z.number())),
      expected: z.array(z.array(z.number())),
    }),
    charts: z.object({ reference: ReferenceCurve }),
  })
  .meta({ id: 'TestResultChiSquare' });
const correlation = <T extends 'pearson' | 'spearman'>(test: T) =>
  z.object({
    test_type: z.literal(test),
    ...common,
    t: n.describe('The t statistic of r (null when |r| = 1)'),
    pairs: z.number().int().describe('Complete pairs tested'),
    charts: z.object({
      scatter: z.object({ x: z.array(z.number()), y: z.array(z.number()), slope: n, intercept: n, shown: z.number(), n: z.number() }),
      reference: ReferenceCurve,
    }),
  });
const Pearson = correlation('pearson').meta({ id: 'TestResultPearson' });
const Spearman = correlation('spearman').meta({ id: 'TestResultSpearman' });
const Shapiro = z
  .object({
    test_type: z.literal('shapiro'),
    ...common,
    n_tested: z.number().int().describe('The values tested (a sample of a large column)'),
    charts: z.object({ box: Boxes, qq: z.object({ theoretical: z.array(z.number()), sample: z.array(z.number()), slope: z.number(), intercept: z.number() }) }),
  })
  .meta({ id: 'TestResultShapiro' });
const FTest = z
  .object({ test_type: z.literal('f_test'), ...common, charts: z.object({ box: Boxes, reference: ReferenceCurve }) })
  .meta({ id: 'TestResultFTest' });

/** What the engine task writes (statistical_analysis/methods.py, tasks/statistical_analysis.py): one shape per test type. */
export const TestResult = z
  .discriminatedUnion('test_type', [OneSampleT, TwoSampleT, PairedT, MannWhitney, Wilcoxon, Anova, ChiSquare, Pearson, Spearman, Shapiro, FTest])
  .meta({ id: 'TestResult' });
/** Every test type has its member (a type error here names the one missing). */
const _everyTestHasAResult: Record<Exclude<TestType, z.infer<typeof TestResult>['test_type']>, never> = {};

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
// Registered for the OpenAPI document's components only: the web app's settings type (Schemas['StatisticalProjectSettings']).
z.object(settings).meta({ id: 'StatisticalProjectSettings' });

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
