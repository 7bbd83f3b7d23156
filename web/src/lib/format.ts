import i18n from '../i18n';

const locale = () => (i18n.language === 'ja' ? 'ja-JP' : 'en-GB');

/** The user's display settings (SPEC §9): 12/24-hour clock and the time-zone offset, default +9 h. */
export interface DisplaySettings {
  clock24h: boolean;
  /** minutes east of UTC */
  tzOffsetMinutes: number;
}
export const DISPLAY_KEY = 'mitate.display';
export const DEFAULT_DISPLAY: DisplaySettings = { clock24h: true, tzOffsetMinutes: 540 };

function readDisplay(): DisplaySettings {
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(DISPLAY_KEY) : null;
    const v = raw ? (JSON.parse(raw) as Partial<DisplaySettings>) : {};
    return {
      clock24h: typeof v.clock24h === 'boolean' ? v.clock24h : DEFAULT_DISPLAY.clock24h,
      tzOffsetMinutes: typeof v.tzOffsetMinutes === 'number' && Number.isFinite(v.tzOffsetMinutes) ? v.tzOffsetMinutes : DEFAULT_DISPLAY.tzOffsetMinutes,
    };
  } catch {
    return { ...DEFAULT_DISPLAY };
  }
}

let display = readDisplay();

export const getDisplaySettings = (): DisplaySettings => display;

/** Applies (and remembers) the settings; every date shown afterwards uses them. */
export function setDisplaySettings(next: Partial<DisplaySettings>): void {
  display = { ...display, ...next };
  try {
    localStorage.setItem(DISPLAY_KEY, JSON.stringify(display));
  } catch {
    /* private mode: this tab still uses them */
  }
}

/** 'UTC+09:00', 'UTC-05:30' */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Dates are shown at the user's time-zone offset (default +9 h) with their 12/24-hour choice (SPEC §9). */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  // Shift by the offset and format as UTC: the result is the wall-clock time at that offset.
  const shifted = new Date(d.getTime() + display.tzOffsetMinutes * 60_000);
  return new Intl.DateTimeFormat(locale(), {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hour12: !display.clock24h,
    timeZone: 'UTC',
  }).format(shifted);
}

export function formatInteger(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '';
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: 0 }).format(value);
}

/** A column's count of distinct values; ≈ before an estimate (the server counts exactly up to a million rows). */
export function formatUnique(column: { unique?: number | null; unique_exact?: boolean }): string {
  const n = formatInteger(column.unique ?? null);
  return n && column.unique_exact !== true ? `≈ ${n}` : n;
}

/** Numbers in statistics: up to 4 significant decimals, exponent for tiny and huge values. */
export function formatNumber(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return formatInteger(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e12)) return value.toExponential(3);
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: abs >= 100 ? 2 : 4 }).format(value);
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

export function formatMegabytes(mb: number): string {
  return `${mb} MB`;
}

/**
 * An axis tick: ECharts already picks round steps; this writes them in the user's locale, with as many decimals
 * as the step needs (float noise such as 0.30000000000000004 removed), and exponents only for extreme values.
 */
export function formatAxisNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e15)) return value.toExponential(1);
  return new Intl.NumberFormat(locale(), { maximumSignificantDigits: 10 }).format(Number(value.toPrecision(10)));
}
