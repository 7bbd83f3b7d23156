import type { Step, StepDraft, StepParams } from './api';

export type FieldKind = 'number' | 'integer' | 'text' | 'select' | 'column' | 'expression';

export interface Field {
  /** a parameter the server declares (PreprocessStepParams) */
  key: keyof StepParams;
  kind: FieldKind;
  options?: string[];
  default?: unknown;
  /** shown only for these methods */
  methods?: string[];
  optional?: boolean;
}

export interface ProcessSpec {
  methods: string[];
  /** which columns the step works on: none, numeric ones, or any */
  columns: 'none' | 'numeric' | 'any';
  /** columns may be left empty (meaning: every suitable column) */
  columnsOptional?: boolean;
  /** for these methods the column list is not used */
  noColumnsFor?: string[];
  fields: Field[];
}

/** The steps the engine knows (engine/mitate_engine/preprocessing/steps/), with their parameters and defaults. */
export const CATALOGUE: Record<string, ProcessSpec> = {
  outliers: {
    methods: ['iqr', 'zscore', 'hampel'],
    columns: 'numeric',
    columnsOptional: true,
    fields: [
      { key: 'action', kind: 'select', options: ['remove', 'set_missing', 'clip'], default: 'clip' },
      { key: 'k', kind: 'number', default: 1.5, methods: ['iqr'] },
      { key: 'threshold', kind: 'number', default: 3, methods: ['zscore', 'hampel'] },
      { key: 'window', kind: 'integer', default: 7, methods: ['hampel'] },
    ],
  },
  missing: {
    methods: ['drop_rows', 'drop_columns', 'mean', 'median', 'mode', 'constant', 'ffill', 'bfill', 'linear', 'time'],
    columns: 'any',
    columnsOptional: true,
    fields: [
      { key: 'threshold', kind: 'number', default: 0.5, methods: ['drop_columns'] },
      { key: 'value', kind: 'text', default: '0', methods: ['constant'] },
    ],
  },
  scaling: { methods: ['standard', 'minmax', 'robust'], columns: 'numeric', columnsOptional: true, fields: [] },
  computed: {
    methods: ['expression'],
    columns: 'none',
    fields: [
      { key: 'name', kind: 'text', default: '' },
      { key: 'expression', kind: 'expression', default: '' },
    ],
  },
  window: {
    methods: ['mean', 'std', 'min', 'max', 'median', 'lag'],
    columns: 'numeric',
    fields: [
      { key: 'window', kind: 'integer', default: 5, methods: ['mean', 'std', 'min', 'max', 'median'], optional: true },
      { key: 'span', kind: 'text', default: '', methods: ['mean', 'std', 'min', 'max', 'median'], optional: true },
      { key: 'lag', kind: 'integer', default: 1, methods: ['lag'] },
      { key: 'name', kind: 'text', default: '', optional: true },
    ],
  },
  columns: {
    methods: ['drop', 'rename', 'retype'],
    columns: 'any',
    fields: [{ key: 'dtype', kind: 'select', options: ['float', 'integer', 'string', 'datetime', 'boolean'], default: 'float', methods: ['retype'] }],
  },
  filter: {
    methods: ['keep'],
    columns: 'none',
    fields: [
      { key: 'column', kind: 'column', default: '' },
      { key: 'op', kind: 'select', options: ['==', '!=', '<', '<=', '>', '>=', 'between', 'is_missing', 'not_missing', 'contains'], default: '>=' },
      { key: 'value', kind: 'text', default: '' },
      { key: 'value2', kind: 'text', default: '', optional: true },
    ],
  },
  sort: {
    methods: ['datetime', 'column'],
    columns: 'any',
    noColumnsFor: ['datetime'],
    fields: [{ key: 'ascending', kind: 'select', options: ['true', 'false'], default: 'true' }],
  },
};

export const PROCESS_TYPES = Object.keys(CATALOGUE);

const isProcessType = (v: string): v is Step['process_type'] => Object.hasOwn(CATALOGUE, v);

export const fieldsFor = (processType: string, method: string) => (CATALOGUE[processType]?.fields ?? []).filter((f) => !f.methods || f.methods.includes(method));

/** A new step of a kind with its defaults (an unknown kind: the first). */
export function newStep(processType: string, method?: string): StepDraft {
  const kind = isProcessType(processType) ? processType : 'outliers';
  const m = method ?? CATALOGUE[kind].methods[0];
  const params: Record<string, unknown> = {};
  for (const f of fieldsFor(kind, m)) if (f.default !== undefined && f.default !== '') params[f.key] = f.default;
  return { process_type: kind, method: m, columns: [], params };
}

/** A number field's text as a number when it is one (else left for the server to explain). */
const num = (v: number | string | undefined) => (v === undefined || v === '' || !Number.isFinite(Number(v)) ? v : Number(v));

/**
 * Cleans a step before sending: only the parameters its method reads (the server refuses any other), empty ones
 * left out, numbers as numbers, the step of its kind.
 */
