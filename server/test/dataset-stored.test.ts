import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetSchema, datasetStats, preprocessHistory } from '../src/features/datasets/stored.js';
import { SketchStore } from '../src/features/datasets/sketch-store.js';

/** A dataset row's JSON columns and the sketch manifest are read through their declarations (issue 32). */

const text = { name: 'label', type: 'string', dtype: 'VARCHAR' };
const number = { name: 'x', type: 'float', dtype: 'DOUBLE' };

describe('dataset JSON columns', () => {
  it('read every shape written so far', () => {
    const today = { ...number, count: 3, missing: 1, unique: 3, unique_exact: true, min: 0.5, max: 2, mean: 1.25, std: 0.75 };
    // written before unique_exact; a text column (no mean or std); a boolean or empty column (no bounds)
    const older = { ...text, count: 4, missing: 0, unique: 2, min: 'a', max: 'b', mean: null, std: null };
    const empty = { name: 'flag', type: 'boolean', dtype: 'BOOLEAN', count: 0, missing: 4, unique: 0, unique_exact: false, min: null, max: null, mean: null, std: null };
    const row = { schema_json: JSON.stringify([text, number]), stats_json: JSON.stringify([today, older, empty]) };
    expect(datasetSchema(row)).toEqual([text, number]);
    expect(datasetStats(row)).toEqual([today, older, empty]);
    expect(datasetSchema({ schema_json: '[]' })).toEqual([]); // an image dataset
  });

  it('name the column when a value is not its declared shape', () => {
    expect(() => datasetSchema({ schema_json: JSON.stringify([{ name: 'x', type: 'number', dtype: 'DOUBLE' }]) })).toThrow(/stored dataset schema_json/);
    expect(() => datasetStats({ stats_json: JSON.stringify([{ ...number, count: 3, missing: 0, unique: 3, min: 1, max: 2, mean: '1.5', std: null }]) })).toThrow(/stored dataset stats_json/);
    expect(() => preprocessHistory({ preprocess_history: '{}' })).toThrow(/stored dataset preprocess_history/);
  });

  it('keep a history entry as written, for the child dataset', () => {
    const step = { process_type: 'scaling', action_name: 'standard', changes: { columns: ['x'], fitted: { columns: { x: { center: 1, scale: 2 } } } }, modified_at: '2026-11-21T10:00:00Z', note: 'kept' };
    expect(preprocessHistory({ preprocess_history: JSON.stringify([step]) })).toEqual([step]);
  });
});

describe('sketch manifest', () => {
  const settings = { columnCacheMb: 1, binCacheMb: 1, warmMb: 0 };
  const withSketch = (manifest: unknown, check: (store: SketchStore, parquet: string) => void) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-manifest-'));
    try {
      const parquet = path.join(dir, 'data.parquet');
      if (manifest !== undefined) {
        fs.mkdirSync(path.join(dir, 'sketch'));
        fs.writeFileSync(path.join(dir, 'sketch', 'manifest.json'), JSON.stringify(manifest));
      }
      check(new SketchStore(settings), parquet);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  };
  // as the first sketches were written: no grid, no strata
  const first = { version: 1, build_id: 'b1', row_count: 2, columns: [{ name: 'x', file: 'c0', count: 2, complete: true, mean: 1.5 }], pearson: null, spearman: null, sample_rows: 2 };

  it('reads one written before the grids and strata, and none when there is none', () => {
    withSketch(first, (store, parquet) => expect(store.read('d1', parquet)?.manifest).toEqual(first));
    withSketch(undefined, (store, parquet) => expect(store.read('d1', parquet)).toBeNull());
    withSketch({ ...first, version: 2 }, (store, parquet) => expect(store.read('d1', parquet)).toBeNull());
  });

  it('names one of another shape', () => {
    withSketch({ ...first, columns: [{ name: 'x' }] }, (store, parquet) => expect(() => store.read('d1', parquet)).toThrow(/stored sketch manifest.json/));
  });
});
