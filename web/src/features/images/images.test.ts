import { describe, expect, it } from 'vitest';
import { binLabels, isImageType, ratesAt } from './api';
import { classRows } from './ClassificationBrowse';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

const keys = (o: object, p = ''): string[] => Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${p}${k}.`) : [`${p}${k}`]));

describe('images area', () => {
  it('labels histogram bins with the decimals their width needs, so close scores do not all read alike (issue 33)', () => {
    const labels = binLabels(0.485353, 0.0000001, 20);
    expect(new Set(labels).size).toBe(20);
    expect(labels[0]).toBe('0.48535305');
    expect(binLabels(0, 0.05, 20).slice(0, 2)).toEqual(['0.025', '0.075']);
    expect(binLabels(0, 5, 3)).toEqual(['2.5', '7.5', '12.5']);
  });
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
  it('per-class figures: a class never predicted has precision 0 (undefined, as zero_division=0) and F1 0, not a dash', () => {
    const g = (label: string, predicted: string) => ({ id: `${label}${predicted}${Math.random()}`, label, predicted, score: 0.9, heatmap: null });
    const rows = classRows(['cat', 'dog', 'fox'], [g('cat', 'cat'), g('cat', 'dog'), g('dog', 'dog'), g('fox', 'dog')]);
    const by = Object.fromEntries(rows.map((r) => [r.label, r]));
    expect(by.fox).toMatchObject({ support: 1, predicted: 0, precision: 0, recall: 0, f1: 0, undefinedPrecision: true, undefinedRecall: false });
    expect(by.cat).toMatchObject({ precision: 1, recall: 0.5, undefinedPrecision: false });
    expect(by.cat.f1).toBeCloseTo(2 / 3, 10);
    expect(by.dog).toMatchObject({ precision: 1 / 3, recall: 1, f1: 0.5 });
    // a class neither in the test images nor predicted has no figures at all
    expect(classRows(['cat', 'owl'], [g('cat', 'cat')])[1]).toMatchObject({ precision: 0, recall: 0, f1: null, undefinedPrecision: true, undefinedRecall: true });
  });
  it('knows the image training types', () => {
    expect(isImageType('analysis') && isImageType('classification')).toBe(true);
    expect(isImageType('regression')).toBe(false);
  });
  it('has every English string in Japanese', () => {
    expect(keys(ja).sort()).toEqual(keys(en).sort());
  });
});
