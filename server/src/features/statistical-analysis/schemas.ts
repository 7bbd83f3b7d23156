import { z } from 'zod';

export const TEST_TYPES = [
  'one_sample_t',
  'two_sample_t',
  'paired_t',
  'mann_whitney',
  'wilcoxon',
  'anova',
  'chi_square',
  'pearson',
  'spearman',
  'shapiro',
  'f_test',
] as const;
export type TestType = (typeof TEST_TYPES)[number];
export const ALTERNATIVES = ['two-sided', 'less', 'greater'] as const;
export const EQUAL_VARIANCE = ['auto', 'student', 'welch'] as const;
export const STATES = ['ready', 'running', 'done', 'failed'] as const;

const column = z.string().trim().max(500);
const optionalColumn = column.nullish().transform((v) => (v ? v : null));
const label = z.string().max(500);

/** SPEC §3 'Statistical project'. Rules that need the data (types, groups, counts) are checked by the service. */
export const projectSettings = z.object({
  test_type: z.enum(TEST_TYPES).describe('one_sample_t | two_sample_t (Student/Welch) | paired_t | mann_whitney | wilcoxon | anova (+ Tukey HSD) | chi_square | pearson | spearman | shapiro | f_test'),
  variable1: column.describe('Variable 1: the measured (numeric) column; chi-square: the row variable'),
  variable2: optionalColumn.describe('Variable 2: the second column (two columns, pairs, correlation, chi-square columns); a paired split: the optional key column pairing the rows'),
  category: optionalColumn.describe('Category column that splits variable 1 into groups'),
  group1: label.nullish().transform((v) => (v === undefined || v === null || v === '' ? null : v)).describe('Group 1: a value of the category column'),
  group2: label.nullish().transform((v) => (v === undefined || v === null || v === '' ? null : v)).describe('Group 2: a value of the category column'),
  groups: z.array(label).max(50).optional().default([]).describe('ANOVA: the category values to compare (empty: all)'),
  hypothetical_mean: z.number().optional().default(0).describe('Hypothetical (assumed) mean: one-sample t; hypothetical median of a one-sample Wilcoxon; hypothesised mean difference of paired tests'),
  significance_level: z.number().optional().default(0.05).describe('Significance level α, in (0, 1); default 0.05'),
  alternative: z.enum(ALTERNATIVES).optional().default('two-sided'),
  equal_variance: z.enum(EQUAL_VARIANCE).optional().default('auto').describe("Two-sample t: 'student' (pooled), 'welch', or 'auto' (Welch when Levene's test rejects equal variances at α)"),
});
export type ProjectSettings = z.infer<typeof projectSettings>;

export const registerBody = projectSettings.extend({
  name: z.string().trim().max(200).describe('Project name'),
  comment: z.string().trim().max(2000).optional().default(''),
  run: z.boolean().optional().default(true).describe('Start the test at once (default true)'),
});
export type RegisterBody = z.infer<typeof registerBody>;

/** Re-run: optionally with changed settings (merged over the stored ones and checked again); no defaults here. */
export const runBody = z
  .object({
    name: z.string().trim().max(200),
    test_type: z.enum(TEST_TYPES),
    variable1: column,
    variable2: column.nullable(),
    category: column.nullable(),
    group1: label.nullable(),
    group2: label.nullable(),
    groups: z.array(label).max(50),
    hypothetical_mean: z.number(),
    significance_level: z.number(),
    alternative: z.enum(ALTERNATIVES),
    equal_variance: z.enum(EQUAL_VARIANCE),
  })
  .partial()
  .optional();

export const datasetParams = z.object({ dataset_id: z.string().min(1).max(64) });
export const idParams = z.object({ id: z.string().min(1).max(64) });

export const listQuery = z.object({
  state: z.enum(STATES).or(z.literal('')).optional(),
  query: z.string().max(200).optional().default(''),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});

export const stateQuery = z.object({ state: z.enum(STATES).or(z.literal('')).optional() });

export const downloadBody = z.object({
  ids: z.array(z.string().max(64)).max(500).describe('Projects to put in one CSV summary (one row each)'),
});

export const resultDownloadQuery = z.object({
  format: z.enum(['csv', 'html']).optional().default('csv').describe('csv: the result tables; html: a self-contained report'),
  lang: z.enum(['en', 'ja']).optional().describe('Language of the file (default: Accept-Language)'),
});

export const valuesQuery = z.object({ column: z.string().min(1).max(500) });
