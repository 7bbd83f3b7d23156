import type { TFunction } from 'i18next';

/** Translated labels of the dataset enums; an unknown value is shown as it is. */
export const trainingTypeLabel = (t: TFunction, v: string | null | undefined) =>
  v ? t(`dataset.trainingTypes.${v}`, { defaultValue: v }) : '';
export const dataTypeLabel = (t: TFunction, v: string | null | undefined) => (v ? t(`dataset.dataTypes.${v}`, { defaultValue: v }) : '');
export const typeLabel = (t: TFunction, v: string | null | undefined) => (v ? t(`dataset.types.${v}`, { defaultValue: v }) : '');

export function delimiterLabel(t: TFunction, d: string | null | undefined): string {
  if (d === undefined || d === null) return '';
  const key = d === ',' ? 'comma' : d === ';' ? 'semicolon' : d === '\t' ? 'tab' : d === '|' ? 'pipe' : null;
  return key ? t(`dataset.delimiters.${key}`) : JSON.stringify(d);
}

export function encodingLabel(e: string | null | undefined): string {
  if (!e) return '';
  if (e === 'cp932') return 'Shift_JIS (CP932)';
  if (e === 'utf-8-sig') return 'UTF-8 (BOM)';
  if (e === 'utf-8') return 'UTF-8';
  return e;
}

/** The column kinds the app names (i18n dataset.columnTypes); engine and database spellings map onto them. */
const COLUMN_KINDS: [RegExp, string][] = [
  [/^(integer|int\d*|bigint|smallint|tinyint|hugeint|uint\d*|ubigint|uinteger|usmallint|utinyint)$/i, 'integer'],
  [/^(float\d*|double|real|decimal.*|numeric.*)$/i, 'float'],
  [/^(string|varchar|text|object|category|enum.*)$/i, 'string'],
  [/^(boolean|bool)$/i, 'boolean'],
  [/^(datetime.*|timestamp.*)$/i, 'datetime'],
  [/^date$/i, 'date'],
  [/^other$/i, 'other'],
];

export const columnKind = (type: string): string | null => COLUMN_KINDS.find(([re]) => re.test(type.trim()))?.[1] ?? null;

/** One name for a column's type on every page (integer, decimal number, text…), whichever spelling the data carries. */
export function columnTypeLabel(t: TFunction, type: string | null | undefined): string {
  if (!type) return '';
  const kind = columnKind(type);
  return kind ? t(`dataset.columnTypes.${kind}`, { ns: 'translation' }) : type; // an unknown spelling stays as the data has it
}
