import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, ok, mockFetch, renderApp, signIn, warmUp } from '../../test/utils';
import type { Prediction } from './api';

warmUp(() => import('./index'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const common = { 'GET /api/users/me': () => ok(ME), 'GET /api/services/status': () => ok(STATUS) };

const prediction: Extract<Prediction, { project_type: 'discriminant_analysis' | 'clustering' }> = {
  id: 'pr1', name: 'Concrete · New mixes', project_id: 'p1', project_name: 'Concrete', project_type: 'discriminant_analysis', report_type: 'discriminant-analysis',
  model_key: '2_lightgbm', dataset_id: 'ds2', test_dataset: 'New mixes', state: 'done', progress: 1, message: 'Done', error: null, log: '',
  result: { rows: 2, columns: ['predicted_grade', 'probability_A', 'probability_B', 'x'], outputs: ['predicted_grade', 'probability_A', 'probability_B'], condition_applied: null, counts: { A: 1, B: 1 } },
  created_at: '2025-05-20T02:00:00Z', finished_at: '2025-05-20T02:00:03Z',
};

const regression = {
  project_id: 'p1', id: 'p1', name: 'Concrete regression', project_type: 'regression', training_state: 'done', dataset_id: 'ds1', parent_dataset_name: 'Concrete',
  number_of_data: 1030, target_variables: ['strength'], feature_variables: ['cement', 'water'], split_ratio: 0.85, split_time: null, cross_validation: 3, evaluation: 'holdout',
  significance_level: 0.05, number_of_trials: 3, auto_tune: true, balance_data: false, variance_threshold: 0, lags: [], windows: [], datetime_column: null,
  models: [
    { id: '1_ridge', model_key: '1_ridge', model_name: 'ridge', model_index: 1, algorithm: 'ridge', params: {}, hyperparameters: {}, cv: null, evaluation: null, pending: false, seconds: 1, state: 'done',
      metrics: { r2: 0.61, rmse: 4.2, mae: 3.1, mape: 10 }, error: null, log: null, trained_at: null },
  ],
  best_model_key: '1_ridge', best_model_basis: 'cross_validation', models_done: 1, models_failed: 0, job: null, error: null, created_at: '', updated_at: '',
};

describe('prediction pages', () => {
  it('shows the predictions beside the input rows, the counts, and deletes', async () => {
    signIn();
    let deleted = false;
    mockFetch({
      ...common,
      'GET /api/inference/pr1': () => ok(prediction),
      'GET /api/inference/pr1/rows': () =>
        ok({ columns: prediction.result!.columns, outputs: prediction.result!.outputs, rows: [['A', 0.91234567, 0.08765433, 1.5], ['B', 0.2, 0.8, 2.25]], total: 2, page: 1, page_size: 50 }),
      'DELETE /api/inference/delete/pr1': () => {
        deleted = true;
        return ok({ id: 'pr1' });
      },
      'GET /api/inference/list/': () => ok({ items: [], total: 0 }),
    });
    const { router } = renderApp('/prediction/discriminant-analysis/report/pr1');
    expect(await screen.findByRole('columnheader', { name: 'predicted_grade' })).toBeInTheDocument();
    expect(screen.getByRole('gridcell', { name: '0.9123' })).toBeInTheDocument(); // outputs are rounded
    expect(screen.getByRole('gridcell', { name: '2.25' })).toBeInTheDocument(); // inputs are shown as they are
    expect(screen.getByRole('img', { name: 'Rows per predicted value' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeEnabled();
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/prediction'));
    expect(deleted).toBe(true);
  });

  it('shows a failed prediction with its reason', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/inference/pr1': () => ok({ ...prediction, state: 'failed', result: null, error: 'The column "grade" holds the category "C" that the training data did not have.' }),
    });
    renderApp('/prediction/discriminant-analysis/report/pr1');
    expect(await screen.findByText(/holds the category "C"/, {})).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeDisabled();
  });

  it('opens the wizard from a table model without asking the images area about the project', async () => {
    signIn();
    const calls = mockFetch({ ...common, 'GET /api/train/result/p1': () => ok(regression), 'GET /api/dataset': () => ok([]) });
    renderApp('/training/prediction/register/p1/1_ridge');
    expect(await screen.findByRole('combobox', { name: /Model/ })).toHaveTextContent('1_ridge');
    expect(calls.filter((c) => c.path.startsWith('/api/image/'))).toEqual([]);
  });

  it('opens the images area wizard from an image model, by the project type train/result gives', async () => {
    signIn();
    const image = { ...regression, project_id: 'p2', id: 'p2', project_type: 'classification', models: [], best_model_key: null };
    const calls = mockFetch({ ...common, 'GET /api/train/result/p2': () => ok(image), 'GET /api/dataset': () => ok([]) });
    renderApp('/training/prediction/register/p2/1_resnet');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/image/train/result/p2')).toBe(true));
  });

  it('lists a detector by its name, translated metric labels and the threshold in force', async () => {
    signIn();
    const detector = { ...regression.models[0], id: '2_isolation_forest', model_key: '2_isolation_forest', model_name: 'isolation_forest', algorithm: 'isolation_forest', metrics: { f1: null, far: 0.012, threshold: 0.5442 } };
    const tsType = 'time_series_anomaly_detection_unsupervised';
    const calls = mockFetch({
      ...common,
      'GET /api/train/result/p3': () => ok({ ...regression, project_id: 'p3', id: 'p3', project_type: tsType, models: [detector], best_model_key: '2_isolation_forest' }),
      // the time-series view: a person saved 0.6 after training chose 0.5442
      'GET /api/timseseries/project/p3': () =>
        ok({ project_id: 'p3', id: 'p3', project_type: tsType, models: [{ ...detector, label: 'Isolation Forest', trained_threshold: 0.5442, saved_threshold: 0.6, threshold: 0.6 }] }),
      'GET /api/dataset': () => ok([]),
    });
    renderApp('/training/prediction/register/p3/2_isolation_forest');
    const picker = await screen.findByRole('combobox', { name: /Model/ });
    await waitFor(() => expect(picker).toHaveTextContent('Isolation Forest — FAR 1.2 % · Threshold 0.6 (saved)'));
    expect(picker).not.toHaveTextContent(/metrics\.|0\.5442|F1/);
    expect(calls.filter((c) => c.path.startsWith('/api/image/'))).toEqual([]);
  });

  it('predicts on a file: uploaded in place, it becomes an inference dataset of the project type and is chosen', async () => {
    signIn();
    const uploaded = {
      id: 'ds9', name: 'new mixes', category: '', training_type: 'regression', data_type: 'inference_data', type: 'supervised', comment: 'Uploaded in the prediction wizard.', file_name: 'new mixes.csv',
      file_size: 30, encoding: 'utf-8', delimiter: ',', row_count: 2, column_count: 2, datetime_column: null, preprocessed: false, parent_dataset_name: null, created_at: '2026-11-28T00:00:00Z',
      updated_at: '2026-11-28T00:00:00Z', created_by: 'u1', statistics: { state: 'none', job_id: null },
    };
    let listed: object[] = [];
    const sent: FormData[] = [];
    class Xhr {
      status = 0;
      responseText = '';
      upload: { onprogress: ((e: ProgressEvent) => void) | null; onload: (() => void) | null } = { onprogress: null, onload: null };
      onload: (() => void) | null = null;
      onerror: (() => void) | null = null;
      onabort: (() => void) | null = null;
      open() {}
      setRequestHeader() {}
      abort() {}
      send(body: FormData) {
        sent.push(body);
        setTimeout(() => {
          this.upload.onprogress?.({ lengthComputable: true, loaded: 100, total: 100 } as ProgressEvent);
          this.status = 201;
          this.responseText = JSON.stringify({ detail: { response: uploaded } });
          listed = [uploaded];
          this.onload?.();
        }, 5);
      }
    }
    vi.stubGlobal('XMLHttpRequest', Xhr);
    const calls = mockFetch({
      ...common,
      'GET /api/train/result/p1': () => ok(regression),
      'GET /api/dataset': () => ok(listed),
      'GET /api/dataset/ds9/true': () => ok({ columns: [{ name: 'cement' }, { name: 'water' }] }),
      'POST /api/inference/execute/p1/1_ridge': () => ok({ ...prediction, project_type: 'regression', report_type: 'regression' }),
    });
    renderApp('/training/prediction/register/p1/1_ridge');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    // a file of another type is refused before anything is sent
    fireEvent.change(screen.getByTestId('predict-upload-file'), { target: { files: [new File(['x'], 'photo.jpg', { type: 'image/jpeg' })] } });
    expect(await screen.findByText(/Choose a file of these types/)).toBeInTheDocument();
    expect(sent).toHaveLength(0);
    fireEvent.change(screen.getByTestId('predict-upload-file'), { target: { files: [new File(['cement,water\n1,2\n3,4\n'], 'new mixes.csv', { type: 'text/csv' })] } });
    expect(await screen.findByText('Registered "new mixes" as an inference dataset.')).toBeInTheDocument();
    expect(Object.fromEntries([...sent[0].entries()].filter(([k]) => k !== 'file'))).toMatchObject({ name: 'new mixes', data_type: 'inference_data', training_type: 'regression', type: 'supervised' });
    await waitFor(() => expect(screen.getByRole('combobox', { name: /Inference dataset/ })).toHaveValue('new mixes (2 × 2)'));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Predict' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/inference/execute/p1/1_ridge')).toBe(true));
  });
});
