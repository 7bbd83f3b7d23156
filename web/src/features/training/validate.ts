/** The wizard's rules (SPEC §5, §9), pure so they are tested alone; messages are i18n keys of the 'training' namespace. */

import { decimalsOk } from '@mitate/rules';

// SPEC §5's 7-decimals rule is shared with the server; the optimization form takes it from here too.
export { decimalsOk, paramDecimalsOk } from '@mitate/rules';

// the word for the default number of folds, in each language the field is offered in (i18n wizard.cvDefaultWord)
const DEFAULT_WORDS = ['', 'default', '既定'];

export function parseFolds(text: string): 'default' | number | null {
  const s = text.trim().toLowerCase();
  if (DEFAULT_WORDS.includes(s)) return 'default';
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= 2 ? n : null;
}

export function parseIntList(text: string, min: number): number[] | null {
  const s = text.trim();
  if (!s) return [];
  const parts = s.split(/[,\s、]+/).filter(Boolean);
  const out = parts.map(Number);
  if (out.some((n) => !Number.isInteger(n) || n < min)) return null;
  return [...new Set(out)].sort((a, b) => a - b);
}

export function parseDecimal(text: string, lo: number, hi: number): { value?: number; error?: string; params?: Record<string, number> } {
  const s = text.trim();
  if (s === '' || !Number.isFinite(Number(s))) return { error: 'validation.number' };
  if (!decimalsOk(s)) return { error: 'validation.decimals' };
  const v = Number(s);
  if (v < lo || v > hi) return { error: 'validation.range', params: { lo, hi } };
  return { value: v };
}

export interface WizardState {
  name: string;
  target: string | null;
  features: string[];
  models: string[];
  cv: string;
  supervised: boolean;
  targetOptional: boolean;
}

/** Errors by step: 1 overview, 3 parameters, 4 models. */
export function stepErrors(s: WizardState): Record<number, string[]> {
  const e: Record<number, string[]> = {};
  const push = (step: number, key: string) => (e[step] ??= []).push(key);
  if (!s.name.trim()) push(1, 'validation.name');
  if (s.supervised && !s.target) push(1, 'validation.noTarget');
  if (!s.features.length) push(1, 'validation.noFeatures');
  if (s.supervised && parseFolds(s.cv) === null) push(3, 'validation.cv');
  if (!s.models.length) push(4, 'validation.noModels');
  return e;
}

// The model pre-ticked in the wizard, so its defaults train as they stand: LightGBM for the supervised types
// (a strong general default on tables), k-means and PCA for the unsupervised ones; else the catalogue's first.
const PREFERRED = ['lightgbm', 'kmeans', 'pca'];

export function defaultModels(keys: readonly string[]): string[] {
  const k = PREFERRED.find((p) => keys.includes(p)) ?? keys[0];
  return k ? [k] : [];
}
