import { describe, expect, it } from 'vitest';
import { alarmList, eventLevel, labelledMetrics, reportAt } from '../src/features/timeseries/in-force.js';
import type { TsReport } from '../src/features/timeseries/schemas.js';
import type { Scores } from '../src/features/timeseries/scores.js';

// rows 0-3 train (split 1), 4-11 test (split 3); row 0 the warm-up (NaN); two signals with contributions
const s: Scores = {
  n: 12,
  pos: Float64Array.from({ length: 12 }, (_, i) => i),
  score: Float64Array.from([NaN, 0.1, 0.2, 0.9, 0.1, 0.8, 0.9, 0.2, 0.1, 0.7, 0.95, 0.1]),
  label: Int8Array.from([0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1]),
  split: Uint8Array.from([0, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3]),
  timeMs: Float64Array.from({ length: 12 }, (_, i) => Date.UTC(2026, 0, 1) + i * 60_000),
  time: Array.from({ length: 12 }, (_, i) => `2026-01-01 00:${String(i).padStart(2, '0')}:00`),
  contrib: [Float64Array.from({ length: 12 }, (_, i) => i), Float64Array.from({ length: 12 }, () => -100)],
};

/** What the engine wrote at training's threshold (0.5): three alarms, F1 over events at that threshold. */
const trained = {
  threshold: 0.5,
  metrics: { threshold: 0.5, evaluated_part: 'test', evaluated_rows: 8, alarms: 2, alarms_per_day: null, alarms_per_1000_rows: 250, train_alarm_rate: 0.33, pointwise: { tp: 3, fp: 1, fn: 2, tn: 2, precision: 0.75, recall: 0.6, f1: 0.667, far: 0.33, mar: 0.4 }, event: { events: 2, events_detected: 2, alarm_spans: 2, alarm_spans_true: 2, precision: 1, recall: 1, f1: 1, per_event: [] } },
  alarms: [{ start: 3, end: 3 }, { start: 5, end: 6 }, { start: 9, end: 10 }],
} as unknown as TsReport;

describe('a time-series report at the threshold in force (issue 33)', () => {
  it('lists the alarms at the threshold with their peak, part and mean contributions, largest first', () => {
    const a = alarmList(s, 0.85, ['a', 'b']);
    expect(a.map((x) => [x.start, x.end, x.peak, x.peak_score, x.part])).toEqual([
      [3, 3, 3, 0.9, 'train'],
      [6, 6, 6, 0.9, 'test'],
      [10, 10, 10, 0.95, 'test'],
    ]);
    expect(a[1].start_time).toBe('2026-01-01 00:06:00');
    expect(a[1].contributions).toEqual([{ signal: 'b', value: -100 }, { signal: 'a', value: 6 }]);
  });

  it('counts events, true spans and time to detect as metrics.py event_level does', () => {
    // alarms on rows 1-2 and 5; events on rows 2-3 and 6-7
    const e = eventLevel([false, true, true, false, false, true, false, false], [false, false, true, true, false, false, true, true], [0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * 1000));
    expect(e).toMatchObject({ events: 2, events_detected: 1, alarm_spans: 2, alarm_spans_true: 1, precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(e.per_event).toEqual([
      { start: 2, end: 3, detected: true, delay_rows: 0, delay_seconds: 0 },
      { start: 6, end: 7, detected: false, delay_rows: null },
    ]);
  });

  it('rewrites every figure of a report saved at another threshold', () => {
    const r = reportAt(trained, s, 0.85, ['a', 'b'], false);
    expect(r.threshold).toBe(0.85);
    expect(r.metrics.threshold).toBe(0.85);
    expect(r.alarms).toHaveLength(3); // row 3 (train), 6, 10
    expect(r.alarms.every((a) => (a.peak_score ?? 0) > 0.85)).toBe(true);
    // test rows 4..11 at 0.85: alarms at 6 and 10 (two spans starting in the test part)
    expect(r.metrics.alarms).toBe(2);
    expect(r.metrics.pointwise).toMatchObject({ tp: 2, fp: 0, fn: 3, tn: 3 });
    // test-part events: rows 5-7 (detected at its second row, 6) and 10-11 (at once)
    expect(r.metrics.event).toMatchObject({ events: 2, events_detected: 2, alarm_spans: 2, alarm_spans_true: 2 });
    expect(r.metrics.event!.per_event.map((x) => [x.detected, x.delay_rows, x.delay_seconds])).toEqual([
      [true, 1, 60],
      [true, 0, 0],
    ]);
    // a higher threshold: fewer alarms, a missed event
    const high = reportAt(trained, s, 0.92, ['a', 'b'], false);
    expect(high.alarms.map((a) => a.start)).toEqual([10]);
    expect(high.metrics.event).toMatchObject({ events_detected: 1 });
  });

  it("measures a predicted file against its own label column, unlabelled and unscored rows left out", () => {
    const alarm = [false, true, true, false, true, false];
    const label = [false, true, null, false, false, true];
    const scored = [false, true, true, true, true, true];
    const m = labelledMetrics(alarm, label, scored, null);
    // rows 1, 3, 4, 5: alarm/label (t,t) (f,f) (t,f) (f,t)
    expect(m).toMatchObject({ rows: 4, counts: { tp: 1, fp: 1, fn: 1, tn: 1 }, precision: 0.5, recall: 0.5, far: 0.5, mar: 0.5, alarms: 2, alarms_per_day: null, alarms_per_1000_rows: 500 });
    expect(m.event).toMatchObject({ events: 2, events_detected: 1 });
  });
});
