/**
 * A model's scores held in memory (typed arrays), so moving the threshold is answered exactly over every row in
 * milliseconds: confusion counts, alarm spans, alarms per day; the chart itself gets a min/max downsample.
 */
export const SPLIT_CODES = ['warmup', 'train', 'validation', 'test'] as const;

export interface Scores {
  n: number;
  pos: Float64Array;
  score: Float64Array; // NaN during the window warm-up
  label: Int8Array; // 1 anomaly, 0 normal, -1 unlabelled
  split: Uint8Array; // index into SPLIT_CODES
  timeMs: Float64Array | null; // epoch ms when the time column is a date/time
  /** the time column's value per row (made when asked for: a long series keeps numbers only, in timeMs) */
  time: Readonly<Record<number, string | number | null>>;
  contrib: Float64Array[]; // per signal, empty when the detector has no contributions
}

export interface ThresholdStats {
  /** test; when the normal period is the whole series, its held-back last part (validation: rows not fitted on);
   * train only for a model trained before there was a held-back part (in sample) */
  evaluated_part: 'test' | 'validation' | 'train';
  evaluated_rows: number;
  labelled: boolean;
  counts: { tp: number; fp: number; fn: number; tn: number } | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  far: number | null;
  mar: number | null;
  alarms: number;
  alarms_per_day: number | null;
  /** alarms per 1,000 evaluated rows: the rate when the time column is an order number (no days to count) */
  alarms_per_1000_rows: number | null;
  spans: [number, number][];
  /** Unsupervised: share of the held-back normal rows (the normal period's last part, not fitted on; labelled
   * anomalies left out) over the threshold; null without held-back rows (supervised: refitted on its validation). */
  heldout_far: number | null;
  heldout_rows: number;
}

const ratio = (a: number, b: number) => (b ? a / b : null);
const TEST = SPLIT_CODES.indexOf('test');
const VALIDATION = SPLIT_CODES.indexOf('validation');
const TRAIN = SPLIT_CODES.indexOf('train');
/** The part the metrics count (timeseries/trainer.py evaluated_part): the test part; else the held-back normal rows; a
 * model trained before the normal period had a held-back part: its training rows (in sample). */
const evaluatedPart = (s: Scores) => (s.split.includes(TEST) ? TEST : s.split.includes(VALIDATION) ? VALIDATION : TRAIN);
const PART_NAMES = { [TEST]: 'test', [VALIDATION]: 'validation', [TRAIN]: 'train' } as const;

/** The rows (series positions) the engine's metrics count, in order: the evaluated part with a score (timeseries/trainer.py evaluate). */
export function evaluatedRows(s: Scores): number[] {
  const EVAL = evaluatedPart(s);
  const rows: number[] = [];
  for (let i = 0; i < s.n; i++) if (s.split[i] === EVAL && !Number.isNaN(s.score[i])) rows.push(i);
  return rows;
}

