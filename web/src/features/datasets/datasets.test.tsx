import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import type { Dataset, StatisticsJob } from '../../api/types';
import { ME, STATUS, json, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';

warmUp(() => import('./index'), () => import('./DatasetDetailsPage'), () => import('./DatasetRegisterPage'), () => import('./ColumnChart'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

const base: Dataset = {
  id: 'ds1',
  name: 'Reactor 3',
  category: 'plant',
  training_type: 'regression',
  data_type: 'training_data',
  type: 'supervised',
  comment: 'minute data',
  file_name: 'reactor.csv',
  file_size: 2048,
  encoding: 'cp932',
  delimiter: ';',
  row_count: 1234,
  column_count: 2,
  datetime_column: null,
  preprocessed: true,
  preprocess_history: [{ process_type: 'missing', action_name: 'mean', changes: { columns: ['temperature'], rows_before: 1234, rows_after: 1234 }, modified_at: '2025-05-02T03:10:00Z' }],
  parent_dataset_name: 'Reactor raw',
  created_at: '2025-05-20T02:00:00Z',
  updated_at: '2025-05-21T02:00:00Z',
  files: { original: 'datasets/ds1/original.csv', parquet: 'datasets/ds1/data.parquet' },
  statistics: { state: 'none', job_id: null },
};

const columns = [
  { name: 'temperature', type: 'float', dtype: 'DOUBLE', count: 1234, missing: 0, unique: 900, min: 60, max: 80, mean: 70.5, std: 3.2 },
  { name: 'valve', type: 'string', dtype: 'VARCHAR', count: 1230, missing: 4, unique: 3, min: null, max: null, mean: null, std: null },
];

const result: StatisticsJob['result'] = {
  row_count: 1234,
  column_count: 2,
  generated_at: '2025-05-22T00:00:00Z',
  columns: [
    { name: 'temperature', dtype: 'DOUBLE', kind: 'numeric', count: 1234, missing: 0, unique: 900, mean: 70.5, std: 3.2, min: 60, q1: 68, median: 70, q3: 73, max: 80, skewness: 0.1, kurtosis: -0.4, zeros: 0, infinite: 0, histogram: { edges: [60, 70, 80], counts: [600, 634] } },
    { name: 'valve', dtype: 'VARCHAR', kind: 'categorical', count: 1230, missing: 4, unique: 3, top: [{ value: 'open', count: 700 }, { value: 'closed', count: 530 }], other: 0 },
  ],
};

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const common = {
  'GET /api/users/me': () => ok(ME),
  'GET /api/services/status': () => ok(STATUS),
};

describe('dataset list', () => {
  it('asks the server for a page, sorted newest first, and searches after a pause', async () => {
    signIn();
    const calls = mockFetch({ ...common, 'GET /api/datasets/list/': () => ok({ items: [base], total: 1 }) });
    renderApp('/dataset');
    expect(await screen.findByRole('link', { name: 'Reactor 3' })).toHaveAttribute('href', '/dataset/details/ds1/training_data');
    const first = calls.find((c) => c.path === '/api/datasets/list/')!;
    expect(Object.fromEntries(first.url.searchParams)).toEqual({ query: '', page: '1', page_size: '20', data_type: '', type: '', sort: 'created_at_desc' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Search datasets' }), 'reac');
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('query') === 'reac')).toBe(true));
    expect(calls.filter((c) => c.path === '/api/datasets/list/' && c.url.searchParams.get('query')?.startsWith('r')).length).toBe(1);
  });

  it("says 'No results found' when nothing matches", async () => {
    signIn();
    mockFetch({ ...common, 'GET /api/datasets/list/': () => ok({ items: [], total: 0 }) });
    renderApp('/dataset');
    expect(await screen.findByText('No results found', {})).toBeInTheDocument();
  });

  it('deletes after confirmation', async () => {
    signIn();
    const calls = mockFetch({
      ...common,
      'GET /api/datasets/list/': () => ok({ items: [base], total: 1 }),
      'DELETE /api/dataset/delete/ds1': () => ok({ id: 'ds1' }),
    });
    renderApp('/dataset');
    await screen.findByRole('link', { name: 'Reactor 3' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete dataset' });
    expect(dialog).toHaveTextContent('Reactor 3');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/dataset/delete/ds1')).toBe(true));
    expect(await screen.findByText('The dataset was deleted.')).toBeInTheDocument();
  });
});

describe('a viewer', () => {
  it('reads the list but is offered no register, edit or delete', async () => {
    signIn();
    mockFetch({ ...common, 'GET /api/users/me': () => ok({ ...ME, role: 'viewer' }), 'GET /api/datasets/list/': () => ok({ items: [base], total: 1 }) });
    renderApp('/dataset');
    await screen.findByRole('link', { name: 'Reactor 3' });
    expect(screen.getByRole('button', { name: 'Download' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Register dataset' })).toBeNull();
  });
});

describe('dataset details', () => {
  it('shows the metadata, the history and loads the first page of rows', async () => {
    signIn();
    const calls = mockFetch({
      ...common,
      'GET /api/dataset/ds1/false': () => ok({ ...base, columns }),
      'GET /api/dataset/upload/ds1': () => ok({ columns: ['temperature', 'valve'], rows: [[70.1, 'open']], total: 1, page: 1, page_size: 100 }),
    });
    renderApp('/dataset/details/ds1/training_data');
    expect(await screen.findByRole('heading', { name: 'Reactor 3' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Reactor 3 | Mitate'));
    // The breadcrumb shows the dataset's name, not its id (issue 21).
    await waitFor(() => expect(screen.getByRole('navigation', { name: 'Breadcrumbs' })).toHaveTextContent('Reactor 3'));
    expect(screen.getByRole('navigation', { name: 'Breadcrumbs' })).not.toHaveTextContent('ds1');
    expect(screen.getByText('Shift_JIS (CP932)')).toBeInTheDocument();
    expect(screen.getByText('Semicolon (;)')).toBeInTheDocument();
    expect(screen.getByText('1,234 rows × 2 columns')).toBeInTheDocument();
    expect(screen.getByText('Reactor raw')).toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Preprocessing history' })).toHaveTextContent('rows_after: 1234');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/dataset/upload/ds1')).toBe(true));
    const rows = calls.find((c) => c.path === '/api/dataset/upload/ds1')!;
    expect(rows.url.search).toBe('?page=1&page_size=100');
    expect(screen.getByText('Rows per page:')).toBeInTheDocument();
  });

  it('names each column type one way, without the storage spelling (issue 33: Decimal beside DOUBLE)', async () => {
    signIn();
    mockFetch({ ...common, 'GET /api/dataset/ds1/false': () => ok({ ...base, columns }) });
    renderApp('/dataset/details/ds1/training_data?tab=columns');
    expect(await screen.findByText('Decimal')).toBeInTheDocument();
    expect(screen.queryByText('DOUBLE')).toBeNull();
    expect(screen.queryByText('Stored as')).toBeNull();
  });

  it('edits with PUT /api/dataset/{id}', async () => {
    signIn();
    const calls = mockFetch({
      ...common,
      'GET /api/dataset/ds1/false': () => ok({ ...base, columns }),
      'GET /api/dataset/upload/ds1': () => ok({ columns: [], rows: [], total: 0, page: 1, page_size: 100 }),
      'PUT /api/dataset/ds1': () => ok(base),
    });
    renderApp('/dataset/details/ds1/training_data');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit dataset' });
    const name = within(dialog).getByLabelText(/^Name/);
    await user.clear(name);
    await user.type(name, 'Reactor 3 (clean)');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
      name: 'Reactor 3 (clean)',
      category: 'plant',
      comment: 'minute data',
      training_type: 'regression',
      data_type: 'training_data',
      type: 'supervised',
    });
  });

  it('generates statistics, polls while running, then shows a table per column', async () => {
    signIn();
    const states: StatisticsJob[] = [
      { job_id: 'j1', state: 'queued', progress: 0, message: null, error: null, result: null },
      { job_id: 'j1', state: 'running', progress: 0.5, message: 'Column 1 of 2', error: null, result: null },
      { job_id: 'j1', state: 'succeeded', progress: 1, message: null, error: null, result },
    ];
    let poll = 0;
    const calls = mockFetch({
      ...common,
      'GET /api/dataset/ds1/false': () => ok({ ...base, columns }),
      'POST /api/statistics/ds1': () => ok({ job_id: 'j1', state: 'queued' }),
      'POST /api/statistics/result/ds1': () => ok(states[Math.min(poll++, states.length - 1)]),
    });
    renderApp('/dataset/details/ds1/training_data?tab=statistics');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Generate statistics' }));
    expect(await screen.findByText('Column 1 of 2', {})).toBeInTheDocument();
    const card = await screen.findByRole('table', { name: 'Statistics of temperature' });
    expect(card).toHaveTextContent('Median');
    expect(card).toHaveTextContent('Kurtosis');
    expect(screen.getByRole('table', { name: 'Statistics of valve' })).toBeInTheDocument();
    expect(screen.getByText('open')).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: 'temperature histogram' })).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: 'valve top values' })).toBeInTheDocument();
    expect(calls.filter((c) => c.path === '/api/statistics/result/ds1').length).toBeGreaterThanOrEqual(3);
    expect(screen.getByRole('button', { name: 'Run again' })).toBeInTheDocument();
  });

  it('shows the reason of a failure and offers to run again', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/dataset/ds1/false': () => ok({ ...base, columns, statistics: { state: 'failed', job_id: 'j1' } }),
      'POST /api/statistics/result/ds1': () => ok({ job_id: 'j1', state: 'failed', progress: 1, message: null, error: 'Worker ran out of memory.', result: null }),
    });
    renderApp('/dataset/details/ds1/training_data?tab=statistics');
    expect(await screen.findByText('Statistics generation failed.')).toBeInTheDocument();
    expect(screen.getByText('Worker ran out of memory.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run again' })).toBeEnabled();
  });

  it('a dataset that does not exist shows the server message', async () => {
    signIn();
    mockFetch({ ...common, 'GET /api/dataset/nope/false': () => json({ detail: { response: 'The dataset does not exist.', error: 'dataset_not_found' } }, 404) });
    renderApp('/dataset/details/nope/training_data');
    expect(await screen.findByRole('dialog', { name: 'Message' })).toHaveTextContent('The dataset does not exist.');
  });
});
