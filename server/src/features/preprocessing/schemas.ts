import { z } from 'zod';
import { localIssue } from '../../http/errors.js';
import { localize } from '../../i18n/messages.js';
import { M } from './messages.js';

/** Every step kind and its methods: the same catalogue as engine/mitate_engine/preprocessing/steps.py. */
export const METHODS = {
  outliers: ['iqr', 'zscore', 'hampel'],
  missing: ['drop_rows', 'drop_columns', 'mean', 'median', 'mode', 'constant', 'ffill', 'bfill', 'linear', 'time'],
  scaling: ['standard', 'minmax', 'robust'],
  computed: ['expression'],
  window: ['mean', 'std', 'min', 'max', 'median', 'lag'],
  columns: ['drop', 'rename', 'retype'],
  filter: ['keep'],
  sort: ['datetime', 'column'],
} as const;
export type ProcessType = keyof typeof METHODS;
export const PROCESS_TYPES = Object.keys(METHODS) as ProcessType[];

const numberish = z.union([z.number(), z.string().max(100)]);
const scalar = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);

/**
 * Every parameter a step reads (engine preprocessing/steps.py), each optional: which apply depends on the step's kind
 * and method (the engine checks them). A key no step reads is dropped here, never passed on or echoed back.
 * Numbers may arrive as text (form fields); the engine reads both.
 */
export const StepParams = z
  .object({
    action: z.string().max(20).optional().describe('outliers: remove or clip'),
    k: numberish.optional().describe('outliers (iqr): the fence in IQRs'),
    threshold: numberish.optional().describe('outliers (zscore, hampel): the limit; missing (drop_columns): the share of missing values'),
    window: numberish.optional().describe('outliers (hampel), window: rows in the window'),
    value: scalar.optional().describe('missing (constant): the fill value; filter: the value to compare with'),
    value2: scalar.optional().describe('filter (between): the upper value'),
    name: z.string().max(512).optional().describe('computed: the new column; window: the new columns\' name'),
    expression: z.string().max(10_000).optional().describe('computed: the expression'),
    lag: numberish.optional().describe('window (lag): rows back'),
    span: z.string().max(100).optional().describe('window: a time span (e.g. 10min) instead of a row count'),
    min_periods: z.union([numberish, z.null()]).optional().describe('window: values needed for a result'),
    mapping: z.record(z.string(), z.string().max(512)).optional().describe('columns (rename): old name → new name'),
    dtype: z.string().max(40).optional().describe('columns (retype): float, integer, string, datetime or boolean'),
    column: z.string().max(512).optional().describe('filter: the column compared'),
    op: z.string().max(40).optional().describe('filter: the operator'),
    ascending: z.union([z.boolean(), z.string().max(10)]).optional().describe('sort: ascending (true) or descending'),
  })
  .meta({ id: 'PreprocessStepParams' });

/** What a step learnt from the training data (preprocessing/steps.py fit), reused unchanged on new data; {} when it learns nothing. */
export const StepFitted = z
  .object({
    bounds: z.record(z.string(), z.object({ lower: z.number().nullable(), upper: z.number().nullable() })).optional().describe('outliers (iqr, zscore): column → bounds'),
    columns: z
      .union([z.array(z.string()), z.record(z.string(), z.object({ center: z.number(), scale: z.number() }))])
      .optional()
      .describe('outliers (hampel): the columns; scaling: column → centre and scale'),
    drop: z.array(z.string()).optional().describe('missing (drop_columns): the columns dropped'),
    values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional().describe('missing (mean, median, mode): column → fill value'),
  })
  .meta({ id: 'PreprocessStepFitted' });

/** What one step did, in a dataset's preprocess history (engine Condition.history): its columns, parameters and
 * fitted figures, with the rows before and after and the columns it added or dropped. */
export const StepChanges = z.object({
  ...StepParams.shape,
  columns: z.array(z.string()).optional(),
  fitted: StepFitted.optional(),
  rows_before: z.number().int().optional(),
  rows_after: z.number().int().optional(),
  columns_added: z.array(z.string()).optional(),
  columns_dropped: z.array(z.string()).optional(),
  skipped: z.boolean().optional().describe('Applied to data without the columns it concerns: left out'),
}).meta({ id: 'PreprocessStepChanges' });

export const stepSchema = z
  .object({
    process_type: z.enum(PROCESS_TYPES as [ProcessType, ...ProcessType[]]),
    method: z.string().min(1).max(40),
    columns: z.array(z.string().min(1).max(512)).max(1000).default([]),
    params: StepParams.default({}),
  })
  .superRefine((s, ctx) => {
    const allowed = METHODS[s.process_type] as readonly string[];
    if (!allowed.includes(s.method)) {
      const values = { method: s.method, type: s.process_type, allowed: allowed.join(', ') };
      ctx.addIssue({ code: 'custom', path: ['method'], message: localize('en', M.unknownMethod, values), params: localIssue(M.unknownMethod, values) });
    }
  });
export type Step = z.infer<typeof stepSchema>;

export const stepsSchema = z.array(stepSchema).min(1).max(100);

export const conditionName = z.string().trim().min(1).max(200);

export const saveConditionBody = z.object({
  name: conditionName,
  steps: stepsSchema,
  datetime_column: z.string().max(512).nullish(),
  source_dataset_id: z.string().max(64).nullish(),
  confirm_overwrite: z.boolean().default(false),
});

export const previewBody = z.object({
  steps: stepsSchema,
  /** which step to preview (default: the last) */
  index: z.number().int().min(0).optional(),
  sample_rows: z.number().int().min(100).max(1_000_000).default(200_000),
});

export const runBody = z
  .object({
    steps: stepsSchema.optional(),
    condition_id: z.string().max(64).optional(),
    /** with steps: also save them as this named condition (409 when the name exists, unless confirm_overwrite) */
    condition_name: conditionName.optional(),
    confirm_overwrite: z.boolean().default(false),
  })
  .refine((b) => !!b.steps || !!b.condition_id, { message: M.stepsOrCondition.en, path: ['steps'], params: localIssue(M.stepsOrCondition) });

export const registerBody = z.object({
  name: z.string().trim().min(1).max(200),
  comment: z.string().max(2000).default(''),
  category: z.string().max(200).optional(),
  data_type: z.enum(['training_data', 'inference_data']).optional(),
  type: z.enum(['supervised', 'unsupervised', 'softsensor']).optional(),
  training_type: z.string().max(100).optional(),
});
