import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, ok, mockFetch, renderApp, signIn, warmUp } from '../../test/utils';

warmUp(() => import('./index'));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const model = { id: 'm1', model_key: '1_pca_mspc', model_name: 'pca_mspc', model_index: 1, algorithm: 'pca_mspc', label: "PCA-MSPC (Hotelling's T² and Q statistic / SPE)", params: {}, hyperparameters: {}, cv: null, seconds: 1, state: 'done', metrics: { f1: 0.9, far: 0.01, threshold: 1 }, error: null, log: null, trained_at: null, threshold: 1, trained_threshold: 1, saved_threshold: null };
const project = {
  project_id: 'p1', id: 'p1', name: 'TEP', project_type: 'time_series_anomaly_detection_unsupervised', mode: 'unsupervised', training_state: 'done', dataset_id: 'd1', parent_dataset_name: 'd01',
  number_of_data: 10, target_variables: ['fault'], feature_variables: ['a', 'b'], time_column: 'sample', time_is_datetime: false, normal: { mode: 'rows', rows: 4 }, notes: [], lags: [], windows: [], resample: null,
  window_stats: ['mean', 'std', 'min', 'max'], drift_signals: [], drift_rows: null,
  split_ratio: 0.7, models: [model], models_done: 1, models_failed: 0, job: null, error: null, best_model_key: '1_pca_mspc', created_at: '', updated_at: '',
};
const stats = (threshold: number) => ({
  threshold, trained_threshold: 1, saved_threshold: null, evaluated_part: 'test', evaluated_rows: 6, labelled: true,
  counts: threshold > 1 ? { tp: 1, fp: 0, fn: 2, tn: 3 } : { tp: 3, fp: 1, fn: 0, tn: 2 }, precision: threshold > 1 ? 1 : 0.75, recall: threshold > 1 ? 1 / 3 : 1, f1: 0.5,
  far: threshold > 1 ? 0 : 0.25, mar: threshold > 1 ? 2 / 3 : 0, alarms: 1, alarms_per_day: null, alarms_per_1000_rows: 250, spans: [[6, 9]], seconds: 0.001,
});

describe('time-series threshold page', () => {
  it('asks the server for exact metrics at a typed threshold and saves it', async () => {
    signIn();
    let saved: unknown = null;
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timseseries/project/p1': () => ok(project),
      // the shared threshold path looks the project's type up first
      'GET /api/train/result/p1': () => ok(project),
      'GET /api/timeseries/series/p1/1_pca_mspc': () => ok({ rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), times: Array.from({ length: 10 }, (_, i) => i), events: [[6, 9]], parts: [{ part: 'train', start: 0, end: 3 }, { part: 'test', start: 4, end: 9 }] }),
      'GET /api/timeseries/threshold/p1/1_pca_mspc': (c) => ok(stats(Number(c.url.searchParams.get('threshold') ?? 1))),
      'POST /api/update/threshold/p1/1_pca_mspc': (c) => {
        saved = c.body;
        return ok({ ...model, saved_threshold: 1.5, threshold: 1.5 });
      },
    });
    renderApp('/training/result/threshold/p1/1_pca_mspc');
    expect(await screen.findByTestId('metric-far')).toHaveTextContent('25.0 %');
    expect(screen.getByTestId('threshold-line')).toBeInTheDocument();
    expect(screen.getAllByTestId('alarm-span')).toHaveLength(1);
    // the breadcrumb calls the model by its detector's name, not its key
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' });
    await waitFor(() => expect(crumbs).toHaveTextContent("PCA-MSPC (Hotelling's T² and Q statistic / SPE)"));
    expect(crumbs).not.toHaveTextContent('1_pca_mspc');
    const input = screen.getByRole('textbox', { name: 'Threshold' });
    fireEvent.change(input, { target: { value: '1.5' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(screen.getByTestId('metric-far')).toHaveTextContent('0.0 %'), { timeout: 60_000 });
    expect(calls.some((c) => c.url.searchParams.get('threshold') === '1.5')).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Save threshold' }));
    await waitFor(() => expect(saved).toEqual({ threshold: 1.5 }), { timeout: 60_000 });
  }, 90_000);
});

