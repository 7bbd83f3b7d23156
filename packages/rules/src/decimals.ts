/**
 * SPEC §5 / §9: a decimal input takes at most 7 digits after the decimal point. The rule is about the value: a
 * number's digits after the point written out in full (1.12345678e3 is 1123.45678: 5 digits; 1.5e-7 is 0.00000015:
 * 8 digits). Numbers are read as JavaScript writes them (String(v), the shortest text that gives the same number),
 * texts as typed.
 */
export const MAX_DECIMALS = 7;

const NUMBER_TEXT = /^[+-]?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** Digits after the decimal point of the value written out in full; null when the text is not a finite number. */
export function decimalPlaces(v: number | string): number | null {
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  const text = String(v).trim();
  const m = NUMBER_TEXT.exec(text);
  if (!m || !Number.isFinite(Number(text)) || (m[1] === '' && !m[2])) return null;
  // Trailing zeros after the point count as typed ("0.10000000" is 8 digits), as the text rules always did.
  return Math.max(0, (m[2] ?? '').length - Number(m[3] ?? 0));
}

/** At most 7 digits after the point; a text that is no number is not this rule's to refuse (other checks do). */
export function decimalsOk(v: number | string): boolean {
  if (typeof v === 'number' && !Number.isFinite(v)) return false;
  const places = decimalPlaces(v);
  return places === null || places <= MAX_DECIMALS;
}

/**
 * An algorithm parameter's rule: a value written with an exponent (1e-10, a tolerance) is taken as such; other
 * values have at most 7 digits after the point.
 */
export function paramDecimalsOk(v: number | string): boolean {
  return /e/i.test(String(v)) || decimalsOk(v);
}
