import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { Project } from './api';
import { ModelStateCell, RunErrorAlert } from './labels';

warmUp(() => import('./index'));

// Issue 33: a run the person stopped kept the job's English words ("The job was cancelled.") on Japanese time-series
// and image project pages, under a "failed" chip.
describe('a stopped run', () => {
  afterEach(() => void i18n.changeLanguage('en'));

  it('reads as stopped in the reader language, not as the job error', async () => {
    await i18n.changeLanguage('ja');
    render(
      <>
        <RunErrorAlert error="The job was cancelled." jobState="cancelled" />
        <table>
          <tbody>
            <tr>
              <ModelStateCell state="failed" error="The job was cancelled." stopped />
            </tr>
          </tbody>
        </table>
      </>,
    );
    expect(screen.queryByText('The job was cancelled.')).toBeNull();
    expect(screen.getByText(/前回の学習は完了前に停止したため/)).toBeTruthy();
    expect(screen.getByText('完了前に停止しました。')).toBeTruthy();
  });

  it('still shows a real failure with its reason', () => {
    render(
      <>
        <RunErrorAlert error="The engine stopped: out of memory." jobState="failed" />
        <table>
          <tbody>
            <tr>
              <ModelStateCell state="failed" error="Too few rows." />
            </tr>
          </tbody>
        </table>
      </>,
    );
    expect(screen.getByText('The engine stopped: out of memory.')).toBeTruthy();
    expect(screen.getByText('Too few rows.')).toBeTruthy();
  });
});

// The tabular project page said a stopped run its own way ("Training failed" and the job's English words).
describe('a stopped tabular training run', () => {
  afterEach(() => {
    void i18n.changeLanguage('en');
    vi.unstubAllGlobals();
    setSession(null);
  });

  const job = { id: 'job-7', progress: 0.4, message: '', error: null, started_at: '2025-05-20T02:00:00Z', finished_at: '2025-05-20T02:01:00Z' };
  const model = { id: '1_ridge', model_key: '1_ridge', model_name: 'ridge', model_index: 1, algorithm: 'ridge', params: {}, hyperparameters: {}, cv: null, evaluation: null, pending: false, seconds: 1, state: 'failed', metrics: null, log: null, trained_at: null };
  const project = (jobState: string, error: string): Project => ({
    project_id: 'p1', id: 'p1', name: 'Concrete regression', project_type: 'regression', training_state: 'failed', dataset_id: 'ds1', parent_dataset_name: 'Concrete',
    number_of_data: 1030, target_variables: ['strength'], feature_variables: ['cement'], split_ratio: 0.85, split_time: null, cross_validation: 3, evaluation: 'holdout',
    significance_level: 0.05, number_of_trials: 3, auto_tune: true, balance_data: false, variance_threshold: 0, lags: [], windows: [], datetime_column: null,
    models: [{ ...model, error }], best_model_key: null, best_model_basis: 'cross_validation', models_done: 0, models_failed: 1,
    job: { ...job, state: jobState }, error, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
  } as Project);
  const show = (p: Project) => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/training/catalogue': () => ok({ types: [] }),
      'GET /api/train/result/p1': () => ok(p),
    });
    renderApp('/training/regress/details/p1');
  };

  it('reads as stopped in the reader language on the project page and in its models', async () => {
    await i18n.changeLanguage('ja');
    show(project('cancelled', 'The job was cancelled.'));
    expect(await screen.findByText(/前回の学習は完了前に停止したため/)).toBeTruthy();
    expect(screen.getByText('完了前に停止しました。')).toBeTruthy();
    expect(screen.queryByText(/The job was cancelled\./)).toBeNull();
  });

  it('shows a real failure with its reason', async () => {
    show(project('failed', 'The engine stopped: out of memory.'));
    expect(await screen.findAllByText('The engine stopped: out of memory.')).toHaveLength(2); // over the page and in the model's row
  });
});
