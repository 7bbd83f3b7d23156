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

export const stepSchema = z
  .object({
    process_type: z.enum(PROCESS_TYPES as [ProcessType, ...ProcessType[]]),
    method: z.string().min(1).max(40),
    columns: z.array(z.string().min(1).max(512)).max(1000).default([]),
    params: z.record(z.string(), z.unknown()).default({}),
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
