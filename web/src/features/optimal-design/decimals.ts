/** SPEC §5: decimal inputs take at most 7 digits after the decimal point. */
export const MAX_DECIMALS = 7;
export function decimalsOk(text: string): boolean {
  const m = /\.(\d+)$/.exec(text.trim());
  return !m || m[1].length <= MAX_DECIMALS;
}
export function parseNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
