import { describe, expect, it } from 'vitest';
import { settingsFields } from '../src/features/platform/schemas.js';
import { hostedManifest, platformSettings, settingsVersion } from '../src/features/platform/stored.js';
import { tsConfigOf } from '../src/features/timeseries/stored.js';

/** Stored JSON of the hosted APIs and time-series projects, read through its declarations (issue 32). */
describe('stored platform and time-series JSON', () => {
  const settings = settingsFields.parse({ content_language: 'en-gb' });

  it('reads settings as written, keeping keys it does not name; a bad shape is a named fault', () => {
    const row = { settings_json: JSON.stringify({ ...settings, later_key: 1 }) };
    expect(platformSettings(row)).toEqual({ ...settings, later_key: 1 });
    expect(settingsVersion(row)).toBe('1.0');
    expect(() => platformSettings({ settings_json: JSON.stringify({ ...settings, cpu_cores: '2' }) })).toThrow(/stored platform project settings/);
  });

  it("the serving path's version reads rows with fewer fields", () => {
    expect(settingsVersion({ settings_json: '{}' })).toBe('');
    expect(settingsVersion({ settings_json: '{"version":"2.1"}' })).toBe('2.1');
  });

  it("reads a tabular model's manifest and a detector's (null threshold: a non-finite one)", () => {
    const tabular = { format: 'mitate-model/1', project_type: 'regression', features: ['a', 'b'], model_columns: { a: 'numeric', b: 'category' }, categories: { b: ['x'] }, time_features: { lags: [], windows: [], datetime_column: null }, outputs: ['prediction'] };
    expect(hostedManifest.parse(tabular)).toEqual(tabular);
    const detector = { project_type: 'time_series_anomaly_detection_unsupervised', features: ['s'], time_column: 't', time_features: { lags: [1], windows: [3, '5min'], drift_signals: [], drift_rows: null, resample: null }, threshold: null, hyperparameters: { alarm_k: 2, alarm_n: 3 } };
    expect(hostedManifest.parse(detector)).toEqual(detector);
  });

  it('reads a time-series project stored before window_stats, resample and drift signals', () => {
    const cfg = { target: null, features: ['s'], time_column: 't', time_is_datetime: true, lags: [], windows: [5, '10min'], normal: { mode: 'rows', rows: 100 }, split_ratio: 0.7, split_time: null, cv_folds: 'default', significance_level: 0.05, n_trials: 1, auto_tune: false, balance: false, variance_threshold: 0, datetime_column: 't', notes: [] };
    expect(tsConfigOf({ config_json: JSON.stringify(cfg) })).toEqual(cfg);
    expect(() => tsConfigOf({ config_json: JSON.stringify({ ...cfg, time_column: undefined }) })).toThrow(/stored time-series project settings/);
  });
});
