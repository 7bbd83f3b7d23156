import { describe, expect, it } from 'vitest';
import { FONT_STACK, SHIPPED_JAPANESE_FONT } from '../lib/fonts';
import { nonLatinText, withAppFont } from './font';

describe('withAppFont', () => {
  it('gives every chart the app font stack, keeping the rest of its text style', () => {
    const o = withAppFont({ textStyle: { fontSize: 11 }, xAxis: { name: '件数' } }) as Record<string, unknown>;
    expect(o.textStyle).toEqual({ fontSize: 11, fontFamily: FONT_STACK });
    expect(o.xAxis).toEqual({ name: '件数' });
    expect((withAppFont({}) as { textStyle: { fontFamily: string } }).textStyle.fontFamily).toBe(FONT_STACK);
  });

  it('keeps a family a chart names itself', () => {
    expect((withAppFont({ textStyle: { fontFamily: 'monospace' } }) as { textStyle: { fontFamily: string } }).textStyle.fontFamily).toBe('monospace');
  });
});

describe('font stacks', () => {
  it('name the shipped Japanese face before any system or generic family', () => {
    expect(FONT_STACK.split(', ')[0]).toBe(SHIPPED_JAPANESE_FONT);
    expect(FONT_STACK.split(', ').at(-1)).toBe('sans-serif');
  });
});

describe('nonLatinText', () => {
  it('keeps the characters the Latin faces lack, once each', () => {
    expect(nonLatinText({ legend: { data: ['リクエスト数', '拒否'] }, xAxis: { name: 'UTC+09:00 °C µm é' } })).toBe('リクエスト数拒否');
    expect(nonLatinText({ title: { text: 'Requests' } })).toBe('');
  });
});
