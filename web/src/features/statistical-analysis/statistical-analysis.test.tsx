import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, json, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { Evaluation, Project, RunState, TestResult } from './api';
import { showSnackbar } from '../../lib/feedback';
import { formatP, RUN_NOTICE } from './labels';

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
  id: 'ds1', name: 'Sleep', category: '', training_type: 'statistical_analysis', data_type: 'training_data', type: 'supervised', comment: '', file_name: 'sleep.csv',
  file_size: 300, encoding: 'utf-8', delimiter: ',', row_count: 20, column_count: 3, datetime_column: null, preprocessed: false, preprocess_history: [],
  parent_dataset_name: null, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
  files: { original: '', parquet: '' }, statistics: { state: 'none', job_id: null },
};
const schema = { ...dataset, columns: [{ name: 'extra', type: 'float', dtype: 'DOUBLE' }, { name: 'group', type: 'integer', dtype: 'BIGINT' }, { name: 'ID', type: 'integer', dtype: 'BIGINT' }] };

const project: Project = {
  id: 'p1', name: 'Sleep, Welch', comment: '', dataset_id: 'ds1', dataset_name: 'Sleep', test_type: 'two_sample_t', variable1: 'extra', variable2: null,
  category: 'group', group1: '1', group2: '2', groups: [], hypothetical_mean: 0, significance_level: 0.05, alternative: 'two-sided', equal_variance: 'welch',
  state: 'done', job_id: 'j1', error: null, summary: { statistic: 't', value: -1.8608, p_value: 0.07939414, reject: false, method: 'welch' },
  created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z', finished_at: '2025-05-20T02:00:01Z',
};

const group = (label: string, mean: number) => ({ label, n: 10, missing: 0, mean, sd: 1.8, se: 0.57, median: mean, q1: mean - 1, q3: mean + 1, min: -1.6, max: 5.5, ci_low: mean - 1.3, ci_high: mean + 1.3 });
const result: TestResult = {
  test_type: 'two_sample_t', method: 'welch', alternative: 'two-sided', alpha: 0.05, confidence_level: 0.95,
  statistic: { symbol: 't', value: -1.860813467 }, df: 17.77647352, df2: null, p_value: 0.07939414019, reject: false,
  estimate: { kind: 'mean_difference', value: -1.58 }, ci: { kind: 'mean_difference', level: 0.95, low: -3.365483231, high: 0.2054832307 },
  effect_size: { kind: 'cohens_d', value: -0.832, magnitude: 'large' }, groups: [group('1', 0.75), group('2', 2.33)],
  equal_variance: { mode: 'welch', levene_statistic: 0.24, levene_p: 0.62, pooled: false },
  assumptions: [{ check: 'normality', method: 'shapiro_wilk', target: '1', statistic: 0.93, p_value: 0.45, passed: true }, { check: 'normality', method: 'shapiro_wilk', target: '2', statistic: 0.86, p_value: 0.03, passed: false }],
  warnings: [{ code: 'normality_failed', params: { target: '2', p: 0.03 } }],
  n_missing: 0,
  seconds: 0.012,
  charts: {
    box: [{ label: '1', q1: 0, median: 0.35, q3: 1.7, low: -1.6, high: 3.7, mean: 0.75, outliers: [], outlier_count: 0, points: [0.7, -1.6] }],
    reference: { dist: 't', params: { df: 17.78 }, x: [-4, 0, 4], y: [0, 0.4, 0], observed: -1.86, observed_off_chart: false, critical_low: -2.1, critical_high: 2.1, alternative: 'two-sided' },
  },
  variables: { variable1: 'extra', variable2: null, category: 'group', group1: '1', group2: '2' },
};
const evaluation: Evaluation = {
  project_id: 'p1', reject: false, p_value: 0.0793941, alpha: 0.05, statistic_text: 't(17.776) = -1.8608', p_text: 'p = 0.07939',
  method_name: { en: "Welch's two-sample t-test", ja: 'ウェルチの2標本t検定' },
  sentence: { en: 'At the 5% significance level, no difference (t(17.776) = -1.8608, p = 0.07939). The null hypothesis is not rejected.', ja: '有意水準5%で、差は認められません。帰無仮説は棄却されません。' },
  effect_size: { kind: 'cohens_d', value: -0.832, magnitude: 'large', name: { en: "Cohen's d", ja: 'コーエンのd' }, magnitude_text: { en: 'large', ja: '大' } },
  warnings: [{ code: 'normality_failed', params: {}, text: { en: 'The data of "2" do not look normally distributed.', ja: '「2」は正規分布に従っていない可能性があります。' } }],
};

