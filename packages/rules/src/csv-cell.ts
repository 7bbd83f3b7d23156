/**
 * The formula rule for every CSV Mitate writes, so a spreadsheet never runs a formula a user typed into
 * their data (OWASP "CSV injection"): a text cell starting with = + - @ tab or carriage return gets a
 * leading single quote. Plain numbers (-3, +1.5e3) stay as they are: they are not formulas. Original
 * uploads are never rewritten; they download byte for byte. The server (http/csv.ts) and the web app's
 * chart CSVs apply it; the engine, in Python, has the same rule in mitate_engine/csvsafe.py.
 */
export const FORMULA_START = /^[=+\-@\t\r]/;
export const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function neutraliseCell(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/** Undoes neutraliseCell when our own file is read back (condition files), so names round-trip. */
export function restoreCell(s: string): string {
  return s.startsWith("'") && FORMULA_START.test(s.slice(1)) && !PLAIN_NUMBER.test(s.slice(1)) ? s.slice(1) : s;
}
