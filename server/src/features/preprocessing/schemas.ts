import { z } from 'zod';
import { localIssue } from '../../http/errors.js';
import { localize } from '../../i18n/messages.js';
import { M } from './messages.js';

/** Every step kind and its methods: the same catalogue as engine/mitate_engine/preprocessing/steps/. */
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

/** Each parameter some step reads (engine preprocessing/steps/), with its type. Numbers may arrive as text (form fields); the engine reads both. */
const PARAM = {
  action: z.string().max(20).describe('outliers: remove, set_missing or clip'),
  k: numberish.describe('outliers (iqr): the fence in IQRs'),
  threshold: numberish.describe('outliers (zscore, hampel): the limit; missing (drop_columns): the share of missing values'),
  window: numberish.describe('outliers (hampel), window: rows in the window'),
  value: scalar.describe('missing (constant): the fill value; filter: the value to compare with'),
  value2: scalar.describe('filter (between): the upper value'),
  name: z.string().max(512).describe("computed: the new column; window: the new columns' name"),
  expression: z.string().max(10_000).describe('computed: the expression'),
  lag: numberish.describe('window (lag): rows back'),
  span: z.string().max(100).describe('window: a time span (e.g. 10min) instead of a row count'),
  min_periods: z.union([numberish, z.null()]).describe('window: values needed for a result'),
  mapping: z.record(z.string(), z.string().max(512)).describe('columns (rename): old name → new name'),
  dtype: z.string().max(40).describe('columns (retype): float, integer, string, datetime or boolean'),
  column: z.string().max(512).describe('filter: the column compared'),
  op: z.string().max(40).describe('filter: the operator'),
  ascending: z.union([z.boolean(), z.string().max(10)]).describe('sort: ascending (true) or descending'),
};
export type ParamName = keyof typeof PARAM;

type Reads = { reads: readonly ParamName[]; required?: readonly ParamName[] };
const rolling: Reads = { reads: ['window', 'span', 'min_periods', 'name'] };

/**
 * What each step reads, by kind and method: the engine's catalogue (each Step's `reads` and `required` in
 * preprocessing/steps/, written to preprocessing/catalogue.json; an engine test holds them to what check_params, fit
 * and transform look up, a server test holds this table equal to the JSON). `required`: the step cannot run without
 * it; the others have the engine's defaults.
 */
export const READS: { [K in ProcessType]: Record<(typeof METHODS)[K][number], Reads> } = {
  outliers: { iqr: { reads: ['action', 'k'] }, zscore: { reads: ['action', 'threshold'] }, hampel: { reads: ['action', 'window', 'threshold'] } },
  missing: {
    drop_rows: { reads: [] },
    drop_columns: { reads: ['threshold'] },
    mean: { reads: [] },
    median: { reads: [] },
    mode: { reads: [] },
    constant: { reads: ['value'], required: ['value'] },
    ffill: { reads: [] },
    bfill: { reads: [] },
    linear: { reads: [] },
    time: { reads: [] },
  },
  scaling: { standard: { reads: [] }, minmax: { reads: [] }, robust: { reads: [] } },
  computed: { expression: { reads: ['name', 'expression'], required: ['name', 'expression'] } },
  window: { mean: rolling, std: rolling, min: rolling, max: rolling, median: rolling, lag: { reads: ['lag', 'name'] } },
  columns: { drop: { reads: [] }, rename: { reads: ['mapping'], required: ['mapping'] }, retype: { reads: ['dtype'], required: ['dtype'] } },
  filter: { keep: { reads: ['column', 'op', 'value', 'value2'], required: ['column', 'op'] } },
  sort: { datetime: { reads: ['ascending'] }, column: { reads: ['ascending'] } },
};

/** Each kind's parameters (the union of what its methods read, in READS); required where every method needs it. */
export const KIND_PARAMS = {
  outliers: { action: PARAM.action.optional(), k: PARAM.k.optional(), threshold: PARAM.threshold.optional(), window: PARAM.window.optional() },
  missing: { threshold: PARAM.threshold.optional(), value: PARAM.value.optional() },
  scaling: {},
  computed: { name: PARAM.name, expression: PARAM.expression },
  window: { window: PARAM.window.optional(), span: PARAM.span.optional(), min_periods: PARAM.min_periods.optional(), lag: PARAM.lag.optional(), name: PARAM.name.optional() },
  columns: { mapping: PARAM.mapping.optional(), dtype: PARAM.dtype.optional() },
  filter: { column: PARAM.column, op: PARAM.op, value: PARAM.value.optional(), value2: PARAM.value2.optional() },
  sort: { ascending: PARAM.ascending.optional() },
} satisfies { [K in ProcessType]: Partial<Record<ParamName, z.ZodType>> };

/**
 * Every parameter any step reads, each optional: what a dataset's history shows of a step (StepChanges). A key no
 * step reads is dropped here, never echoed back.
 */
