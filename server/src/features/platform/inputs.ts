/**
 * Rules on what a hosted API's caller sent, shared by every way a request is answered (the in-process serving plan
 * and the Python serving processes), so both give the same answer to the same body.
 */

/** A number written as text, as a CSV body carries it: optional sign, digits with an optional decimal point, an
 * optional exponent; spaces around it are ignored. Not "NaN", "Infinity", hexadecimal, thousands separators or units. */
const NUMBER_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** The longest part of a sent value a refusal quotes back. */
export const QUOTE_MAX = 80;

/** `v` cut to `max` characters (an ellipsis marks the cut; a character made of two UTF-16 units is never split). */
export function clip(v: string, max = QUOTE_MAX): string {
  if (v.length <= max) return v;
  const end = /[\uD800-\uDBFF]/.test(v[max - 1]) ? max - 1 : max;
  return `${v.slice(0, end)}…`;
}

export type NumberRefusal = { column: string; value: string };

/**
 * JSON rows with every numeric column's text read as a number, the one rule of both serving paths: a value sent as
 * text ("27", " -1.5e3 ") in a numeric column is that number, as it would be in a CSV body; any other text there
 * ("27 kg", "hot", "", "NaN") is refused, quoting the value cut to QUOTE_MAX characters. Numbers, null (missing)
 * and booleans pass as they are, and so do the columns a model does not read as numbers. Rows are copied only when
 * a value changes.
 */
export function readNumbers(rows: unknown[], numeric: readonly string[]): { rows: unknown[] } | { refused: NumberRefusal } {
  let out: unknown[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row === null || typeof row !== 'object' || Array.isArray(row)) continue; // the body's shape is checked later
    let copy: Record<string, unknown> | null = null;
    for (const c of numeric) {
      const v = (row as Record<string, unknown>)[c];
      if (typeof v !== 'string') continue;
      const n = NUMBER_TEXT.test(v) ? Number(v) : NaN;
      if (!Number.isFinite(n)) return { refused: { column: c, value: clip(v) } };
      copy ??= { ...(row as Record<string, unknown>) };
      copy[c] = n;
    }
    if (copy) {
      out ??= rows.slice();
      out[i] = copy;
    }
  }
  return { rows: out ?? rows };
}

/** The numeric columns of a model's manifest (model_columns kinds, among the features the caller sends). */
export function numericColumns(manifest: { features?: unknown; model_columns?: unknown }): string[] {
  const features = Array.isArray(manifest.features) ? manifest.features.filter((f): f is string => typeof f === 'string') : [];
  const kinds = manifest.model_columns && typeof manifest.model_columns === 'object' ? (manifest.model_columns as Record<string, unknown>) : {};
  return features.filter((f) => kinds[f] === 'numeric');
}
