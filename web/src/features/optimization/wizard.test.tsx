import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';

warmUp(() => import('./index'));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const model = {
  id: '1_lightgbm', model_key: '1_lightgbm', model_name: 'lightgbm', model_index: 1, algorithm: 'lightgbm', params: {}, hyperparameters: {}, cv: null, evaluation: null, pending: false,
  seconds: 1, state: 'done', metrics: { r2: 0.91, rmse: 4.2, mae: 3.1, mape: 10 }, error: null, log: null, trained_at: null,
};
const project = {
  project_id: 'p1', id: 'p1', name: 'Concrete', project_type: 'regression', training_state: 'done', dataset_id: 'ds1', parent_dataset_name: 'Concrete', number_of_data: 1030,
  target_variables: ['strength'], feature_variables: ['cement', 'water'], split_ratio: 0.85, split_time: null, cross_validation: 3, evaluation: 'holdout', significance_level: 0.05,
  number_of_trials: 3, auto_tune: false, balance_data: false, variance_threshold: 0, lags: [], windows: [], datetime_column: null, models: [model], best_model_key: '1_lightgbm',
  best_model_basis: 'cross_validation', models_done: 1, models_failed: 0, job: null, error: null, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
};

describe('optimization wizard', () => {
  it("names the chosen model's metrics (R², RMSE…), never the engine's keys (issue 33)", async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/project/list/': (c) => ok(c.url.searchParams.get('project_type') === 'regression' ? { items: [project], total: 1 } : { items: [], total: 0 }),
      'POST /api/optimization/preprocess/p1': () =>
        ok({ dataset_id: 'ds1', dataset_name: 'Concrete', targets: [{ name: 'strength', min: 2, max: 82, model_key: '1_lightgbm', project_id: 'p1' }], features: [] }),
    });
    renderApp('/training/optimization/register/p1/1_lightgbm');
    await userEvent.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await screen.findByText('R²', {}, { timeout: 20000 })).toBeInTheDocument();
    for (const label of ['RMSE', 'MAE', 'MAPE (%)']) expect(screen.getByText(label)).toBeInTheDocument();
    for (const raw of ['r2', 'rmse', 'mae', 'mape']) expect(screen.queryByText(raw)).toBeNull();
  });

  it('labels each bound field by its bound alone (the row names the feature), its accessible name keeping both (issue 33)', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/project/list/': (c) => ok(c.url.searchParams.get('project_type') === 'regression' ? { items: [project], total: 1 } : { items: [], total: 0 }),
      'POST /api/optimization/preprocess/p1': () =>
        ok({
          dataset_id: 'ds1', dataset_name: 'Concrete', targets: [{ name: 'strength', min: 2, max: 82, model_key: '1_lightgbm', project_id: 'p1' }],
          features: [{ name: 'blast_furnace_slag', kind: 'numeric', min: 0, max: 359.4, mean: 73.9, levels: [] }],
        }),
    });
    renderApp('/training/optimization/register/p1/1_lightgbm');
    const user = userEvent.setup();
    for (let i = 0; i < 3; i++) await user.click(await screen.findByRole('button', { name: 'Next' }, { timeout: 20000 }));
    const lower = await screen.findByRole('textbox', { name: 'blast_furnace_slag Lower' }, { timeout: 20000 });
    expect(lower).toHaveValue('0');
    // the visible label is the bound alone, so it is never cut to 'blast_furnace_slag Lo…'
    expect(lower.closest('.MuiFormControl-root')?.querySelector('label')?.textContent).toBe('Lower');
    expect(screen.getByRole('textbox', { name: 'blast_furnace_slag Upper' }).closest('.MuiFormControl-root')?.querySelector('label')?.textContent).toBe('Upper');
  });
});