/** Point-wise metrics on the evaluated part (test), alarm spans over the whole series (at most `maxSpans`). */
export function thresholdStats(s: Scores, threshold: number, supervised = false, maxSpans = 2000): ThresholdStats {
  // the test part; when the normal period is the whole series, its held-back part, as the engine's report
  const EVAL = evaluatedPart(s);
  let tp = 0, fp = 0, fn = 0, tn = 0, evaluated = 0, labelled = false, alarms = 0, held = 0, heldOver = 0;
  let tMin = Infinity, tMax = -Infinity;
  const spans: [number, number][] = [];
  let open = -1;
  for (let i = 0; i < s.n; i++) {
    const v = s.score[i];
    const on = v > threshold; // NaN is never an alarm
    if (on && open < 0) open = i;
    if (!on && open >= 0) {
      if (spans.length < maxSpans) spans.push([open, i - 1]);
      open = -1;
    }
    if (!supervised && s.split[i] === VALIDATION && !Number.isNaN(v) && s.label[i] !== 1) {
      held++;
      if (on) heldOver++;
    }
    if (s.split[i] !== EVAL || Number.isNaN(v)) continue;
    evaluated++;
    if (on && (i === 0 || !(s.score[i - 1] > threshold) || s.split[i - 1] !== EVAL)) alarms++;
    if (s.timeMs) {
      tMin = Math.min(tMin, s.timeMs[i]);
      tMax = Math.max(tMax, s.timeMs[i]);
    }
    const y = s.label[i];
    if (y < 0) continue;
    labelled = true;
    if (on && y) tp++;
    else if (on) fp++;
    else if (y) fn++;
    else tn++;
  }
  if (open >= 0 && spans.length < maxSpans) spans.push([open, s.n - 1]);
  const p = ratio(tp, tp + fp);
  const r = ratio(tp, tp + fn);
  // no anomalous row to detect: F1 cannot be computed (null, never 0), as the engine's metrics.pointwise
  const f1 = tp + fn === 0 ? null : p !== null && r !== null && p + r > 0 ? (2 * p * r) / (p + r) : 0;
  const days = s.timeMs && tMax > tMin ? (tMax - tMin) / 86_400_000 : 0;
  return {
    evaluated_part: PART_NAMES[EVAL],
    evaluated_rows: evaluated,
    labelled,
    counts: labelled ? { tp, fp, fn, tn } : null,
    precision: labelled ? p : null,
    recall: labelled ? r : null,
    f1: labelled ? f1 : null,
    far: labelled ? ratio(fp, fp + tn) : null,
    mar: labelled ? ratio(fn, fn + tp) : null,
    alarms,
    alarms_per_day: days > 0 ? alarms / days : null,
    alarms_per_1000_rows: evaluated > 0 ? (alarms * 1000) / evaluated : null,
    spans,
    heldout_far: held ? heldOver / held : null,
    heldout_rows: held,
  };
}

/**
 * The threshold whose false-alarm rate on the reference rows is at most `far`, the rows without labelled anomalies
 * of: unsupervised, the held-back part of the normal period (not fitted on, so the rate holds on new data);
 * supervised, train + validation (it is refitted on both).
 */
export function thresholdForFar(s: Scores, far: number, supervised = false): number {
  const rows = (parts: string[]) => {
    const out: number[] = [];
    for (let i = 0; i < s.n; i++) if (parts.includes(SPLIT_CODES[s.split[i]]) && s.label[i] !== 1 && !Number.isNaN(s.score[i])) out.push(s.score[i]);
    return out;
  };
  // a model trained before the normal period had a held-back part: its normal period (train)
  const held = supervised ? [] : rows(['validation']);
  const ref = held.length ? held : rows(['train', 'validation']);
  if (!ref.length) return NaN;
  ref.sort((a, b) => a - b);
  const k = Math.floor(far * ref.length);
  return k >= ref.length ? ref[0] : ref[ref.length - 1 - k];
}

/** [first position, min, max] per bucket of positions [start, end]; every row when there are few. */
export function downsample(values: Float64Array, start: number, end: number, points: number): [number, number | null, number | null][] {
  const out: [number, number | null, number | null][] = [];
  const len = end - start + 1;
  if (len <= 0) return out;
  const fin = (v: number) => (Number.isFinite(v) ? v : null);
  if (len <= points) {
    for (let i = start; i <= end; i++) out.push([i, fin(values[i]), fin(values[i])]);
    return out;
  }
  for (let b = 0; b < points; b++) {
    const a = start + Math.floor((b * len) / points);
    const z = start + Math.floor(((b + 1) * len) / points);
    let lo = Infinity, hi = -Infinity;
    for (let i = a; i < z; i++) {
      const v = values[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    out.push([a, Number.isFinite(lo) ? lo : null, Number.isFinite(hi) ? hi : null]);
  }
  return out;
}
