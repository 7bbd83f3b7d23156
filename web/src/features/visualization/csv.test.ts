import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe('toCsv', () => {
  it('quotes separators and quotes, leaves numbers plain and blanks missing values', () => {
    expect(toCsv(['a', 'b'], [['x,y', 1.5], ['say "hi"', null], ['温度', Number.NaN]])).toBe('\uFEFFa,b\r\n"x,y",1.5\r\n"say ""hi""",\r\n温度,\r\n');
  });

  it('neutralises spreadsheet formulas in text cells, never numbers (issue 18 item 4)', () => {
    expect(toCsv(['label', 'n'], [['=HYPERLINK("http://evil","x")', -2], ['@SUM(A1)', -0.5], ['-3', 1], ['+SUM(1+1)', 2]])).toBe(
      '\uFEFFlabel,n\r\n"\'=HYPERLINK(""http://evil"",""x"")",-2\r\n\'@SUM(A1),-0.5\r\n-3,1\r\n\'+SUM(1+1),2\r\n',
    );
  });
});
