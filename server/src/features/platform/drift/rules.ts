import type { DriftFeature, DriftSettings } from './schemas.js';
import { driftSettings, WARNINGS } from './schemas.js';

/** A project's settings: the saved ones over the defaults (a saved value that no longer validates is dropped). */
export function settingsOf(saved: unknown): DriftSettings {
  const parsed = driftSettings.safeParse(saved ?? {});
  return parsed.success ? parsed.data : driftSettings.parse({});
}

/**
 * Which thresholds a feature's figures cross. A shift needs both an effect (PSI at or above `psi`) and that it is not
 * chance (the two-sample test's p below `p_value`): PSI alone is noisy over small windows, and a test alone flags
 * negligible shifts over large ones. Values outside the training range and missing values warn on their own.
 * Nothing warns below `min_rows` rows.
 */
export function warningsOf(f: Omit<DriftFeature, 'warnings'>, s: DriftSettings, rows: number): DriftFeature['warnings'] {
  if (rows < s.min_rows) return [];
  const out: (typeof WARNINGS)[number][] = [];
  if (f.psi !== null && f.p_value !== null && f.psi >= s.psi && f.p_value < s.p_value) out.push('shift');
  if (f.outside !== null && f.outside >= s.outside && f.outside > 0) out.push('outside');
  if (f.missing !== null && f.missing >= s.missing && f.missing > 0) out.push('missing');
  return out;
}

/** The window of rows a check compares: the last `window_hours`, at most `window_rows` rows. */
export function windowStart(s: DriftSettings, now = Date.now()): string {
  return new Date(now - s.window_hours * 3600_000).toISOString();
}

/** Whether a check starts by itself: enough new rows sampled since the last check, and long enough after it. */
export function autoDue(s: DriftSettings, newRows: number, running: boolean, lastStarted: string | undefined, now = Date.now()): boolean {
  if (s.auto_every <= 0 || running || newRows < s.auto_every) return false;
  return !lastStarted || now - Date.parse(lastStarted) >= s.auto_minutes * 60_000;
}
