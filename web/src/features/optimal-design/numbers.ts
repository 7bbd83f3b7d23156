/** A typed number, or undefined for an empty or non-numeric text (the decimals rule is @mitate/rules'). */
export function parseNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
