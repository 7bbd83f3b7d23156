import type { Algorithm, VariableType } from './api';

/** A variable of the design wizard as typed. */
export interface VarDraft {
  name: string;
  type: VariableType;
  low: string;
  high: string;
  levels: string;
}
export interface ConstraintDraft {
  coefficients: string;
  op: '<=' | '>=' | '=';
  total: string;
}
export const CLASSICAL_SIZE: Algorithm[] = ['full_factorial', 'fractional_factorial', 'central_composite', 'box_behnken', 'simplex_lattice', 'simplex_centroid'];

/** "A=1, B=2" as coefficients by variable; null when a part is not name=number. */
export function parseCoefficients(text: string): Record<string, number> | null {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!name || !Number.isFinite(n)) return null;
    out[name] = n;
  }
  return Object.keys(out).length ? out : null;
}
