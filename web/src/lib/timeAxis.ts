/** Labels for the rows' times on a chart axis: date-times (ISO, no zone, as stored) shortened to the parts that
 * change over the span shown; row-order numbers as they are. Parsed as text, so the browser's zone never shifts them. */

type Time = string | number | null | undefined;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

interface Parts {
  y: string;
  mo: string;
  d: string;
  h: string;
  mi: string;
  s: string;
  ms: number;
}

function parts(v: Time): Parts | null {
  if (typeof v !== 'string') return null;
  const m = ISO.exec(v);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = m;
  return { y, mo, d, h, mi, s, ms: Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) };
}

/** A date-time's place on a time axis (ms, as written: no zone applied); null when it is not one. */
export function timeMs(v: Time): number | null {
  return parts(v)?.ms ?? null;
}

/** A place on a time axis (timeMs) back as its ISO text, for formatTime. */
export const isoOf = (ms: number) => new Date(ms).toISOString().slice(0, 19);

export type TimeFormat = 'seconds' | 'minutes' | 'dayMinutes' | 'date' | 'month' | 'number';

/** The format for a span: seconds under 10 minutes, hours and minutes within one day, day and time up to 31 days,
 * the date up to two years, else year and month. */
export function formatFor(times: Time[]): TimeFormat {
  const ps = times.map(parts).filter((p): p is Parts => p !== null);
  if (!ps.length) return 'number';
  const first = ps[0];
  const last = ps[ps.length - 1];
  const span = Math.abs(last.ms - first.ms);
  const minute = 60_000;
  const day = 24 * 60 * minute;
  const sameDay = first.y === last.y && first.mo === last.mo && first.d === last.d;
  if (span < 10 * minute && sameDay) return 'seconds';
  if (sameDay) return 'minutes';
  if (span <= 31 * day) return 'dayMinutes';
  if (span <= 730 * day) return 'date';
  return 'month';
}

/** One time as the format says; a value that is not a date-time is shown as it is. */
export function formatTime(v: Time, f: TimeFormat): string {
  if (v === null || v === undefined) return '';
  const p = f === 'number' ? null : parts(v);
  if (!p) return typeof v === 'number' ? String(v) : String(v).slice(0, 19);
  switch (f) {
    case 'seconds':
      return `${p.h}:${p.mi}:${p.s}`;
    case 'minutes':
      return `${p.h}:${p.mi}`;
    case 'dayMinutes':
      return `${p.mo}-${p.d} ${p.h}:${p.mi}`;
    case 'date':
      return `${p.y}-${p.mo}-${p.d}`;
    default:
      return `${p.y}-${p.mo}`;
  }
}

/** The date the labels leave out (their day when they show only the time of day; the year for day and time), or null. */
export function axisNote(times: Time[], f: TimeFormat): string | null {
  const p = times.map(parts).find((x) => x !== null);
  if (!p) return null;
  if (f === 'seconds' || f === 'minutes') return `${p.y}-${p.mo}-${p.d}`;
  if (f === 'dayMinutes') return p.y;
  return null;
}

/** A time in full for text beside the chart (date and time to the second; numbers as they are). */
export function fullTime(v: Time): string {
  if (v === null || v === undefined) return '';
  const p = parts(v);
  return p ? `${p.y}-${p.mo}-${p.d} ${p.h}:${p.mi}:${p.s}` : String(v);
}

/** An axis tick with as many decimals as the step between ticks needs (0.0312, 0.0325… rather than 0.03, 0.03…). */
export const tickLabel = (v: number, step: number) => {
  if (Math.abs(v) >= 1e5 || (step > 0 && step < 1e-4)) return v.toExponential(2);
  const decimals = step >= 10 ? 0 : Math.min(6, Math.max(0, Math.ceil(-Math.log10(step || 1)) + 1));
  return v.toFixed(decimals);
};
