import { z } from 'zod';
import { localIssue } from '../../http/errors.js';
import { localize } from '../../i18n/messages.js';
import { M } from './messages.js';
import { METHODS, PARAM, PROCESS_TYPES, type ParamName, type ProcessType } from '../datasets/history.js';


type Reads = { reads: readonly ParamName[]; required?: readonly ParamName[] };
const rolling: Reads = { reads: ['window', 'span', 'min_periods', 'name'] };

/**
 * What each step reads, by kind and method: the engine's catalogue (each Step's `reads` and `required` in
 * preprocessing/steps.py, written to preprocessing/catalogue.json; an engine test holds them to what check_params, fit
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
