import { describe, expect, it } from 'vitest';
import { boxesOf, descriptiveRows, referenceOf } from '../src/test-result-parts.js';
import { neutraliseCell, restoreCell } from '../src/csv-cell.js';
import { detectDelimiter, leadingRecords, splitRecord } from '../src/csv-records.js';
import { figuresAt, percentile, rates, thresholdForMissRate } from '../src/thresholds.js';

const g = (name: string) => ({ name });
const charts = { box: [{ q: 1 }], reference: { x: [0] } };

describe('what a statistical test result lists and draws', () => {
  it('lists the differences after the groups for paired tests only', () => {
    expect(descriptiveRows({ test_type: 'paired_t', groups: [g('a'), g('b')], differences: g('d'), charts })).toEqual([g('a'), g('b'), g('d')]);
    expect(descriptiveRows({ test_type: 'wilcoxon', groups: [g('a')], charts })).toEqual([g('a')]);
    expect(descriptiveRows({ test_type: 'anova', groups: [g('a')], differences: g('d'), charts })).toEqual([g('a')]);
  });

  it('draws boxes (and the hypothetical line) but for chi-square and the correlations', () => {
    expect(boxesOf({ test_type: 'pearson', groups: [], charts: { reference: charts.reference } })).toBeNull();
    expect(boxesOf({ test_type: 'one_sample_t', groups: [], charts: { ...charts, reference_line: 3 } })).toEqual({ boxes: charts.box, referenceLine: 3 });
    expect(boxesOf({ test_type: 'anova', groups: [], charts })).toEqual({ boxes: charts.box });
  });

  it('draws the reference distribution for every test but Shapiro-Wilk', () => {
    expect(referenceOf({ test_type: 'shapiro', groups: [], charts: { box: charts.box } })).toBeNull();
    expect(referenceOf({ test_type: 'anova', groups: [], charts })).toBe(charts.reference);
  });
});

describe('CSV rules', () => {
  it('neutralises formulas but not plain numbers, and undoes it', () => {
    expect(neutraliseCell('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(neutraliseCell('-3')).toBe('-3');
    expect(neutraliseCell('+1.5e3')).toBe('+1.5e3');
    expect(neutraliseCell('@x')).toBe("'@x");
    expect(restoreCell("'=SUM(A1)")).toBe('=SUM(A1)');
    expect(restoreCell("'plain")).toBe("'plain");
  });

  it('splits quoted records and finds the delimiter', () => {
    expect(splitRecord('a,"b,c","d""e"', ',')).toEqual(['a', 'b,c', 'd"e']);
    expect(detectDelimiter(['a;b;c', '1;2;3'])).toBe(';');
    expect(leadingRecords('a,b\n"x\ny",2\n', 5).records).toEqual(['a,b', '"x\ny",2']);
  });
});

describe('OK/NG thresholds', () => {
  const labels = ['OK', 'OK', 'NG', 'NG'];
  const scores = [0.1, 0.6, 0.4, 0.9];
  it('counts misses and over-detections at a threshold', () => {
    expect(rates(labels, scores, 0.5)).toEqual({ miss_rate: 0.5, over_detection_rate: 0.5, ng: 2, ok: 2 });
    expect(figuresAt(labels, scores, 0.5).confusion_matrix.matrix).toEqual([[1, 1], [1, 1]]);
  });
  it('finds the highest threshold within a miss rate, and percentiles as numpy', () => {
    expect(thresholdForMissRate(labels, scores, 0)).toBe(0.4);
    expect(thresholdForMissRate(labels, scores, 0.5)).toBe(0.9);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
  });
});