export function normalizeStep(s: StepDraft): Step {
  const fields = fieldsFor(s.process_type, s.method);
  const given = <K extends keyof StepParams>(k: K): StepParams[K] | undefined => {
    const v = s.params[k];
    return fields.some((f) => f.key === k) && v !== undefined && v !== null && v !== '' ? v : undefined;
  };
  const spec = CATALOGUE[s.process_type];
  const noCols = spec.columns === 'none' || spec.noColumnsFor?.includes(s.method) || (s.process_type === 'columns' && s.method === 'rename');
  const base = { method: s.method, columns: noCols ? [] : s.columns };
  switch (s.process_type) {
    case 'outliers':
      return { ...base, process_type: 'outliers', params: defined({ action: given('action'), k: num(given('k')), threshold: num(given('threshold')), window: num(given('window')) }) };
    case 'missing':
      return { ...base, process_type: 'missing', params: defined({ threshold: num(given('threshold')), value: given('value') }) };
    case 'scaling':
      return { ...base, process_type: 'scaling', params: {} };
    case 'computed':
      return { ...base, process_type: 'computed', params: defined({ name: given('name'), expression: given('expression') }) };
    case 'window': {
      const span = given('span');
      return { ...base, process_type: 'window', params: defined({ window: span ? undefined : num(given('window')), span, lag: num(given('lag')), name: given('name') }) };
    }
    case 'columns':
      return { ...base, process_type: 'columns', params: defined({ mapping: s.method === 'rename' ? (s.params.mapping ?? {}) : undefined, dtype: given('dtype') }) };
    case 'filter':
      return { ...base, process_type: 'filter', params: defined({ column: given('column'), op: given('op'), value: given('value'), value2: given('value2') }) };
    case 'sort': {
      const asc = given('ascending');
      return { ...base, process_type: 'sort', params: defined({ ascending: asc === undefined ? undefined : asc === true || asc === 'true' }) };
    }
  }
}

/** The object without its undefined entries (so a step says only what it sets). */
function defined<T extends object>(o: T): T {
  for (const k in o) if (o[k] === undefined) delete o[k];
  return o;
}

/** What is missing before the step can be previewed or run (a key of the i18n 'invalid' group), or null. */
export function stepProblem(s: StepDraft): string | null {
  const spec = CATALOGUE[s.process_type];
  if (!spec) return 'type';
  const usesColumns = spec.columns !== 'none' && !spec.noColumnsFor?.includes(s.method) && !(s.process_type === 'columns' && s.method === 'rename');
  if (usesColumns && !spec.columnsOptional && s.columns.length === 0) return 'columns';
  if (s.process_type === 'columns' && s.method === 'rename') {
    const m = s.params.mapping ?? {};
    if (!Object.keys(m).length || Object.values(m).some((v) => !String(v).trim())) return 'mapping';
  }
  for (const f of fieldsFor(s.process_type, s.method)) {
    const v = s.params[f.key];
    if (f.optional) continue;
    if (s.process_type === 'filter' && f.key === 'value' && ['is_missing', 'not_missing'].includes(String(s.params.op))) continue;
    if (v === undefined || v === null || String(v).trim() === '') return f.key === 'expression' || f.key === 'name' ? f.key : 'param';
    if ((f.kind === 'number' || f.kind === 'integer') && !Number.isFinite(Number(v))) return 'number';
  }
  if (s.process_type === 'filter' && s.params.op === 'between' && !String(s.params.value2 ?? '').trim()) return 'param';
  if (s.process_type === 'window' && s.method !== 'lag' && !s.params.window && !String(s.params.span ?? '').trim()) return 'param';
  return null;
}

/** The columns after the given steps, as far as they can be known without the data (for the next step's pickers). */
export function columnsAfter<C extends { name: string; type: string }>(columns: C[], steps: StepDraft[]): { name: string; type: string }[] {
  let cols: { name: string; type: string }[] = columns.map((c) => ({ name: c.name, type: c.type }));
  for (const s of steps) {
    if (s.process_type === 'computed' && s.params.name) {
      const name = String(s.params.name);
      cols = cols.some((c) => c.name === name) ? cols.map((c) => (c.name === name ? { name, type: 'float' } : c)) : [...cols, { name, type: 'float' }];
    } else if (s.process_type === 'window') {
      const label = s.method === 'lag' ? `lag${s.params.lag ?? 1}` : `${s.method}_${s.params.span || s.params.window}`;
      for (const c of s.columns) {
        const name = s.params.name && s.columns.length === 1 ? String(s.params.name) : `${c}_${s.params.name || label}`;
        if (!cols.some((x) => x.name === name)) cols.push({ name, type: 'float' });
      }
    } else if (s.process_type === 'columns' && s.method === 'drop') {
      cols = cols.filter((c) => !s.columns.includes(c.name));
    } else if (s.process_type === 'columns' && s.method === 'rename') {
      const m = s.params.mapping ?? {};
      cols = cols.map((c) => (m[c.name] ? { ...c, name: m[c.name] } : c));
    } else if (s.process_type === 'columns' && s.method === 'retype') {
      const type = s.params.dtype === 'integer' ? 'integer' : s.params.dtype === 'float' ? 'float' : String(s.params.dtype);
      cols = cols.map((c) => (s.columns.includes(c.name) ? { ...c, type } : c));
    }
  }
  return cols;
}
