import { describe, expect, it } from 'vitest';
import { decimalsOk, defaultModels, parseDecimal, parseFolds, parseIntList, stepErrors } from './validate';

describe('training wizard rules', () => {
  it('pre-ticks one sensible model for every type, so the defaults can train (issue 33)', () => {
    expect(defaultModels(['linear', 'ridge', 'lasso', 'random_forest', 'lightgbm', 'mlp'])).toEqual(['lightgbm']);
    expect(defaultModels(['lda', 'qda', 'logistic', 'lightgbm'])).toEqual(['lightgbm']);
    expect(defaultModels(['kmeans', 'hierarchical', 'dbscan'])).toEqual(['kmeans']);
    expect(defaultModels(['pca', 'tsne', 'umap'])).toEqual(['pca']);
    expect(defaultModels(['tsne', 'umap'])).toEqual(['tsne']);
    expect(defaultModels([])).toEqual([]);
  });

  it('cross-validation takes default or a whole number of 2 or more (SPEC §5, §9)', () => {
    expect(parseFolds('default')).toBe('default');
    expect(parseFolds('')).toBe('default');
    expect(parseFolds('既定')).toBe('default');
    expect(parseFolds('5')).toBe(5);
    expect(parseFolds('2')).toBe(2);
    expect(parseFolds('1')).toBeNull();
    expect(parseFolds('2.5')).toBeNull();
    expect(parseFolds('abc')).toBeNull();
  });

  it('decimals take at most 7 digits after the point', () => {
    expect(decimalsOk('0.1234567')).toBe(true);
    expect(decimalsOk('0.12345678')).toBe(false);
    expect(parseDecimal('0.85', 0.5, 0.95).value).toBe(0.85);
    expect(parseDecimal('0.123456789', 0, 1).error).toBe('validation.decimals');
    expect(parseDecimal('2', 0.5, 0.95).error).toBe('validation.range');
    expect(parseDecimal('x', 0, 1).error).toBe('validation.number');
  });

  it('lags and windows are whole numbers above a minimum', () => {
    expect(parseIntList('3, 1,2', 1)).toEqual([1, 2, 3]);
    expect(parseIntList('', 1)).toEqual([]);
    expect(parseIntList('1', 2)).toBeNull();
    expect(parseIntList('a', 1)).toBeNull();
  });

  it('names the SPEC §5 message of each missing choice, by step', () => {
    const base = { name: 'p', target: 'y', features: ['x'], models: ['ridge'], cv: 'default', supervised: true, targetOptional: false };
    expect(stepErrors(base)).toEqual({});
    expect(stepErrors({ ...base, target: null })[1]).toEqual(['validation.noTarget']);
    expect(stepErrors({ ...base, features: [] })[1]).toEqual(['validation.noFeatures']);
    expect(stepErrors({ ...base, models: [] })[4]).toEqual(['validation.noModels']);
    expect(stepErrors({ ...base, cv: '1' })[3]).toEqual(['validation.cv']);
    expect(stepErrors({ ...base, supervised: false, target: null })).toEqual({});
  });
});
