import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, mockFetch, ok, renderApp, signIn, STATUS, warmUp } from '../../test/utils';

warmUp(() => import('./index'));

const dataset = (id: string, name: string, rows: number, extra: Record<string, unknown> = {}) => ({
  id, name, category: 'pump', training_type: 'regression', data_type: 'training_data', type: 'supervised', comment: '',
  file_name: `${name}.csv`, file_size: 10, encoding: 'utf-8', delimiter: ',', row_count: rows, column_count: 3, datetime_column: null,
  preprocessed: false, preprocess_history: [], parent_dataset_name: null, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
  files: { original: '', parquet: '' }, statistics: { state: 'none', job_id: null }, ...extra,
});

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

describe('the dataset list of visualization and pre-processing', () => {
  it('lists, sorts and searches the datasets in the one list table, and opens one on a click', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset': () => ok([dataset('a', 'valve', 1147, { datetime_column: 't' }), dataset('b', 'concrete', 1030), dataset('c', 'steel', 20000, { preprocessed: true })]),
    });
    const user = userEvent.setup();
    const { router } = renderApp('/visualization');
    const table = await screen.findByRole('table', { name: 'Datasets' });
    await within(table).findByRole('cell', { name: 'valve' });
    expect(within(table).getByRole('cell', { name: '20,000' })).toBeInTheDocument();
    expect(within(table).getByText('Time series')).toBeInTheDocument();
    expect(within(table).getByText('Pre-processed')).toBeInTheDocument();
    // sorted by rows, largest first on the second click
    await user.click(within(table).getByRole('button', { name: 'Rows' }));
    await user.click(within(table).getByRole('button', { name: 'Rows' }));
    const names = () => within(table).getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell')[0].textContent);
    expect(names()).toEqual(['steel', 'valve', 'concrete']);
    await user.type(screen.getByRole('textbox', { name: 'Search datasets' }), 'zzz');
    expect(await within(table).findByText('No dataset matches the search.')).toBeInTheDocument();
    await user.clear(screen.getByRole('textbox', { name: 'Search datasets' }));
    await user.click(await within(table).findByRole('cell', { name: 'concrete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/visualization/details/b'));
  });
});