describe('time-series model report', () => {
  it('gives each labelled event by the times of its rows, and names the model in the breadcrumb', async () => {
    signIn();
    const report = {
      signals: ['XMEAS_1'], alarms: [], detector: {},
      metrics: { event: { events: 2, events_detected: 1, precision: 1, recall: 0.5, f1: 0.67, per_event: [
        { start: 3, end: 9, start_time: '2024-03-01T10:03:00', end_time: '2024-03-01T10:09:00', detected: true, delay_rows: 2, delay_seconds: 120 },
        { start: 20, end: 25, start_time: '2024-03-01T10:20:00', end_time: '2024-03-01T10:25:00', detected: false, delay_rows: null },
      ] } },
    };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timeseries/catalogue': () => ok({ supervised: [], unsupervised: [] }),
      'POST /api/timeseries/report/p1': () => ok({ project, model, report }),
      'GET /api/timeseries/series/p1/1_pca_mspc': () => ok({ rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), times: Array.from({ length: 10 }, (_, i) => `2024-03-01T10:0${i}:00`), events: [[3, 9]], parts: [{ part: 'test', start: 0, end: 9 }] }),
      'GET /api/timeseries/threshold/p1/1_pca_mspc': () => ok(stats(1)),
      'GET /api/timeseries/signals/p1/1_pca_mspc': () => ok({ columns: ['XMEAS_1'], series: { XMEAS_1: [] } }),
    });
    renderApp('/training/time-series/report/p1/1_pca_mspc');
    expect(await screen.findByText('2024-03-01 10:03:00 – 2024-03-01 10:09:00: detected 2 rows (120 s) after the event began')).toBeInTheDocument();
    expect(screen.getByText('2024-03-01 10:20:00 – 2024-03-01 10:25:00: missed')).toBeInTheDocument();
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' });
    expect(crumbs).toHaveTextContent("PCA-MSPC (Hotelling's T² and Q statistic / SPE)");
    expect(crumbs).not.toHaveTextContent('1_pca_mspc');
  }, 90_000);
});

describe('time-series model report at a saved threshold', () => {
  it('names the threshold in force over the alarm list the server gave at it', async () => {
    signIn();
    const report = {
      signals: ['XMEAS_1'], detector: {}, metrics: {},
      alarms: [{ start: 6, end: 9, start_time: 6, end_time: 9, peak: 8, peak_score: 1.62, part: 'test', contributions: [{ signal: 'a', value: 0.8 }] }],
    };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timeseries/catalogue': () => ok({ supervised: [], unsupervised: [] }),
      'POST /api/timeseries/report/p1': () => ok({ project, model, report }),
      'GET /api/timeseries/series/p1/1_pca_mspc': () => ok({ rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), times: Array.from({ length: 10 }, (_, i) => i), events: [], parts: [{ part: 'test', start: 0, end: 9 }] }),
      'GET /api/timeseries/threshold/p1/1_pca_mspc': () => ok({ ...stats(1.6), saved_threshold: 1.6 }),
      'GET /api/timeseries/signals/p1/1_pca_mspc': () => ok({ columns: ['XMEAS_1'], series: { XMEAS_1: [] } }),
    });
    renderApp('/training/time-series/report/p1/1_pca_mspc');
    expect(await screen.findByTestId('alarms-heading')).toHaveTextContent('Alarms at threshold 1.6, saved (1, every part)');
    expect(screen.getByRole('cell', { name: '1.6200' })).toBeInTheDocument();
  }, 90_000);

  it('gives the alarms by the times as the rest of the page writes them and the detector figures in words (issue 33)', async () => {
    signIn();
    const report = {
      signals: ['XMEAS_1'], metrics: {}, detector: { components: 3, components_rule: 'parallel_analysis', far_cross_checked: 0.0083 },
      alarms: [{ start: 6, end: 9, start_time: '2020-03-09T10:23:03.000', end_time: '2020-03-09T10:23:09.000', peak: 8, peak_score: 2.0029, part: 'test', contributions: [{ signal: 'a', value: 0.8 }] }],
    };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timeseries/catalogue': () => ok({ supervised: [], unsupervised: [] }),
      'POST /api/timeseries/report/p1': () => ok({ project, model, report }),
      'GET /api/timeseries/series/p1/1_pca_mspc': () => ok({ rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), times: Array.from({ length: 10 }, (_, i) => `2020-03-09T10:2${i}:00`), events: [], parts: [{ part: 'test', start: 0, end: 9 }] }),
      'GET /api/timeseries/threshold/p1/1_pca_mspc': () => ok(stats(1.77)),
      'GET /api/timeseries/signals/p1/1_pca_mspc': () => ok({ columns: ['XMEAS_1'], series: { XMEAS_1: [] } }),
    });
    renderApp('/training/time-series/report/p1/1_pca_mspc');
    expect(await screen.findByRole('cell', { name: '2020-03-09 10:23:03' })).toBeInTheDocument();
    expect(screen.getByRole('cell', { name: '2020-03-09 10:23:09' })).toBeInTheDocument();
    expect(screen.getByText('How the components were chosen')).toBeInTheDocument();
    expect(screen.getByText('Parallel analysis')).toBeInTheDocument();
    expect(screen.getByText('False-alarm rate on held-back normal rows, cross-checked')).toBeInTheDocument();
    for (const raw of ['components_rule', 'parallel_analysis', 'far_cross_checked', '2020-03-09T10:23:03.000']) expect(screen.queryByText(raw)).toBeNull();
  }, 90_000);
});