export const StepParams = z
  .object({
    action: PARAM.action.optional(),
    k: PARAM.k.optional(),
    threshold: PARAM.threshold.optional(),
    window: PARAM.window.optional(),
    value: PARAM.value.optional(),
    value2: PARAM.value2.optional(),
    name: PARAM.name.optional(),
    expression: PARAM.expression.optional(),
    lag: PARAM.lag.optional(),
    span: PARAM.span.optional(),
    min_periods: PARAM.min_periods.optional(),
    mapping: PARAM.mapping.optional(),
    dtype: PARAM.dtype.optional(),
    column: PARAM.column.optional(),
    op: PARAM.op.optional(),
    ascending: PARAM.ascending.optional(),
  })
  .meta({ id: 'PreprocessStepParams' });

/** What a step learnt from the training data (preprocessing/steps/ fit), reused unchanged on new data; {} when it learns nothing. */
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

/** The parameters a kind's method reads (READS), or null for a method the kind does not have. */
export function readsOf(kind: ProcessType, method: string): Reads | null {
  const methods: Record<string, Reads> = READS[kind];
  return Object.hasOwn(methods, method) ? methods[method] : null;
}

/** Leaves out of a stored step's parameters those its method does not read (a row saved before they were refused). */
export function leaveOutUnread(kind: ProcessType, method: string, params: Record<string, unknown>): void {
  const reads: readonly string[] | undefined = readsOf(kind, method)?.reads;
  if (!reads) return;
  for (const name of Object.keys(params)) if (!reads.includes(name)) delete params[name];
}

/** A parameter counts as given when it holds something (the engine treats an empty text or mapping as missing). */
const given = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && !v.trim()) && !(typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length);

const isKind = (v: unknown): v is ProcessType => typeof v === 'string' && Object.hasOwn(METHODS, v);

/**
 * Before the shape is checked: the kind and method are known, every parameter is one the method reads (READS) and the
 * required ones are given; each refusal names what is wrong in the caller's language (message catalogue).
 */
function checkReads(raw: unknown, ctx: z.RefinementCtx): void {
  if (!raw || typeof raw !== 'object' || !('process_type' in raw)) return;
  const kind = raw.process_type;
  const refuse = (path: (string | number)[], text: (typeof M)[keyof typeof M], values: Record<string, string>) =>
    ctx.addIssue({ code: 'custom', path, message: localize('en', text, values), params: localIssue(text, values) });
  if (!isKind(kind)) return refuse(['process_type'], M.unknownProcessType, { type: String(kind), allowed: PROCESS_TYPES.join(', ') });
  const method = 'method' in raw ? raw.method : undefined;
  const read = typeof method === 'string' ? readsOf(kind, method) : null;
  if (typeof method !== 'string' || !read) return refuse(['method'], M.unknownMethod, { method: String(method ?? ''), type: kind, allowed: METHODS[kind].join(', ') });
  const params = 'params' in raw ? raw.params : undefined;
  if (params !== undefined && (!params || typeof params !== 'object' || Array.isArray(params))) return; // the shape check says so
  const entries = new Map(Object.entries(params ?? {}));
  const reads: readonly string[] = read.reads;
  for (const name of entries.keys()) {
    if (reads.includes(name)) continue;
    const values = { name, type: kind, method, reads: reads.join(', ') };
    refuse(['params', name], reads.length ? M.paramNotRead : M.paramNoneRead, values);
  }
  for (const name of read.required ?? []) {
    if (!given(entries.get(name))) refuse(['params', name], M.paramRequired, { name, type: kind, method });
  }
}

const stepColumns = z.array(z.string().min(1).max(512)).max(1000).default([]);
const stepOf = <K extends ProcessType, P extends z.ZodType>(kind: K, params: P) =>
  z.object({ process_type: z.literal(kind), method: z.enum(METHODS[kind]), columns: stepColumns, params });

/**
 * One step of a condition, told apart by its kind (process_type); each kind with the parameters its methods read.
 * A parameter the step's method does not read, or a required one left out, is refused, never dropped (checkReads);
 * the values themselves (numbers, ranges, operators, types) are the engine's to check, in its own words.
 */
export const stepSchema = z.preprocess(
  (raw, ctx) => {
    checkReads(raw, ctx);
    return raw;
  },
  z.discriminatedUnion('process_type', [
    stepOf('outliers', z.strictObject(KIND_PARAMS.outliers).default({})),
    stepOf('missing', z.strictObject(KIND_PARAMS.missing).default({})),
    stepOf('scaling', z.strictObject(KIND_PARAMS.scaling).default({})),
    stepOf('computed', z.strictObject(KIND_PARAMS.computed)),
    stepOf('window', z.strictObject(KIND_PARAMS.window).default({})),
    stepOf('columns', z.strictObject(KIND_PARAMS.columns).default({})),
    stepOf('filter', z.strictObject(KIND_PARAMS.filter)),
    stepOf('sort', z.strictObject(KIND_PARAMS.sort).default({})),
  ]).meta({ id: 'PreprocessStepBody' }),
);
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