describe('statistical analysis pages', () => {
  it('formats p-values as R prints them', () => {
    expect(formatP(0.002832890197)).toBe('0.002833');
    expect(formatP(0.07939414019)).toBe('0.07939');
    expect(formatP(3e-9)).toBe('< 0.0001');
    expect(formatP(null)).toBe('—');
  });

  it('lists projects by state and starts a test from a chosen dataset', async () => {
    signIn();
    const calls = mockFetch({
      ...common,
      'GET /api/statistical/analysis/projects': () => ok({ items: [project], total: 1 }),
      'GET /api/statistical/analysis/projects/list': () => ok({ items: [], counts: { all: 3, done: 1, running: 1, failed: 1, ready: 0 } }),
      'GET /api/dataset': () => ok([dataset]),
      'GET /api/dataset/ds1/true': () => ok(schema),
    });
    const { router } = renderApp('/statistical-analysis');
    expect(await screen.findByRole('link', { name: 'Sleep, Welch' })).toHaveAttribute('href', '/statistical-analysis/details/p1');
    expect(screen.getByRole('cell', { name: '0.07939' })).toBeInTheDocument();
    expect(screen.getByText("Welch's two-sample t-test")).toBeInTheDocument();
    await userEvent.click(screen.getByRole('tab', { name: 'Failed (1)' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/api/statistical/analysis/projects' && c.url.searchParams.get('state') === 'failed')).toBe(true));
    await userEvent.click(screen.getByRole('combobox', { name: 'Dataset' }));
    await userEvent.click(await screen.findByRole('option', { name: /Sleep/ }));
    await userEvent.click(screen.getByRole('button', { name: 'New test' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/statistical-analysis/register/ds1'));
  });

  it('checks the significance level on the form and posts only the fields the test uses', async () => {
    signIn();
    let posted: unknown = null;
    mockFetch({
      ...common,
      'GET /api/dataset/ds1/true': () => ok(schema),
      'GET /api/statistical/analysis/values/ds1': () => ok({ column: 'group', type: 'integer', distinct: 2, values: [{ value: '1', count: 10 }, { value: '2', count: 10 }] }),
      'POST /api/statistical/analysis/register/ds1': (c) => {
        posted = c.body;
        return ok({ ...project, state: 'running' }, 201);
      },
      'GET /api/statistical/analysis/project/p1': () => ok(project),
      'GET /api/statistical/analysis/train/result/p1': () => ok({ project_id: 'p1', state: 'running', job_state: 'running', progress: 0.4, message: 'Testing', error: null, log: '', result: null, job_id: 'j1', started_at: null, finished_at: null }),
    });
    const { router } = renderApp('/statistical-analysis/register/ds1');
    await screen.findByText('Dataset: Sleep', {});
    await userEvent.click(screen.getByRole('combobox', { name: /Value column/ }));
    await userEvent.click(await screen.findByRole('option', { name: /extra/ }));
    await userEvent.click(screen.getByRole('combobox', { name: /Category/ }));
    await userEvent.click(await screen.findByRole('option', { name: /group/ }));
    await userEvent.click(screen.getByRole('combobox', { name: /Group 1/ }));
    await userEvent.click(await screen.findByRole('option', { name: '1 (10 rows)' }));
    await userEvent.click(screen.getByRole('combobox', { name: /Group 2/ }));
    await userEvent.click(await screen.findByRole('option', { name: '2 (10 rows)' }));
    const alpha = screen.getByRole('textbox', { name: /Significance level/ });
    await userEvent.clear(alpha);
    await userEvent.type(alpha, '1');
    await userEvent.click(screen.getByRole('button', { name: 'Run test' }));
    expect(await screen.findByText('The significance level must be greater than 0 and less than 1 (for example 0.05).')).toBeInTheDocument();
    expect(posted).toBeNull();
    await userEvent.clear(alpha);
    await userEvent.type(alpha, '0.01');
    await userEvent.click(screen.getByRole('button', { name: 'Run test' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/statistical-analysis/details/p1'));
    expect(posted).toEqual({
      name: 'Two-sample t-test: extra', comment: '', test_type: 'two_sample_t', variable1: 'extra', variable2: null, category: 'group', group1: '1', group2: '2',
      groups: [], hypothetical_mean: 0, significance_level: 0.01, alternative: 'two-sided', equal_variance: 'auto',
    });
    expect(await screen.findByText('The test is running…')).toBeInTheDocument();
    // While the run goes on, the notice that it started stays true and stays.
    expect(screen.getByText('The test is running.')).toBeInTheDocument();
  });

  it('withdraws "The test is running." once the run has ended', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/statistical/analysis/project/p1': () => ok({ ...project, state: 'failed', error: 'boom' }),
      'GET /api/statistical/analysis/train/result/p1': () => ok({ project_id: 'p1', state: 'failed', job_state: 'failed', progress: 1, message: '', error: 'boom', log: '', result: null, job_id: 'j1', started_at: null, finished_at: '2025-05-20T02:00:01Z' }),
    });
    renderApp('/statistical-analysis/details/p1');
    // As the register page leaves it: the notice is up when the details page opens.
    act(() => showSnackbar('The test is running.', 'success', RUN_NOTICE));
    // The pointer on the notice holds its auto-hide, so only the page can withdraw it.
    await userEvent.hover(screen.getByText('The test is running.'));
    expect(await screen.findByText('The test failed')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('The test is running.')).not.toBeInTheDocument());
  });

  it('leaves another notice alone when a run ends', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/statistical/analysis/project/p1': () => ok({ ...project, state: 'failed', error: 'boom' }),
      'GET /api/statistical/analysis/train/result/p1': () => ok({ project_id: 'p1', state: 'failed', job_state: 'failed', progress: 1, message: '', error: 'boom', log: '', result: null, job_id: 'j1', started_at: null, finished_at: '2025-05-20T02:00:01Z' }),
    });
    renderApp('/statistical-analysis/details/p1');
    act(() => showSnackbar('Saved.'));
    await userEvent.hover(screen.getByText('Saved.'));
    expect(await screen.findByText('The test failed')).toBeInTheDocument();
    expect(screen.getByText('Saved.')).toBeInTheDocument();
  });

  it("shows the server's field messages under the fields", async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/dataset/ds1/true': () => ok(schema),
      'POST /api/statistical/analysis/register/ds1': () => json({ detail: [{ loc: ['body', 'variable1'], msg: 'All values of "extra" are the same (zero variance); the test cannot be computed.', type: 'error' }] }, 422),
    });
    renderApp('/statistical-analysis/register/ds1');
    await screen.findByText('Dataset: Sleep', {});
    await userEvent.click(screen.getByRole('combobox', { name: /Test/ }));
    await userEvent.click(await screen.findByRole('option', { name: 'One-sample t-test' }));
    await userEvent.click(screen.getByRole('combobox', { name: /Variable 1/ }));
    await userEvent.click(await screen.findByRole('option', { name: /extra/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Run test' }));
    expect(await screen.findByText('All values of "extra" are the same (zero variance); the test cannot be computed.')).toBeInTheDocument();
  });

  it('shows the decision sentence, the figures, the warnings and the tables of a result', async () => {
    signIn();
    const run: RunState = { project_id: 'p1', state: 'done', job_id: 'j1', job_state: 'succeeded', progress: 1, message: '', error: null, log: '', started_at: null, finished_at: project.finished_at, result };
    mockFetch({
      ...common,
      'GET /api/statistical/analysis/project/p1': () => ok(project),
      'GET /api/statistical/analysis/train/result/p1': () => ok(run),
      'GET /api/statistical/analysis/eval/result/p1': () => ok(evaluation),
    });
    renderApp('/statistical-analysis/details/p1');
    expect(await screen.findByTestId('decision-sentence', {})).toHaveTextContent(evaluation.sentence.en);
    expect(screen.getByText('Null hypothesis not rejected')).toBeInTheDocument();
    expect(screen.getByTestId('p-value')).toHaveTextContent('0.07939');
    expect(screen.getByText('t(17.776) = -1.8608')).toBeInTheDocument();
    expect(screen.getByText('[-3.3655, 0.20548]')).toBeInTheDocument();
    expect(screen.getByText('-0.832 (large)')).toBeInTheDocument();
    expect(screen.getByText('The data of "2" do not look normally distributed.')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Descriptive statistics' });
    expect(within(table).getByRole('rowheader', { name: '2' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Reference distribution: t distribution (df = 17.78)' })).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Assumption checks' })).getByText('Warning')).toBeInTheDocument();
  });

  it('says why a run failed and offers to run it again', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/statistical/analysis/project/p1': () => ok({ ...project, state: 'failed', summary: null }),
      'GET /api/statistical/analysis/train/result/p1': () => ok({ project_id: 'p1', state: 'failed', job_id: 'j1', job_state: 'failed', progress: 0.4, message: '', error: 'The key column "k" repeats a key within group "a".', log: 'line', started_at: null, finished_at: null, result: null }),
    });
    renderApp('/statistical-analysis/details/p1');
    expect(await screen.findByText('The key column "k" repeats a key within group "a".', {})).toBeInTheDocument();
    await userEvent.click(screen.getAllByRole('button', { name: 'Run again' })[0]);
    expect(await screen.findByRole('dialog', { name: 'Run the test again' })).toBeInTheDocument();
  });
});
