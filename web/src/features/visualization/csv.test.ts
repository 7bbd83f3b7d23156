import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe('toCsv', () => {
  it('quotes separators and quotes, leaves numbers plain and blanks missing values', () => {
    expect(toCsv(['a', 'b'], [['x,y', 1.5], ['say "hi"', null], ['温度', Number.NaN]])).toBe('\uFEFFa,b\r\n"x,y",1.5\r\n"say ""hi""",\r\n温度,\r\n');
  });
});