describe('time-series prediction report', () => {
  const prediction = {
    id: 'pr1', name: 'new data', project_id: 'p1', project_name: 'TEP', project_type: 'time_series_anomaly_detection_unsupervised', report_type: 'time-series', model_key: '1_pca_mspc', dataset_id: 'd2',
    state: 'done', progress: 1, error: null, created_at: '', updated_at: '', job: null,
    result: { anomaly: { alarms: 1, alarm_rows: 3, scored_rows: 10, threshold: 1, first_alarm_row: 6 } },
  };
  const times = Array.from({ length: 10 }, (_, i) => `2020-03-09T10:${String(10 + i).padStart(2, '0')}:00`);
  it('labels the points by the time of their rows, formatted for the span', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timeseries/prediction/result/pr1': () => ok(prediction),
      'GET /api/timeseries/prediction/series/pr1': () =>
        ok({
          rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), time_column: 'datetime', time_kind: 'datetime', times,
          start_time: times[0], end_time: times[9], threshold: 1, spans: [{ start: 6, end: 8, start_time: times[6], end_time: times[8], contributions: [{ signal: 'a', value: 0.8 }] }],
        }),
    });
    renderApp('/prediction/time-series/report/pr1');
    expect(await screen.findByTestId('prediction-window')).toHaveTextContent('datetime 2020-03-09 10:10:00 – 2020-03-09 10:19:00: 10 of 10 rows');
    expect(screen.getByTestId('first-alarm')).toHaveTextContent('First alarm at 2020-03-09 10:16:00 (row 7)');
    const ticks = screen.getAllByTestId('time-tick').map((e) => e.textContent);
    // a span of nine minutes: times to the second, the day said once
    expect(ticks[0]).toBe('10:10:00');
    expect(ticks.at(-1)).toBe('10:19:00');
    expect(screen.getByTestId('time-note')).toHaveTextContent('2020-03-09');
  }, 90_000);

  it('gives its state, what was predicted, a way back, and the test-part figures against the file\'s label column', async () => {
    signIn();
    const labelled = {
      column: 'anomaly', rows: 10, counts: { tp: 3, fp: 0, fn: 1, tn: 6 }, precision: 1, recall: 0.75, f1: 6 / 7, far: 0, mar: 0.25, alarms: 1, alarms_per_day: null, alarms_per_1000_rows: 100,
      event: { events: 1, events_detected: 1, alarm_spans: 1, alarm_spans_true: 1, precision: 1, recall: 1, f1: 1, per_event: [{ start: 5, end: 9, detected: true, delay_rows: 1 }] },
    };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/timeseries/prediction/result/pr1': () => ok({ ...prediction, test_dataset: 'valve1', finished_at: '2026-11-28T01:00:00Z' }),
      'GET /api/timeseries/prediction/series/pr1': () =>
        ok({ rows: 10, start: 0, end: 9, points: Array.from({ length: 10 }, (_, i) => [i, i / 5, i / 5]), time_column: 'datetime', time_kind: 'datetime', times, start_time: times[0], end_time: times[9], threshold: 1, spans: [], labelled }),
    });
    renderApp('/prediction/time-series/report/pr1');
    const box = await screen.findByTestId('prediction-labelled');
    expect(box).toHaveTextContent('Against the file\'s label column "anomaly" (10 labelled rows), as the test part');
    expect(within(box).getByTestId('metric-recall')).toHaveTextContent('75.0 %');
    expect(within(box).getByTestId('metric-tp')).toHaveTextContent('3');
    expect(screen.getByTestId('prediction-events')).toHaveTextContent('Events detected 1 of 1');
    expect(screen.getByTestId('prediction-about')).toHaveTextContent('valve1');
    expect(screen.getByText('Done')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'All predictions' })).toHaveAttribute('href', '/prediction');
    expect(screen.getByRole('link', { name: 'Project results' })).toHaveAttribute('href', '/training/time-series/result/p1');
  }, 90_000);
});

