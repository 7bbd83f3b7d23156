import type { TsReport } from './schemas.js';
import { evaluatedRows, type Scores, SPLIT_CODES, thresholdStats } from './scores.js';

/** Alarms listed with contributions, as the engine's report (engine/mitate_engine/timeseries/trainer.py MAX_ALARMS). */
export const MAX_ALARMS = 200;

type Alarm = TsReport['alarms'][number];
type EventLevel = NonNullable<TsReport['metrics']['event']>;

/** [start, end] (inclusive) of each run of true flags (metrics.py runs). */
export function runs(flags: ArrayLike<boolean>): [number, number][] {
  const out: [number, number][] = [];
  let open = -1;
  for (let i = 0; i <= flags.length; i++) {
    const on = i < flags.length && flags[i];
    if (on && open < 0) open = i;
    if (!on && open >= 0) {
      out.push([open, i - 1]);
      open = -1;
    }
  }
  return out;
}

/** The alarm spans over the whole series at `threshold`, each with its peak and mean contributions (trainer.alarm_list). */
export function alarmList(s: Scores, threshold: number, signals: string[], max = MAX_ALARMS): Alarm[] {
  const on = Array.from(s.score, (v) => v > threshold); // NaN is never an alarm
  return runs(on)
    .slice(0, max)
    .map(([start, end]) => {
      let peak = start;
      for (let i = start; i <= end; i++) if (s.score[i] > s.score[peak]) peak = i;
      const item: Alarm = { start, end, start_time: s.time[start] ?? null, end_time: s.time[end] ?? null, peak, peak_score: s.score[peak], part: SPLIT_CODES[s.split[start]] };
      if (s.contrib.length) {
        const mean = signals.map((signal, j) => {
          let sum = 0, n = 0;
          for (let i = start; i <= end; i++) {
            const v = s.contrib[j]?.[i];
            if (v !== undefined && !Number.isNaN(v)) {
              sum += v;
              n++;
            }
          }
          return { signal, value: n ? sum / n : null };
        });
        item.contributions = mean.sort((a, b) => Math.abs(b.value ?? 0) - Math.abs(a.value ?? 0)).slice(0, 10);
      }
      return item;
    });
}

const ratio = (a: number, b: number) => (b ? a / b : null);

/** Event-level metrics on the evaluated rows (metrics.py event_level): events detected, true spans, time to detect. */
export function eventLevel(alarm: boolean[], label: boolean[], timeMs: number[] | null): EventLevel {
  const events = runs(label);
  const spans = runs(alarm);
  let detected = 0;
  const perEvent = events.map(([start, end]) => {
    let hit = -1;
    for (let i = start; i <= end; i++)
      if (alarm[i]) {
        hit = i - start;
        break;
      }
    if (hit >= 0) detected++;
    return {
      start,
      end,
      detected: hit >= 0,
      delay_rows: hit >= 0 ? hit : null,
      ...(hit >= 0 && timeMs ? { delay_seconds: (timeMs[start + hit] - timeMs[start]) / 1000 } : {}),
    };
  });
  const trueSpans = spans.filter(([a, b]) => label.slice(a, b + 1).some(Boolean)).length;
  const p = ratio(trueSpans, spans.length);
  const r = ratio(detected, events.length);
  const f1 = r === null ? null : p && r ? (2 * p * r) / (p + r) : 0;
  return { events: events.length, events_detected: detected, alarm_spans: spans.length, alarm_spans_true: trueSpans, precision: p, recall: r, f1, per_event: perEvent };
}

/**
 * The report's figures at the threshold in force (a saved one, else the trained one; issue 33): the alarm list with its
 * contributions, the alarm counts, point-wise and event-level metrics. The engine wrote them at training's threshold;
 * every figure on the report page follows the one in force.
 */
export function reportAt(report: TsReport, s: Scores, threshold: number, signals: string[], supervised: boolean): TsReport {
  const stats = thresholdStats(s, threshold, supervised);
  const m = report.metrics;
  const metrics: TsReport['metrics'] = {
    ...m,
    threshold,
    alarms: stats.alarms,
    alarms_per_day: stats.alarms_per_day,
    alarms_per_1000_rows: stats.alarms_per_1000_rows,
    ...(m.pointwise && stats.counts ? { pointwise: { ...stats.counts, precision: stats.precision, recall: stats.recall, f1: stats.f1, far: stats.far, mar: stats.mar } } : {}),
  };
  if (m.event) {
    // positions within the evaluated rows, as the engine's (the service turns them into time values)
    const rows = evaluatedRows(s);
    metrics.event = eventLevel(
      rows.map((i) => s.score[i] > threshold),
      rows.map((i) => s.label[i] === 1),
      s.timeMs ? rows.map((i) => s.timeMs![i]) : null,
    );
  }
  return { ...report, threshold, metrics, alarms: alarmList(s, threshold, signals) };
}

/**
 * A predicted file that holds the project's label column: the same figures as the test part (issue 33), over its
 * scored rows with a label. `alarm` and `label` are per row (label null: unlabelled row); `timeMs` when dated.
 */
export function labelledMetrics(alarm: boolean[], label: (boolean | null)[], scored: boolean[], timeMs: number[] | null) {
  const rows: number[] = [];
  for (let i = 0; i < alarm.length; i++) if (scored[i] && label[i] !== null) rows.push(i);
  let tp = 0, fp = 0, fn = 0, tn = 0, alarms = 0;
  rows.forEach((i, k) => {
    const a = alarm[i];
    const y = label[i] === true;
    if (a && (k === 0 || !alarm[rows[k - 1]])) alarms++;
    if (a && y) tp++;
    else if (a) fp++;
    else if (y) fn++;
    else tn++;
  });
  const p = ratio(tp, tp + fp);
  const r = ratio(tp, tp + fn);
  const f1 = tp + fn === 0 ? null : p !== null && r !== null && p + r > 0 ? (2 * p * r) / (p + r) : 0;
  const times = timeMs ? rows.map((i) => timeMs[i]).filter((v) => Number.isFinite(v)) : [];
  const days = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 86_400_000 : 0;
  return {
    rows: rows.length,
    counts: { tp, fp, fn, tn },
    precision: p,
    recall: r,
    f1,
    far: ratio(fp, fp + tn),
    mar: ratio(fn, fn + tp),
    alarms,
    alarms_per_day: days > 0 ? alarms / days : null,
    alarms_per_1000_rows: rows.length ? (alarms * 1000) / rows.length : null,
    event: eventLevel(
      rows.map((i) => alarm[i]),
      rows.map((i) => label[i] === true),
      timeMs ? rows.map((i) => timeMs[i]) : null,
    ),
  };
}
