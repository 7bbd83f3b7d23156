import { neutraliseCell } from '@mitate/rules';
import { saveBlob } from '../../lib/browser';

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  // Text from the user's data (category names, labels) must not become a live spreadsheet formula.
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : neutraliseCell(String(v));
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** RFC 4180 CSV with a BOM, so spreadsheet programs read Japanese text correctly. */
export function toCsv(header: string[], rows: unknown[][]): string {
  return `\uFEFF${[header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

export function downloadCsv(fileName: string, header: string[], rows: unknown[][]): void {
  saveBlob(new Blob([toCsv(header, rows)], { type: 'text/csv;charset=utf-8' }), fileName.endsWith('.csv') ? fileName : `${fileName}.csv`);
}
