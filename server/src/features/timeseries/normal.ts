import { ident } from '../../duck/index.js';
import { AppError } from '../../http/errors.js';
import { M } from './messages.js';

/**
 * The normal period's rules, as the engine applies them (engine/mitate_engine/timeseries/trainer.py HOLD_BACK, hold_back,
 * prepare): the unsupervised detectors are fitted on its first part and set their thresholds on its held-back last
 * part, time order kept; and the default period a person is offered.
 */
export const HOLD_BACK = 0.3;
const MIN_FIT = 10;
const MIN_HELD_BACK = 10;

/** Rows fitted on and held back of a normal period of `rows` usable rows (after the warm-up). */
export function heldBackSplit(rows: number): { fit: number; held: number } {
  const held = Math.round(rows * HOLD_BACK);
  return { fit: rows - held, held };
}

/** The fewest usable rows of a normal period: enough to fit on and enough held back to set a threshold on. */
export const MIN_NORMAL_ROWS = (() => {
  let u = MIN_FIT + MIN_HELD_BACK;
  while (heldBackSplit(u).fit < MIN_FIT || heldBackSplit(u).held < MIN_HELD_BACK) u++;
  return u;
})();

export type NormalSource = 'label_before_first_anomaly' | 'label_all_normal' | 'first_half';

/**
 * The normal period offered by default, in rows from the start (time order): with a label, every row before the
 * first anomalous one (all rows when none is anomalous); without one, or when that leaves too few rows to fit and
 * hold back, the first half, which the person confirms on the chart.
 *
 * Not every row labelled normal (issue 30 asked): the held-back last part of such a period would be the normal rows
 * after the anomalies, its threshold set there, and no normal row would be left to measure false alarms on. On the
 * SKAB files the held-back block is then all post-anomaly rows and recall drops from 0.83 to 0.08 on valve1/0
 * (bench/results/tsad_defaults.json, normal_period_rules).
 */
export function defaultNormalRows(total: number, labelled: boolean, beforeFirstAnomaly: number | null, warm = 0): { rows: number; source: NormalSource } {
  const enough = (rows: number) => rows - warm >= MIN_NORMAL_ROWS;
  if (labelled && beforeFirstAnomaly === null && enough(total)) return { rows: total, source: 'label_all_normal' };
  if (labelled && beforeFirstAnomaly !== null && enough(beforeFirstAnomaly)) return { rows: beforeFirstAnomaly, source: 'label_before_first_anomaly' };
  return { rows: Math.max(warm + MIN_NORMAL_ROWS, Math.floor(total / 2)), source: 'first_half' };
}

/** The fewest usable normal-period rows whose fitted part has at least `fit` rows. */
export function rowsToFit(fit: number): number {
  let u = Math.max(0, Math.floor(fit / (1 - HOLD_BACK)) - 1);
  while (heldBackSplit(u).fit < fit) u++;
  return u;
}

/** Anomaly = any label other than 0 / false / normal / ok (the engine's timeseries.model.binarize reads labels the same way); NULL without a label. */
export function anomalousSql(target: string | null, type: string | undefined): string {
  if (!target) return 'NULL';
  return type === 'string' ? `lower(trim(CAST(${ident(target)} AS VARCHAR))) NOT IN ('0', '0.0', 'false', 'normal', 'ok', '')` : `coalesce(CAST(${ident(target)} AS DOUBLE), 0) <> 0`;
}

/** Date/time given as epoch ms or text, as the naive ISO text DuckDB and pandas compare with stored timestamps. */
export function normalTime(v: string | number): string {
  const d = typeof v === 'number' || /^\d+$/.test(String(v)) ? new Date(Number(v)) : new Date(String(v).endsWith('Z') || /[+-]\d\d:\d\d$/.test(String(v)) ? String(v) : `${v}Z`);
  if (Number.isNaN(d.getTime())) throw new AppError(422, M.badRange, {}, 'normal');
  return d.toISOString().replace('Z', '').replace('T', ' ');
}