describe('time-series register wizard', () => {
  const dataset = {
    // no stored ordering column (the normal-period chart, which needs one, is not drawn): the first fitting column orders it
    id: 'd1', name: 'TEP', row_count: 500, datetime_column: null, columns: [
      { name: 'sample', type: 'integer' }, { name: 'stamp', type: 'datetime' }, { name: 'a', type: 'float' }, { name: 'b', type: 'float' },
    ],
  };
  const catalogue = {
    supervised: [],
    unsupervised: [{ key: 'pca_mspc', label: 'PCA-MSPC (Hotelling\'s T² and Q statistic / SPE)', contributions: true, params: [{ name: 'confidence', kind: 'float', default: 0.99, low: 0.8, high: 0.9999, label: 'Confidence of the control limits', help: 'T² and Q limits at this confidence' }] }],
  };
  it('names the order column after its kind and shows the catalogue\'s detector and parameter labels', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/d1/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(catalogue),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/d1');
    // ordered by a whole-number column: not called a datetime column
    expect(await screen.findByLabelText(/Row-order column \(row number\)/)).toBeInTheDocument();
    expect(screen.queryByText(/Datetime column/i)).toBeNull();
    for (let i = 0; i < 3; i++) fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText("PCA-MSPC (Hotelling's T² and Q statistic / SPE)")).toBeInTheDocument();
    expect(screen.getByLabelText('Confidence of the control limits')).toBeInTheDocument();
    expect(screen.getByText('T² and Q limits at this confidence. Range 0.8 – 0.9999')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Confidence of the control limits'), { target: { value: '0.95' } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    // the last step summarises the choices in words (not the request's JSON)
    const summary = await screen.findByTestId('wizard-summary');
    expect(summary).toHaveTextContent("PCA-MSPC (Hotelling's T² and Q statistic / SPE) (Confidence of the control limits = 0.95)");
    expect(summary).toHaveTextContent('Row-order column (row number)sample');
    expect(summary).not.toHaveTextContent('"algorithm"');
  }, 90_000);

  it('takes slowly drifting signals with the rows of their change, and sends them with the window statistics', async () => {
    signIn();
    let sent: Record<string, unknown> | null = null;
    let trained = false;
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/d1/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(catalogue),
      'POST /api/timeseries/register/d1': (c) => {
        sent = c.body as Record<string, unknown>;
        return ok({ ...project, windows: [5], window_stats: ['mean'], drift_signals: ['b'], drift_rows: 45 });
      },
      'POST /api/timeseries/train/model/p1': () => {
        trained = true;
        return ok({ ...project, training_state: 'training' });
      },
      'GET /api/timseseries/project/p1': () => ok({ ...project, windows: [5], window_stats: ['mean'], drift_signals: ['b'], drift_rows: 45 }),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/d1');
    await screen.findByLabelText(/Row-order column/);
    // the period first, then the windowing
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }));
    const rowsField = await screen.findByLabelText('Use their change over N rows');
    expect(rowsField).toBeDisabled(); // no drifting signal by default
    fireEvent.change(screen.getByLabelText(/Rolling windows/), { target: { value: '5' } });
    for (const st of ['standard deviation', 'minimum', 'maximum']) fireEvent.click(screen.getByLabelText(st));
    const drift = screen.getByLabelText('Slowly drifting signals');
    fireEvent.mouseDown(drift);
    fireEvent.click(await screen.findByRole('option', { name: 'b' }));
    expect(rowsField).not.toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText("Give the number of rows (1 or more) over which the drifting signals' change is taken.")).toBeInTheDocument();
    fireEvent.change(rowsField, { target: { value: '45' } });
    for (let i = 0; i < 2; i++) fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    const summary = await screen.findByTestId('wizard-summary');
    expect(summary).toHaveTextContent('b: change over 45 rows');
    expect(summary).toHaveTextContent('5 (mean)');
    // one final action, as in every wizard: the project is created and its training starts
    fireEvent.click(screen.getByRole('button', { name: 'Create and start' }));
    await waitFor(() => expect(trained).toBe(true), { timeout: 60_000 });
    expect(sent).toMatchObject({ windows: [5], window_stats: ['mean'], drift_signals: ['b'], drift_rows: 45 });
    // the details page shows the setting beside the windows
    expect(await screen.findByText('b: change over 45 rows', {}, { timeout: 60_000 })).toBeInTheDocument();
  }, 90_000);
});

