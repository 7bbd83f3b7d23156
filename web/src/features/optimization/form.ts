import { decimalsOk } from '../training/validate';
import type { Algorithm, ConstraintSetting, FeatureInfo, FeatureKind, FeatureSetting, Goal, Settings, TargetSetting } from './api';

/** The wizard's editable text, turned into the API's settings by `toSettings` (pure, so it is tested alone). */
export interface TargetForm {
  name: string;
  goal: Goal;
  value: string;
  lower: string;
  upper: string;
  weight: string;
}
export interface FeatureForm {
  name: string;
  category: boolean;
  kind: FeatureKind;
  lower: string;
  upper: string;
  values: string; // comma separated (numbers, or levels of a categorical feature)
  value: string;
  unit: string;
}
export interface ConstraintForm {
  name: string;
  type: 'sum' | 'linear';
  terms: string; // sum: "a, b, c"; linear: "0.1*cement + 1*superplasticizer"
  operator: '<=' | '>=' | '=';
  value: string;
}
export interface FormError {
  key: string; // i18n key of the 'optimization' namespace
  params?: Record<string, string>;
}

const text = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));

export function defaultFeature(f: FeatureInfo): FeatureForm {
  if (f.kind === 'category') return { name: f.name, category: true, kind: 'discrete', lower: '', upper: '', values: f.levels.join(', '), value: '', unit: '' };
  return { name: f.name, category: false, kind: 'range', lower: text(f.min), upper: text(f.max), values: '', value: text(f.mean), unit: '' };
}

export const defaultTarget = (name: string): TargetForm => ({ name, goal: 'maximize', value: '', lower: '', upper: '', weight: '1' });

function num(s: string, field: string): number | FormError {
  const v = s.trim();
  if (v === '' || !Number.isFinite(Number(v))) return { key: 'errors.number', params: { field } };
  if (!decimalsOk(v)) return { key: 'errors.decimals', params: { field } };
  return Number(v);
}
const isErr = (v: unknown): v is FormError => typeof v === 'object' && v !== null && 'key' in v;
const list = (s: string) => s.split(/[,、\s]+/).map((x) => x.trim()).filter(Boolean);

export function parseTerms(terms: string): Record<string, number> | FormError {
  const out: Record<string, number> = {};
  for (const part of terms.split('+').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(?:(-?[\d.eE+-]+)\s*\*\s*)?(.+)$/.exec(part);
    if (!m) return { key: 'errors.terms', params: { field: part } };
    const coef = m[1] === undefined ? 1 : Number(m[1]);
    if (!Number.isFinite(coef)) return { key: 'errors.terms', params: { field: part } };
    if (m[1] !== undefined && !decimalsOk(m[1])) return { key: 'errors.decimals', params: { field: part } };
    out[m[2].trim()] = (out[m[2].trim()] ?? 0) + coef;
  }
  return Object.keys(out).length ? out : { key: 'errors.terms', params: { field: terms } };
}

export function toSettings(input: {
  models: Settings['models'];
  targets: TargetForm[];
  features: FeatureForm[];
  constraints: ConstraintForm[];
  algorithms: Algorithm[];
  nTrials: string;
  seed: string;
  forbidExtrapolation: boolean;
}): Settings | FormError {
  if (!input.models.length) return { key: 'errors.noModel' };
  const targets: TargetSetting[] = [];
  for (const t of input.targets) {
    const weight = num(t.weight, t.name);
    if (isErr(weight)) return weight;
    const out: TargetSetting = { name: t.name, goal: t.goal, weight };
    if (t.goal === 'target') {
      const v = num(t.value, t.name);
      if (isErr(v)) return v;
      out.value = v;
    }
    if (t.goal === 'range') {
      const lo = num(t.lower, t.name);
      const hi = num(t.upper, t.name);
      if (isErr(lo)) return lo;
      if (isErr(hi)) return hi;
      if (lo > hi) return { key: 'errors.targetRange', params: { field: t.name } };
      out.lower = lo;
      out.upper = hi;
    }
    targets.push(out);
  }
  const features: FeatureSetting[] = [];
  for (const f of input.features) {
    const base = { name: f.name, kind: f.kind, unit: f.unit.trim(), weight: 1 };
    if (f.category) {
      const levels = list(f.values);
      if (!levels.length) return { key: 'errors.levels', params: { field: f.name } };
      features.push({ ...base, kind: 'discrete', values: levels });
    } else if (f.kind === 'range') {
      const lo = num(f.lower, f.name);
      const hi = num(f.upper, f.name);
      if (isErr(lo)) return lo;
      if (isErr(hi)) return hi;
      if (lo >= hi) return { key: 'errors.rangeInverted', params: { field: f.name } };
      features.push({ ...base, lower: lo, upper: hi });
    } else if (f.kind === 'discrete') {
      const vals: number[] = [];
      for (const v of list(f.values)) {
        const n = num(v, f.name);
        if (isErr(n)) return n;
        vals.push(n);
      }
      if (!vals.length) return { key: 'errors.values', params: { field: f.name } };
      features.push({ ...base, values: vals });
    } else {
      const v = num(f.value, f.name);
      if (isErr(v)) return v;
      features.push({ ...base, value: v });
    }
  }
  const constraints: ConstraintSetting[] = [];
  for (const [i, c] of input.constraints.entries()) {
    const name = c.name.trim() || `constraint ${i + 1}`;
    const value = num(c.value, name);
    if (isErr(value)) return value;
    if (c.type === 'sum') {
      const feats = list(c.terms.replace(/\+/g, ','));
      if (feats.length < 2) return { key: 'errors.sumTwo', params: { field: name } };
      constraints.push({ name, type: 'sum', features: feats, operator: c.operator, value });
    } else {
      const coefficients = parseTerms(c.terms);
      if (isErr(coefficients)) return coefficients;
      constraints.push({ name, type: 'linear', coefficients, operator: c.operator, value });
    }
  }
  if (!input.algorithms.length) return { key: 'errors.algorithm' };
  const n = Number(input.nTrials);
  if (!Number.isInteger(n) || n < 1) return { key: 'errors.trials' };
  const seed = Number(input.seed || 0);
  if (!Number.isInteger(seed) || seed < 0) return { key: 'errors.seed' };
  return { models: input.models, targets, features, constraints, algorithms: input.algorithms, n_trials: n, seed, forbid_extrapolation: input.forbidExtrapolation };
}

export const isFormError = isErr;
