import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { sqlString, withConnection } from '../src/duck/index.js';
import { downsample, type Scores, SPLIT_CODES, thresholdForFar, thresholdStats } from '../src/features/timeseries/scores.js';
import { readSeriesFile } from '../src/features/timeseries/series-file.js';

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

describe('reading a detector series file', () => {
  // Rows stored out of order across several chunks (DuckDB hands out 2,048 rows a chunk): each row must still land at
  // its own position, with an empty label as -1, an empty contribution as NaN and the time as epoch ms.
  it('puts every row at its position, whatever order the file holds them in', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ts-series-'));
    const duck = await DuckDBInstance.create(':memory:', { threads: '2' });
    try {
      const file = path.join(dir, 'series.parquet');
      const n = 5000;
      await withConnection(duck, (c) =>
        c.run(`COPY (SELECT i AS pos, TIMESTAMP '2024-01-01' + to_seconds(i) AS "time", i / 10.0 AS score,
          CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 END AS label, CASE WHEN i < 3000 THEN 'train' ELSE 'test' END AS split,
          CASE WHEN i % 11 = 0 THEN NULL ELSE -i END AS c_1, i * 2.0 AS c_0
          FROM range(${n}) t(i) ORDER BY hash(i)) TO ${sqlString(file)} (FORMAT parquet, ROW_GROUP_SIZE 700)`),
      );
      const s = await readSeriesFile(duck, file, true);
      expect(s.n).toBe(n);
      for (const i of [0, 1, 7, 11, 2047, 2048, 2999, 3000, 4999]) {
        expect(s.pos[i]).toBe(i);
        expect(s.score[i]).toBeCloseTo(i / 10, 12);
        expect(s.label[i]).toBe(i % 7 === 0 ? -1 : i % 2);
        expect(SPLIT_CODES[s.split[i]]).toBe(i < 3000 ? 'train' : 'test');
        expect(s.timeMs![i]).toBe(Date.UTC(2024, 0, 1) + i * 1000);
        expect(s.contrib[0][i]).toBe(i * 2);
        if (i % 11 === 0) expect(s.contrib[1][i]).toBeNaN();
        else expect(s.contrib[1][i]).toBe(-i);
      }
      expect(s.time[61]).toBe('2024-01-01T00:01:01.000');
    } finally {
      duck.closeSync();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
