import { describe, expect, it } from 'vitest';
import { imageConfig } from '../src/features/images/stored.js';
import { DesignSettings } from '../src/features/optimal-design/stored.js';
import { projectSettings } from '../src/features/optimization/stored.js';
import { readTrainingReport } from '../src/features/training/responses.js';
import { ModelManifest, modelMetrics, modelSummary, projectConfig, SupervisedManifest, tabularConfig } from '../src/features/training/stored.js';

// Projects' and models' stored JSON reads through its declaration: values older writers stored still read, as they
// were (no default filled, unknown keys kept); a value of another shape is a named fault.

const tabular = {
  target: 'y', features: ['a'], split_ratio: 0.85, split_time: null, cv_folds: 'default', significance_level: 0.05, n_trials: 10,
  auto_tune: false, balance: false, variance_threshold: 0, lags: [], windows: [], datetime_column: null,
};

describe('training projects and models', () => {
  it('reads a tabular config stored before `evaluation`, and every kind through the any-kind declaration', () => {
    expect(tabularConfig({ config_json: JSON.stringify(tabular) })).toEqual(tabular);
    const ts = { ...tabular, windows: [5, '5min'], time_column: 't', time_is_datetime: true, normal: null, notes: [] };
    expect(projectConfig({ config_json: JSON.stringify(ts) })).toEqual(ts);
    const image = { image: true, settings: { epochs: 3 }, classes: ['OK', 'NG'], dataset_dir: '' };
    expect(projectConfig({ config_json: JSON.stringify(image) })).toEqual(image);
    expect(() => tabularConfig({ config_json: JSON.stringify({ ...tabular, features: 'a' }) })).toThrow(/stored tabular project settings is not its declared shape/);
  });

  it('reads each writer’s summary and metrics, keeping keys the declaration does not name', () => {
    const tabularSummary = { cv: { metric: 'r2', folds: [0.8, null], mean: 0.8, std: null, extra: 1 }, evaluation: null, hyperparameters: { alpha: 1 }, seconds: 2, pending: false };
    expect(() => modelSummary({ summary_json: JSON.stringify(tabularSummary) })).toThrow(/model summary/); // a null fold is no number
    const ok = { ...tabularSummary, cv: { ...tabularSummary.cv, folds: [0.8] } };
    expect(modelSummary({ summary_json: JSON.stringify(ok) })).toEqual(ok);
    const failedImage = { error_code: 'image_too_small', error_params: { size: 8 } };
    expect(modelSummary({ summary_json: JSON.stringify(failedImage) })).toEqual(failedImage);
    expect(modelSummary({ summary_json: null })).toEqual({});
    const image = { accuracy: null, confusion_matrix: { labels: ['OK', 'NG'], matrix: [[1, 0], [0, 1]] }, extra: 'kept' };
    expect(modelMetrics({ metrics_json: JSON.stringify(image) })).toEqual(image);
    expect(modelMetrics({ metrics_json: null })).toBeNull();
  });

  it('reads a model manifest written before `outputs`; a regression model’s names its target', () => {
    const m = { format: 'mitate-model/1', project_type: 'regression', algorithm: 'ridge', target: 'y', features: ['a'], model_columns: { a: 'numeric' }, categories: {} };
    expect(ModelManifest.parse(m)).toEqual(m);
    expect(SupervisedManifest.safeParse({ ...m, target: null }).success).toBe(false);
    expect(ModelManifest.parse({ ...m, project_type: 'clustering', target: null }).target).toBeNull();
  });

  it('says which report.json key is not its declared shape', () => {
    expect(() => readTrainingReport(JSON.stringify({ algorithm: 1 }))).toThrow(/stored training report is not its declared shape[\s\S]*algorithm/);
  });
});

describe('image, optimisation and optimal-design projects', () => {
  it('reads an image project stored before patchcore_backbone without filling its default', () => {
    const cfg = { image: true, settings: { image_size: 128, epochs: 10, augmentation: { hflip: true } }, classes: ['OK', 'NG'], dataset_dir: '' };
    expect(imageConfig({ config_json: JSON.stringify(cfg) })).toEqual(cfg);
  });

  it('reads optimisation settings with their models and design settings with their rows', () => {
    const model_info = [{ project_id: 'p', project_name: 'P', model_key: '1_ridge', algorithm: 'ridge', target: 'y', dataset_id: 'd' }];
    const s = {
      models: [{ project_id: 'p', model_key: '1_ridge' }], targets: [{ name: 'y', goal: 'maximize', weight: 1 }],
      features: [{ name: 'a', kind: 'range', lower: 0, upper: 1, unit: '', weight: 1 }], constraints: [], algorithms: ['tpe'], n_trials: 10, seed: 0,
      forbid_extrapolation: false, model_info,
    };
    expect(projectSettings({ settings_json: JSON.stringify(s) })).toEqual(s);
    const d = {
      variables: [{ name: 'a', type: 'continuous', low: 0, high: 1 }], constraints: [], model: { kind: 'quadratic' }, responses: ['result'],
      exclude_tolerance: 0, existing_project_ids: [], exclude_rows: [], existing_rows: [{ a: 0.5, result: null }],
    };
    expect(DesignSettings.parse(d)).toEqual(d);
  });
});