describe('time-series wizard: the default normal period', () => {
  const dataset = {
    id: 'd9', name: 'TEP fault 1', row_count: 960, datetime_column: null, columns: [
      { name: 'sample', type: 'integer' }, { name: 'fault', type: 'integer' }, { name: 'a', type: 'float' }, { name: 'b', type: 'float' },
    ],
  };
  const catalogue = { supervised: [], unsupervised: [{ key: 'pca_mspc', label: 'PCA-MSPC', contributions: true, params: [] }] };
  it('is taken from the label, said so, and left alone once the person changes it', async () => {
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/d9/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(catalogue),
      'GET /api/timeseries/normal/default/d9': () => ok({ mode: 'rows', rows: 160, total: 960, source: 'label_before_first_anomaly', end: 160 }),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/d9');
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }, { timeout: 30_000 }));
    const rows = await screen.findByRole('textbox', { name: 'N rows' });
    await waitFor(() => expect(rows).toHaveValue('160'), { timeout: 30_000 });
    expect(screen.getByTestId('normal-default-source')).toHaveTextContent('Suggested from the label “fault”: the first 160 rows, every row before its first anomaly');
    expect(screen.getByText(/learn from the first 70 % of the normal period and set their thresholds on the last 30 %/)).toBeInTheDocument();
    const asked = calls.find((c) => c.path === '/api/timeseries/normal/default/d9')!;
    expect(asked.url.searchParams.get('time_column')).toBe('sample');
    expect(asked.url.searchParams.get('target')).toBe('fault');
    fireEvent.change(rows, { target: { value: '120' } });
    expect(rows).toHaveValue('120');
    expect(screen.queryByTestId('normal-default-source')).toBeNull();
  }, 90_000);
});

