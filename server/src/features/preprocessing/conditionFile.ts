import { csvCell, restoreCell } from '../../http/csv.js';
import { AppError } from '../../http/errors.js';
import { type Lang, type LocalText, localize } from '../../i18n/messages.js';
import { M } from './messages.js';
import type { StepSettings } from './responses.js';
import { type Step, stepSchema } from './schemas.js';
import { METHODS, PROCESS_TYPES, type ProcessType } from '../datasets/history.js';

/**
 * condition_setting_file.csv (SPEC §9): one row per step, in order.
 *
 *   condition_name,step,process_type,method,columns,params
 *   my condition,1,outliers,iqr,flow|temp,"{""k"":1.5,""action"":""clip""}"
 *
 * `columns` are separated by '|'; `params` is a JSON object. UTF-8 with a BOM so spreadsheet programs open it
 * in the right encoding.
 */
export const HEADER = ['condition_name', 'step', 'process_type', 'method', 'columns', 'params'] as const;

/** csvCell (formulas neutralised, RFC 4180 quoting); a '|' list is quoted too, as before. */
const cell = (v: string) => {
  const out = csvCell(v);
  return out.includes('|') && !out.startsWith('"') ? `"${out}"` : out;
};

export function toConditionCsv(name: string, steps: StepSettings[]): string {
  const lines = [HEADER.join(',')];
  steps.forEach((s, i) => {
    lines.push([name, String(i + 1), s.process_type, s.method, s.columns.join('|'), Object.keys(s.params).length ? JSON.stringify(s.params) : ''].map(cell).join(','));
  });
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** RFC 4180 records (quotes, doubled quotes, CRLF or LF); returns records with their 1-based starting line. */
export function parseCsv(text: string, lang: Lang = 'en'): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      any = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      any = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (any || field !== '') out.push({ line: start, fields });
      fields = [];
      field = '';
      any = false;
      line++;
      start = line;
    } else {
      field += ch;
      any = true;
    }
  }
  if (quoted) throw new AppError(422, M.fileRow, { row: start, reason: localize(lang, M.rowQuoteOpen) }, 'file');
  if (any || field !== '') {
    fields.push(field);
    out.push({ line: start, fields });
  }
  return out;
}

/** Reads a condition file back into a name and steps; a bad row is a 422 naming the row and what is wrong (a step's refused parameter in `lang`). */
export function fromConditionCsv(text: string, lang: Lang = 'en'): { name: string; steps: Step[] } {
  const records = parseCsv(text.replace(/^\uFEFF/, ''), lang);
  if (!records.length) throw new AppError(422, M.fileEmpty, {}, 'file');
  const head = records[0].fields.map((f) => f.trim().toLowerCase());
  if (head.length !== HEADER.length || HEADER.some((h, i) => head[i] !== h)) throw new AppError(422, M.fileHeader, { header: HEADER.join(',') }, 'file');
  if (records.length < 2) throw new AppError(422, M.fileEmpty, {}, 'file');
  // the reason is said in the caller's language, as the message around it
  const bad = (row: number, reason: LocalText | string, values: Record<string, string | number> = {}) =>
    new AppError(422, M.fileRow, { row, reason: typeof reason === 'string' ? reason : localize(lang, reason, values) }, 'file');
  let name = '';
  const rows: { order: number; line: number; step: Step }[] = [];
  for (const { line, fields } of records.slice(1)) {
    if (fields.length !== HEADER.length) throw bad(line, M.rowValueCount, { expected: HEADER.length, found: fields.length });
    const [cname, order, ptype, method, cols, params] = fields.map((f) => restoreCell(f.trim()));
    if (!cname) throw bad(line, M.rowNameEmpty);
    if (name && cname !== name) throw bad(line, M.rowNameDiffers, { name });
    name = cname;
    const n = Number(order);
    if (!Number.isInteger(n) || n < 1) throw bad(line, M.rowStepNumber, { value: order });
    if (!PROCESS_TYPES.includes(ptype as ProcessType)) throw bad(line, M.rowUnknownType, { value: ptype, allowed: PROCESS_TYPES.join(', ') });
    const allowed = METHODS[ptype as ProcessType] as readonly string[];
    if (!allowed.includes(method)) throw bad(line, M.rowUnknownMethod, { method, kind: ptype, allowed: allowed.join(', ') });
    let p: unknown = {};
    if (params) {
      try {
        p = JSON.parse(params);
      } catch {
        throw bad(line, M.rowParamsJson);
      }
      if (!p || typeof p !== 'object' || Array.isArray(p)) throw bad(line, M.rowParamsObject);
    }
    const columns = cols ? cols.split('|').map((c) => c.trim()).filter(Boolean) : [];
    // the same check as a step sent in a request: a parameter the method does not use, or a required one missing, is refused
    const step = stepSchema.safeParse({ process_type: ptype, method, columns, params: p });
    if (!step.success) {
      const issue = step.error.issues[0];
      const own = issue.code === 'custom' ? issue.params : undefined; // a catalogue text (localIssue): in the caller's language
      throw bad(line, own?.localText ? localize(lang, own.localText, own.localValues ?? {}) : `${issue.path.join('.')}: ${issue.message}`);
    }
    rows.push({ order: n, line, step: step.data });
  }
  rows.sort((a, b) => a.order - b.order);
  rows.forEach((r, i) => {
    if (i && r.order === rows[i - 1].order) throw bad(Math.max(r.line, rows[i - 1].line), M.rowStepTwice, { step: r.order });
  });
  return { name, steps: rows.map((r) => r.step) };
}
