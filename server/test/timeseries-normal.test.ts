import { describe, expect, it } from 'vitest';
import { defaultNormalRows, heldBackSplit, MIN_NORMAL_ROWS, rowsToFit } from '../src/features/timeseries/normal.js';

describe('the normal period as the engine splits it (timeseries/trainer.py hold_back)', () => {
  it('holds back the last 30 %, halves rounded up as the engine does', () => {
    expect(heldBackSplit(500)).toEqual({ fit: 350, held: 150 });
    expect(heldBackSplit(15)).toEqual({ fit: 10, held: 5 }); // 4.5 held: up
    expect(heldBackSplit(96)).toEqual({ fit: 67, held: 29 });
    // 32 rows: 22 fitted on, 9.6 -> 10 held back; 31: only 9 held back
    expect(MIN_NORMAL_ROWS).toBe(32);
    expect(heldBackSplit(32)).toEqual({ fit: 22, held: 10 });
    expect(heldBackSplit(31).held).toBe(9);
  });
  it('finds the fewest rows whose fitted part is long enough', () => {
    for (const fit of [1, 10, 50, 70, 71, 333]) {
      const u = rowsToFit(fit);
      expect(heldBackSplit(u).fit).toBeGreaterThanOrEqual(fit);
      expect(heldBackSplit(u - 1).fit).toBeLessThan(fit);
    }
  });
  it('offers the rows before the first anomaly, all rows when none is anomalous, else the first half', () => {
    expect(defaultNormalRows(960, true, 160)).toEqual({ rows: 160, source: 'label_before_first_anomaly' });
    expect(defaultNormalRows(500, true, null)).toEqual({ rows: 500, source: 'label_all_normal' });
    expect(defaultNormalRows(960, false, null)).toEqual({ rows: 480, source: 'first_half' });
    // an anomaly too early to leave enough rows (after the warm-up) to fit and hold back: the first half, confirmed by a person
    expect(defaultNormalRows(960, true, 40, 10)).toEqual({ rows: 480, source: 'first_half' });
    expect(defaultNormalRows(60, false, null, 5)).toEqual({ rows: 37, source: 'first_half' }); // 5 warm-up + 32
  });
});