describe('time-series wizard: suggestion of slowly drifting signals', () => {
  const dataset = {
    id: 'ds1', name: 'Rig', category: '', training_type: 'time_series_anomaly_detection_unsupervised', data_type: 'training_data', type: 'unsupervised', comment: '', file_name: 'r.csv',
    file_size: 300, encoding: 'utf-8', delimiter: ',', row_count: 1000, column_count: 4, datetime_column: null, preprocessed: false, preprocess_history: [],
    parent_dataset_name: null, created_at: '', updated_at: '', files: { original: '', parquet: '' }, statistics: { state: 'none', job_id: null },
    columns: ['sample', 'Temperature', 'Thermocouple', 'Voltage'].map((name, i) => ({ name, type: i ? 'float' : 'integer', dtype: 'DOUBLE', missing: 0, unique: 900 })),
  };
  const catalogue = { supervised: [], unsupervised: [{ key: 'pca_mspc', label: 'PCA-MSPC', contributions: true, params: [] }] };
  const reason = (move: number) => `Its level moves by ${move.toFixed(1)} standard deviations of its short-term variation over the normal period, gradually and without coming back.`;
  const figures = { rows: 400, short_sd: 0.1, window: 40, step_share: 0.2, crossings: 1, rows_per_sd: 11 };
  const suggestion = {
    period: 'normal', rows: 400, sample_rows: 400, drift_signals: ['Temperature', 'Thermocouple'], drift_rows: 22,
    signals: [
      { signal: 'Temperature', drifts: true, reason: reason(15.8), move: 15.8, ...figures },
      { signal: 'Thermocouple', drifts: true, reason: reason(22.9), move: 22.9, ...figures },
      { signal: 'Voltage', drifts: false, reason: 'Its level moves by 0.6 standard deviations of its short-term variation over the normal period only; a slow drift is suggested from 8.', move: 0.6, ...figures },
    ],
  };

  it('says on how many of the period\'s rows a sampled suggestion is based', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/ds1/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(catalogue),
      'POST /api/timeseries/drift/suggest/ds1': () => ok({ ...suggestion, rows: 5_000_000, sample_rows: 200_000 }),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/ds1');
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }, { timeout: 30_000 }));
    fireEvent.change(await screen.findByRole('textbox', { name: 'N rows' }), { target: { value: '400' } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByTestId('drift-suggestion-drifting', undefined, { timeout: 30_000 });
    expect(screen.getByTestId('drift-suggestion')).toHaveTextContent('Suggestion from the normal period, based on 200,000 of its 5,000,000 rows (evenly spaced stretches of consecutive rows)');
  });

  it('asks for the chosen signals and normal period, shows each reason, and fills the fields only on the button', async () => {
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/ds1/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(catalogue),
      'POST /api/timeseries/drift/suggest/ds1': () => ok(suggestion),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/ds1');
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }, { timeout: 30_000 }));
    // the period first: 400 rows
    fireEvent.change(await screen.findByRole('textbox', { name: 'N rows' }), { target: { value: '400' } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    const box = await screen.findByTestId('drift-suggestion-drifting', undefined, { timeout: 30_000 });
    expect(box).toHaveTextContent(`Temperature — ${reason(15.8)}`);
    expect(box).toHaveTextContent(`Thermocouple — ${reason(22.9)}`);
    expect(screen.getByTestId('drift-suggestion')).toHaveTextContent('Suggestion from the normal period (400 rows)');
    expect(screen.getByTestId('drift-suggestion')).toHaveTextContent('Temperature, Thermocouple drift slowly. Suggested: let them enter as their change over 22 rows.');
    // asked from the period step on: the last question is for the period as it is now
    const asked = () => calls.filter((c) => c.path === '/api/timeseries/drift/suggest/ds1');
    await waitFor(() => expect(asked().at(-1)!.body).toMatchObject({ normal: { mode: 'rows', rows: 400 } }), { timeout: 30_000 });
    expect(asked().at(-1)!.body).toEqual({ project_type: 'time_series_anomaly_detection_unsupervised', time_column: 'sample', feature_variables: ['Temperature', 'Thermocouple', 'Voltage'], resample: null, normal: { mode: 'rows', rows: 400 }, split_ratio: 0.7 });
    // nothing is applied before the button: no drifting signal, N empty and disabled
    const n = screen.getByRole('textbox', { name: 'Use their change over N rows' });
    expect(n).toHaveValue('');
    expect(n).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Temperature' })).toBeNull();
    // the other signals' reasons on request
    fireEvent.click(screen.getByRole('button', { name: 'Why not the other signal' }));
    expect(screen.getByTestId('drift-suggestion-others')).toHaveTextContent('Voltage — Its level moves by 0.6 standard deviations');
    fireEvent.click(screen.getByRole('button', { name: 'Use the suggestion' }));
    await waitFor(() => expect(n).toHaveValue('22'));
    expect(screen.getByRole('button', { name: 'Temperature' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Thermocouple' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use the suggestion' })).toBeDisabled();
    expect(screen.getByText('Filled in below; you can still change the signals and N.')).toBeInTheDocument();
    // still the user's: N can be changed, and the button offers the suggestion again
    fireEvent.change(n, { target: { value: '45' } });
    expect(n).toHaveValue('45');
    expect(screen.getByRole('button', { name: 'Use the suggestion' })).toBeEnabled();
  }, 90_000);

  it('fills in the default for drifting signals (change, windows, alarm rule), says why, and lets the person keep the levels', async () => {
    signIn();
    const alarm = (name: string, label: string) => ({ name, kind: 'int', default: 1, low: 1, high: 1000, label, help: null });
    const withAlarm = { supervised: [], unsupervised: [{ key: 'pca_mspc', label: 'PCA-MSPC', contributions: true, params: [alarm('alarm_k', 'Alarm k'), alarm('alarm_n', 'Alarm n')] }] };
    let sent: Record<string, unknown> | null = null;
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/ds1/false': () => ok(dataset),
      'GET /api/timeseries/catalogue': () => ok(withAlarm),
      'POST /api/timeseries/drift/suggest/ds1': () => ok({ ...suggestion, defaults: { windows: [5], alarm_k: 3, alarm_n: 5 } }),
      'POST /api/timeseries/register/ds1': (c) => {
        sent = c.body as Record<string, unknown>;
        return ok({ ...project, id: 'p2', project_id: 'p2' });
      },
      'GET /api/timseseries/project/p2': () => ok({ ...project, id: 'p2', project_id: 'p2' }),
    });
    renderApp('/training/time_series_anomaly_detection_unsupervised/register/ds1');
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }, { timeout: 30_000 }));
    fireEvent.change(await screen.findByRole('textbox', { name: 'N rows' }), { target: { value: '400' } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    const note = await screen.findByTestId('drift-default', undefined, { timeout: 30_000 });
    await waitFor(() => expect(note).toHaveTextContent('Filled in by default, as Temperature, Thermocouple drift within the normal period: they enter as their change over 22 rows, the other signals also through a 5-row window, and each detector alarms when 3 of the last 5 rows are over its threshold.'));
    expect(note).toHaveTextContent('false alarms 38 % → 25 %');
    const n = screen.getByRole('textbox', { name: 'Use their change over N rows' });
    const windows = screen.getByLabelText(/Rolling windows/);
    expect(n).toHaveValue('22');
    expect(windows).toHaveValue('5');
    // the way out: every signal by its level, no windows, and back
    fireEvent.click(screen.getByRole('button', { name: 'Keep the levels' }));
    await waitFor(() => expect(n).toHaveValue(''));
    expect(windows).toHaveValue('');
    expect(screen.getByTestId('drift-default')).toHaveTextContent('the default for them is not in force');
    fireEvent.click(screen.getByRole('button', { name: 'Use the default' }));
    await waitFor(() => expect(n).toHaveValue('22'));
    expect(windows).toHaveValue('5');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByTestId('drift-default-alarm')).toHaveTextContent('Alarm rule 3 of the last 5 rows: filled in by the default');
    expect(screen.getByRole('textbox', { name: 'Alarm k' })).toHaveValue('3');
    expect(screen.getByRole('textbox', { name: 'Alarm n' })).toHaveValue('5');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Create only' }));
    await waitFor(() => expect(sent).not.toBeNull(), { timeout: 60_000 });
    expect(sent).toMatchObject({ windows: [5], drift_signals: ['Temperature', 'Thermocouple'], drift_rows: 22, models: [{ algorithm: 'pca_mspc', params: { alarm_k: 3, alarm_n: 5 } }] });
  }, 90_000);
});
