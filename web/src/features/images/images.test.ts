import { describe, expect, it } from 'vitest';
import { isImageType, ratesAt } from './api';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

const keys = (o: object, p = ''): string[] => Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${p}${k}.`) : [`${p}${k}`]));

describe('images area', () => {
  it('computes the miss and over-detection rates shown while the threshold is dragged', () => {
    const s = [
      { id: '1', split: 'validation' as const, label: 'OK', score: 0.1 },
      { id: '2', split: 'validation' as const, label: 'OK', score: 0.6 },
      { id: '3', split: 'validation' as const, label: 'NG', score: 0.5 },
      { id: '4', split: 'validation' as const, label: 'NG', score: 0.9 },
    ];
    expect(ratesAt(s, 0.55)).toEqual({ miss_rate: 0.5, over_detection_rate: 0.5, ng: 2, ok: 2 });
    expect(ratesAt(s, 0)).toMatchObject({ miss_rate: 0, over_detection_rate: 1 });
    expect(ratesAt(s.slice(0, 2), 0.5).miss_rate).toBeNull();
  });
  it('knows the image training types', () => {
    expect(isImageType('analysis') && isImageType('classification')).toBe(true);
    expect(isImageType('regression')).toBe(false);
  });
  it('has every English string in Japanese', () => {
    expect(keys(ja).sort()).toEqual(keys(en).sort());
  });
});
