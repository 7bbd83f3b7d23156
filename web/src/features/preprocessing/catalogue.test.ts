import { describe, expect, it } from 'vitest';
import { CATALOGUE, newStep, normalizeStep, stepProblem } from './catalogue';

describe('step catalogue', () => {
  it('gives every kind defaults for its first method', () => {
    expect(newStep('outliers')).toEqual({ process_type: 'outliers', method: 'iqr', columns: [], params: { action: 'clip', k: 1.5 } });
    expect(newStep('outliers', 'hampel').params).toEqual({ action: 'clip', threshold: 3, window: 7 });
    expect(Object.keys(CATALOGUE)).toEqual(['outliers', 'missing', 'scaling', 'computed', 'window', 'columns', 'filter', 'sort']);
  });
  it('normalises numbers, drops unused parameters and columns', () => {
    expect(normalizeStep({ process_type: 'outliers', method: 'zscore', columns: ['a'], params: { action: 'remove', k: 1.5, threshold: '2.5' } })).toEqual({
      process_type: 'outliers', method: 'zscore', columns: ['a'], params: { action: 'remove', threshold: 2.5 },
    });
    expect(normalizeStep({ process_type: 'sort', method: 'datetime', columns: ['x'], params: { ascending: 'false' } })).toEqual({ process_type: 'sort', method: 'datetime', columns: [], params: { ascending: false } });
    expect(normalizeStep({ process_type: 'window', method: 'mean', columns: ['a'], params: { window: 5, span: '10min' } }).params).toEqual({ span: '10min' });
    // only what the method reads goes out (the server refuses any other parameter), the step of its kind
    expect(normalizeStep({ process_type: 'window', method: 'lag', columns: ['a'], params: { window: 5, lag: '2', name: '' } })).toStrictEqual({ process_type: 'window', method: 'lag', columns: ['a'], params: { lag: 2 } });
    expect(normalizeStep({ process_type: 'columns', method: 'rename', columns: ['a'], params: { mapping: { a: 'b' }, dtype: 'float' } })).toStrictEqual({
      process_type: 'columns', method: 'rename', columns: [], params: { mapping: { a: 'b' } },
    });
    expect(normalizeStep({ process_type: 'scaling', method: 'robust', columns: [], params: { k: 1 } }).params).toStrictEqual({});
  });
  it('says what is missing', () => {
    expect(stepProblem(newStep('computed'))).toBe('name');
    expect(stepProblem({ ...newStep('computed'), params: { name: 'p', expression: 'a*b' } })).toBeNull();
    expect(stepProblem(newStep('window'))).toBe('columns');
    expect(stepProblem({ ...newStep('columns', 'rename'), params: { mapping: { a: '' } } })).toBe('mapping');
    expect(stepProblem({ ...newStep('filter'), params: { column: 'a', op: 'is_missing' } })).toBeNull();
    expect(stepProblem({ ...newStep('outliers'), params: { action: 'clip', k: 'abc' } })).toBe('number');
  });
});
