import { describe, expect, it } from 'vitest';
import { decodeSample, detectDelimiter, firstRecords, guessDatetimeColumn, sniffHeader, sniffText, splitRecord } from './csvHeader';

const SJIS_HEADER = new Uint8Array([0x93, 0xfa, 0x8e, 0x9e, 0x2c, 0x89, 0xb7, 0x93, 0x78, 0x0a, 0x31, 0x2c, 0x32, 0x0a]); // 日時,温度\n1,2\n

describe('reading the CSV header in the browser', () => {
  it.each([
    ['a,b,c\n1,2,3\n', ',', ['a', 'b', 'c']],
    ['a;b;c\n1;2;3\n', ';', ['a', 'b', 'c']],
    ['a\tb\tc\n1\t2\t3\n', '\t', ['a', 'b', 'c']],
    ['"x, y";z\n"1,5";2\n', ';', ['x, y', 'z']],
  ])('%j → delimiter %j', (text, delim, columns) => {
    expect(sniffText(text)).toEqual({ delimiter: delim, columns });
  });

  it('keeps quoted newlines and "" escapes inside a field', () => {
    expect(firstRecords('"a\nb",c\n1,2\n')[0]).toBe('"a\nb",c');
    expect(splitRecord('"say ""hi""",b', ',')).toEqual(['say "hi"', 'b']);
    expect(detectDelimiter(['a|b|c', '1|2|3'])).toBe('|');
  });

  it('reads UTF-8 with BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('時刻,値\n')]);
    expect(decodeSample(bytes)).toEqual({ text: '時刻,値\n', encoding: 'utf-8-sig' });
  });

  it('falls back to Shift_JIS when UTF-8 decoding fails', async () => {
    expect(decodeSample(SJIS_HEADER).encoding).toBe('shift_jis');
    const sniff = await sniffHeader(new Blob([SJIS_HEADER]));
    expect(sniff).toEqual({ columns: ['日時', '温度'], delimiter: ',', encoding: 'shift_jis' });
  });

  it('does not mistake a UTF-8 character cut at the end of the sample for Shift_JIS', () => {
    const full = new TextEncoder().encode('温度,圧力\n1,2\n漢');
    expect(decodeSample(full.subarray(0, full.length - 1)).encoding).toBe('utf-8');
  });

  it('guesses a datetime column by name', () => {
    expect(guessDatetimeColumn(['value', 'Timestamp', 'x'])).toBe('Timestamp');
    expect(guessDatetimeColumn(['値', '日時'])).toBe('日時');
    expect(guessDatetimeColumn(['a', 'b'])).toBe('');
  });
});
