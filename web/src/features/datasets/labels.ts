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
