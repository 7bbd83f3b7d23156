import { describe, expect, it } from 'vitest';
import { downsample, type Scores, thresholdForFar, thresholdStats } from '../src/features/timeseries/scores.js';

const make = (score: number[], label: number[], split: number[]): Scores => ({
  n: score.length,
  pos: Float64Array.from(score, (_, i) => i),
  score: Float64Array.from(score),
  label: Int8Array.from(label),
  split: Uint8Array.from(split),
  timeMs: null,
  time: score.map((_, i) => i),
  contrib: [],
});

describe('threshold metrics over every row', () => {
  // rows 0-3 train (split 1), 4-11 test (split 3); NaN is the warm-up and never alarms
  const s = make([NaN, 0.1, 0.2, 0.9, 0.1, 0.8, 0.9, 0.2, 0.1, 0.7, 0.95, 0.1], [0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1], [0, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3]);
  it('counts by hand on the test part, with spans over the whole series', () => {
    const r = thresholdStats(s, 0.5);
    // test rows 4..11: alarms at 5,6,9,10; labels at 5,6,7,10,11
    expect(r.counts).toEqual({ tp: 3, fp: 1, fn: 2, tn: 2 });
    expect(r.precision).toBeCloseTo(3 / 4);
    expect(r.recall).toBeCloseTo(3 / 5);
    expect(r.far).toBeCloseTo(1 / 3);
    expect(r.mar).toBeCloseTo(2 / 5);
    expect(r.spans).toEqual([[3, 3], [5, 6], [9, 10]]);
    expect(r.alarms).toBe(2); // spans starting in the test part
    expect(r.evaluated_part).toBe('test');
    // row numbers, not dates: no alarms per day, 2 alarms over 8 evaluated rows = 250 per 1,000 rows
    expect(r.alarms_per_day).toBeNull();
    expect(r.alarms_per_1000_rows).toBe(250);
  });
  it('turns a target false-alarm rate into a threshold on the normal training rows', () => {
    // training scores 0.1, 0.2, 0.9: 0 % false alarms needs the largest, 34 % allows one above
    expect(thresholdForFar(s, 0)).toBe(0.9);
    expect(thresholdForFar(s, 0.34)).toBe(0.2);
  });
  it('evaluates on the held-back normal rows when there is no test part, with F1 null (nothing to detect)', () => {
    // rows 0-5 fitted on (split 1), 6-9 held back (split 2); all labelled normal
    const t = make([0.1, 2, 0.3, 0.2, 0.1, 0.4, 0.3, 1.5, 0.2, 0.1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 2, 2, 2, 2]);
    const r = thresholdStats(t, 1);
    expect(r).toMatchObject({ evaluated_part: 'validation', evaluated_rows: 4, counts: { tp: 0, fp: 1, fn: 0, tn: 3 }, far: 0.25, heldout_far: 0.25, heldout_rows: 4 });
    expect(r.f1).toBeNull();
    expect(r.recall).toBeNull();
    // a supervised model is refitted on its validation period: no held-back figure
    expect(thresholdStats(t, 1, true).heldout_far).toBeNull();
    // a target false-alarm rate reads the held-back rows (0.1, 0.2, 0.3, 1.5), not the fitted ones (whose 2 would win)
    expect(thresholdForFar(t, 0)).toBe(1.5);
    expect(thresholdForFar(t, 0.25)).toBe(0.3);
    expect(thresholdForFar(t, 0, true)).toBe(2);
  });
  it('evaluates in sample a model trained before there was a held-back part', () => {
    const t = make([0.1, 2, 0.3], [0, 1, 0], [1, 1, 1]);
    expect(thresholdStats(t, 1)).toMatchObject({ evaluated_part: 'train', evaluated_rows: 3, counts: { tp: 1, fp: 0, fn: 0, tn: 2 } });
    expect(thresholdForFar(t, 0)).toBe(0.3); // its normal rows; the labelled anomaly left out
  });
  it('keeps every spike in the min/max downsample', () => {
    const v = new Float64Array(1000).fill(0);
    v[777] = 5;
    const d = downsample(v, 0, 999, 10);
    expect(d).toHaveLength(10);
    expect(d[7]).toEqual([700, 0, 5]);
  });
});
