import { describe, expect, it } from 'vitest';
import { decimalsOk } from '@mitate/rules';
import { parseNumber } from './numbers';
import { ternaryXY } from './charts';

describe('optimal design helpers', () => {
  it('accepts at most 7 decimals (SPEC §5)', () => {
    expect(decimalsOk('0.1234567')).toBe(true);
    expect(decimalsOk('0.12345678')).toBe(false);
    expect(decimalsOk('12')).toBe(true);
    expect(parseNumber('')).toBeUndefined();
    expect(parseNumber('x')).toBeUndefined();
    expect(parseNumber('0.5')).toBe(0.5);
  });

  it('places blends on the ternary triangle', () => {
    expect(ternaryXY(1, 0, 0)).toEqual([0, 0]);
    expect(ternaryXY(0, 1, 0)).toEqual([1, 0]);
    const [x, y] = ternaryXY(0, 0, 1);
    expect(x).toBeCloseTo(0.5, 12);
    expect(y).toBeCloseTo(Math.sqrt(3) / 2, 12);
    const [cx, cy] = ternaryXY(1 / 3, 1 / 3, 1 / 3);
    expect(cx).toBeCloseTo(0.5, 12);
    expect(cy).toBeCloseTo(Math.sqrt(3) / 6, 12);
  });
});
