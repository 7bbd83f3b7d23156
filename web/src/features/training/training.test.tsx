import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { ME, STATUS, ok, mockFetch, renderApp, signIn, warmUp } from '../../test/utils';
import type { Catalogue, Project } from './api';

warmUp(() => import('./index'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const common = {
  'GET /api/users/me': () => ok(ME),
  'GET /api/services/status': () => ok(STATUS),
};

const dataset = {
  id: 'ds1', name: 'Concrete', category: '', training_type: 'regression', data_type: 'training_data', type: 'supervised', comment: '', file_name: 'c.csv',
  file_size: 300, encoding: 'utf-8', delimiter: ',', row_count: 1030, column_count: 3, datetime_column: null, preprocessed: false, preprocess_history: [],
  parent_dataset_name: null, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z', files: { original: '', parquet: '' }, statistics: { state: 'none', job_id: null },
  columns: [
    { name: 'cement', type: 'float', dtype: 'DOUBLE', missing: 0, unique: 200 },
    { name: 'water', type: 'float', dtype: 'DOUBLE', missing: 0, unique: 150 },
    { name: 'strength', type: 'float', dtype: 'DOUBLE', missing: 0, unique: 900 },
    { name: 'grade', type: 'string', dtype: 'VARCHAR', missing: 0, unique: 3 },
  ],
};

const catalogue: Catalogue = {
  types: [
    {
      type: 'regression',
      prefix: 'regress',
      supervised: true,
      algorithms: [
        // names, labels and help come from the server in the reader's language (engine messages.json)
        { key: 'ridge', label: 'Ridge', tree: false, params: [{ name: 'alpha', kind: 'float', default: 1, low: 0.0001, high: 1000, log: true, tune: true, label: 'Regularisation strength (alpha)', help: 'Larger values shrink the coefficients more.' }] },
        { key: 'lightgbm', label: 'LightGBM', tree: true, params: [{ name: 'n_estimators', kind: 'int', default: 100, low: 20, high: 1000, tune: true, label: 'Number of trees', help: 'More trees give steadier results.' }] },
      ],
    },
  ],
};

const model = (key: string, state: 'done' | 'failed', r2: number | null) => ({
  id: key, model_key: key, model_name: key.split('_')[1], model_index: Number(key[0]), algorithm: key.split('_')[1], params: {}, hyperparameters: {},
  cv: state === 'done' ? { metric: 'R²', folds: [0.9, 0.91], mean: 0.905, std: 0.005 } : null, evaluation: null, pending: false, seconds: 1.2, state,
  metrics: r2 === null ? null : { r2, rmse: 4.2, mae: 3.1, mape: 10 }, error: state === 'failed' ? 'LightGBM is limited to 3,000 training rows' : null,
  log: state === 'failed' ? 'trial 1/2 ...\nfailed' : null, trained_at: null,
});

const project: Project = {
  project_id: 'p1', id: 'p1', name: 'Concrete regression', project_type: 'regression', training_state: 'done', dataset_id: 'ds1', parent_dataset_name: 'Concrete',
  number_of_data: 1030, target_variables: ['strength'], feature_variables: ['cement', 'water'], split_ratio: 0.85, split_time: null, cross_validation: 3, evaluation: 'holdout',
  significance_level: 0.05, number_of_trials: 3, auto_tune: true, balance_data: false, variance_threshold: 0, lags: [], windows: [], datetime_column: null,
  models: [model('1_ridge', 'done', 0.61), model('2_lightgbm', 'failed', null)], best_model_key: '1_ridge', best_model_basis: 'cross_validation', models_done: 1, models_failed: 1,
  job: null, error: null, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
};

describe('training pages', () => {
  it('walks the six wizard steps, shows the SPEC §5 messages, and posts only changed hyper-parameters', async () => {
    signIn();
    let posted: unknown = null;
    let trained = false;
    mockFetch({
      ...common,
      'GET /api/dataset/ds1/false': () => ok(dataset),
      'GET /api/training/catalogue': () => ok(catalogue),
      'POST /api/regress/register/ds1': (c) => {
        posted = c.body;
        return ok(project);
      },
      'POST /api/train/model/p1': () => {
        trained = true;
        return ok({ ...project, training_state: 'training' });
      },
      'GET /api/train/result/p1': () => ok(project),
    });
    const { router } = renderApp('/training/regression/register/ds1');
    expect(await screen.findByRole('cell', { name: 'strength' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Please select the target variable')).toBeInTheDocument();
    expect(screen.getByText('Please select feature variables')).toBeInTheDocument();
    // a regression target must be numeric: the text column is not offered
    await userEvent.click(screen.getByRole('combobox', { name: /Target variable/ }));
    expect(screen.queryByRole('option', { name: 'grade' })).toBeNull();
    await userEvent.click(await screen.findByRole('option', { name: 'strength' }));
    await userEvent.click(screen.getByRole('button', { name: 'Select all' }));
    const features = screen.getByRole('group', { name: 'Feature variables' });
    expect(within(features).queryByRole('checkbox', { name: 'strength' })).toBeNull();
    expect(within(features).getAllByRole('checkbox', { checked: true })).toHaveLength(3);
    await userEvent.click(within(features).getByRole('checkbox', { name: 'grade' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const cv = screen.getByRole('textbox', { name: 'Cross-validation folds' });
    await userEvent.clear(cv);
    await userEvent.type(cv, '1');
    expect(screen.getByText('Please enter default, 2 or more numbers')).toBeInTheDocument();
    await userEvent.clear(cv);
    await userEvent.type(cv, '4');
    const split = screen.getByRole('textbox', { name: 'Training share' });
    await userEvent.clear(split);
    await userEvent.type(split, '0.812345678');
    expect(screen.getByText('At most 7 digits after the decimal point.')).toBeInTheDocument();
    await userEvent.clear(split);
    await userEvent.type(split, '0.8');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    // LightGBM comes ticked (issue 33: the defaults train as they stand); unticking it leaves none, which is refused
    expect(screen.getByRole('checkbox', { name: 'LightGBM' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Ridge' })).not.toBeChecked();
    await userEvent.click(screen.getByRole('checkbox', { name: 'LightGBM' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('At least one model must be selected')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Ridge' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'LightGBM' }));
    expect(screen.getByText(/default 100/)).toBeInTheDocument();
    // each hyper-parameter by its label, with what it does (not the code name)
    expect(screen.getByText(/More trees give steadier results\./)).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'n_estimators' })).toBeNull();
    const trees = screen.getByRole('textbox', { name: 'Number of trees' });
    await userEvent.clear(trees);
    await userEvent.type(trees, '300');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Ridge, LightGBM')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create and start' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/regress/details/p1'));
    expect(posted).toMatchObject({
      target_variables: ['strength'],
      feature_variables: ['cement', 'water'],
      cross_validation: 4,
      split_ratio: 0.8,
      models: [{ algorithm: 'ridge', params: {} }, { algorithm: 'lightgbm', params: { n_estimators: 300 } }],
    });
    expect(trained).toBe(true);
  }, 90_000);

  it('lists image projects beside the table ones: type, state, link to the image page, delete at the images area', async () => {
    signIn();
    const image = {
      ...project, project_id: 'img1', id: 'img1', name: 'Tiles OK/NG', project_type: 'analysis', training_state: 'training', parent_dataset_name: 'tiles.zip',
      target_variables: [], feature_variables: undefined, models: [model('1_patchcore', 'done', null)], best_model_key: null, models_done: 0, models_failed: 0,
    } as unknown as Project;
    let items: Project[] = [image, project];
    const calls = mockFetch({
      ...common,
      'GET /api/project/list/': (c) => ok({ items: items.filter((p) => !c.url.searchParams.get('project_type') || p.project_type === c.url.searchParams.get('project_type')), total: items.length }),
      'DELETE /api/project/delete/img1': () => {
        items = items.filter((p) => p.project_id !== 'img1');
        return ok({ id: 'img1' });
      },
      'GET /api/dataset': () => ok([]),
    });
    renderApp('/training');
    const link = await screen.findByRole('link', { name: 'Tiles OK/NG' });
    expect(link).toHaveAttribute('href', '/training/details/img1');
    const row = link.closest('tr') as HTMLElement;
    expect(within(row).getByText('Image analysis (OK/NG)')).toBeInTheDocument();
    expect(within(row).getByText('Training ongoing')).toBeInTheDocument();
    // the type filter offers the image types
    await userEvent.click(screen.getByRole('combobox', { name: 'Type' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Image analysis (OK/NG)' }));
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('project_type') === 'analysis')).toBe(true), { timeout: 60_000 });
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Concrete regression' })).toBeNull(), { timeout: 60_000 });
    await userEvent.click(within(screen.getByRole('link', { name: 'Tiles OK/NG' }).closest('tr') as HTMLElement).getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/project/delete/img1')).toBe(true), { timeout: 60_000 });
  });

  it('lists models with metrics, links the report, and shows a failed model its log', async () => {
    signIn();
    mockFetch({ ...common, 'GET /api/train/result/p1': () => ok(project), 'GET /api/training/catalogue': () => ok(catalogue) });
    renderApp('/training/regress/details/p1');
    const table = await screen.findByRole('table', { name: 'Models' });
    expect(within(table).getByText('0.6100')).toBeInTheDocument();
    // issue 15: the test columns are labelled as such and the page says the best model was chosen on validation
    expect(within(table).getByRole('columnheader', { name: 'R² (test)' })).toBeInTheDocument();
    expect(screen.getByText(/chosen by the cross-validated score/)).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Report 1_ridge' })).toBeInTheDocument();
    // each model's algorithm by its name from the catalogue, beside its key
    expect(await within(table).findByText('Ridge')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Report 2_lightgbm' })).toBeNull();
    await userEvent.click(within(table).getByRole('button', { name: 'Log' }));
    const dialog = await screen.findByRole('dialog', { name: 'Log of 2_lightgbm' });
    expect(within(dialog).getByText('LightGBM is limited to 3,000 training rows')).toBeInTheDocument();
  });

  it('stops a training in progress after asking, through the job it runs (issue 34)', async () => {
    signIn();
    let running = true;
    const job = { id: 'job-7', state: 'running', progress: 0.4, message: 'final fit: boosting round 120 of 1000', error: null, started_at: '2025-05-20T02:00:00Z', finished_at: null };
    const calls = mockFetch({
      ...common,
      'GET /api/training/catalogue': () => ok(catalogue),
      'GET /api/train/result/p1': () => ok(running ? { ...project, training_state: 'training', job } : { ...project, training_state: 'failed', error: 'Stopped', job: { ...job, state: 'cancelled' } }),
      'POST /api/jobs/job-7/cancel': () => {
        running = false;
        return ok({ ...job, state: 'cancelled' });
      },
    });
    renderApp('/training/regress/details/p1');
    expect(await screen.findByText(/boosting round 120 of 1000/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    const dialog = await screen.findByRole('dialog', { name: 'Stop the training?' });
    expect(calls.some((c) => c.path === '/api/jobs/job-7/cancel')).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/jobs/job-7/cancel')).toBe(true), { timeout: 60_000 });
    expect(await screen.findByText('Training stopped.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull(), { timeout: 60_000 });
    // a stopped run is said as such, not as a failure with the job's own words
    expect(await screen.findByText(/was stopped before it finished/)).toBeInTheDocument();
    expect(screen.queryByText(/Training failed/)).toBeNull();
  });

  it('a report with a small test set says so and leads with repeated cross-validation (issue 15)', async () => {
    signIn();
    const report = {
      metrics: { r2: -18.07, rmse: 6.18 }, train_metrics: { r2: 0.95, rmse: 2.3 }, charts: {}, permutation_importance: [], shap: null,
      cv: { metric: 'R²', folds: [0.9, 0.93, 0.92], mean: 0.92, std: 0.01 }, train_rows: 18, test_rows: 3, seconds: 2, hyperparameters: { alpha: 2 }, defaults: { alpha: 1 },
      label: 'Ridge regression', param_labels: { alpha: 'Regularisation strength (alpha)' },
      auto_tune: { enabled: false, trials: [] }, pending: false,
      evaluation: { mode: 'holdout', test_rows: 3, threshold: 30, small_test: true, headline: 'repeated_cv',
        repeated_cv: { metric: 'R²', mean: 0.8435, std: 0.1667, folds: 3, repeats: 10, low: 0.7373, high: 0.9582 } },
    };
    mockFetch({ ...common, 'POST /api/regress/report/p1': () => ok({ project, model: { ...project.models[0], label: 'Ridge regression' }, report }) });
    renderApp('/training/regress/result/report/p1/1_ridge');
    expect(await screen.findByText(/Small test set: only 3 test rows \(fewer than 30\)/)).toBeInTheDocument();
    expect(screen.getByText('Repeated cross-validation (R²) — headline')).toBeInTheDocument();
    expect(screen.getByText('0.8435')).toBeInTheDocument();
    // the algorithm's name and each hyper-parameter's label as the server gives them in the reader's language
    expect(screen.getByRole('heading', { name: /Ridge regression/ })).toBeInTheDocument();
    const hp = screen.getByRole('region', { name: 'Hyper-parameters used' });
    expect(within(hp).getByText('Regularisation strength (alpha)')).toBeInTheDocument();
    // the breadcrumb calls the model by its algorithm's name, not its key
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' });
    await waitFor(() => expect(crumbs).toHaveTextContent('Ridge regression'));
    expect(crumbs).not.toHaveTextContent('1_ridge');
  });

  it('a report on a large table states the rows each step used (issue 34)', async () => {
    signIn();
    const report = {
      metrics: { r2: 0.9, rmse: 1.2 }, train_metrics: { r2: 0.91, rmse: 1.1 }, charts: {}, permutation_importance: [], shap: null,
      cv: { metric: 'R²', folds: [0.9, 0.9, 0.9, 0.9, 0.9], mean: 0.9, std: 0 }, train_rows: 8500000, test_rows: 1500000, seconds: 60, hyperparameters: {}, defaults: {},
      label: 'LightGBM', auto_tune: { enabled: false, trials: [] }, pending: false, evaluation: null,
      sampling: { large: true, final_fit_rows: 8500000, test_rows: 1500000, cv: { rows: 300000, of: 8500000, folds: 5, sample: 'random' },
        train_metric_rows: 200000, importance_rows: 2000, shap_rows: 400, chart_points: 2000 },
    };
    mockFetch({ ...common, 'POST /api/regress/report/p1': () => ok({ project, model: { ...project.models[0], label: 'LightGBM' }, report }) });
    renderApp('/training/regress/result/report/p1/1_ridge');
    const note = await screen.findByTestId('report-sampling');
    expect(note).toHaveTextContent('5-fold cross-validation on a 300,000-row random sample of the 8,500,000 training rows; the final model is trained on all 8,500,000 training rows.');
    expect(note).toHaveTextContent('SHAP on 400 test rows');
  });

  it('a model boosted on the Dask cluster says where, in English and Japanese (issue 34)', async () => {
    signIn();
    const report = {
      metrics: { r2: 0.97, rmse: 0.4 }, train_metrics: { r2: 0.98, rmse: 0.3 }, charts: {}, permutation_importance: [], shap: null, cv: null,
      train_rows: 8500000, test_rows: 1500000, seconds: 95, hyperparameters: { n_estimators: 100 }, defaults: { n_estimators: 100 },
      label: 'LightGBM', auto_tune: { enabled: false, trials: [] }, pending: false,
      trained_on: { engine: 'dask', scheduler: 'tcp://dask-scheduler:8786', workers: 4 },
    };
    mockFetch({ ...common, 'POST /api/regress/report/p1': () => ok({ project, model: { ...project.models[0], label: 'LightGBM' }, report }) });
    renderApp('/training/regress/result/report/p1/1_ridge');
    expect(await screen.findByText(/trained on the Dask cluster at tcp:\/\/dask-scheduler:8786, 4 workers/)).toBeInTheDocument();
    await i18n.changeLanguage('ja');
    try {
      expect(await screen.findByText(/Daskクラスター tcp:\/\/dask-scheduler:8786 で学習（ワーカー4台）/)).toBeInTheDocument();
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
