import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { json, ME, mockFetch, ok, renderApp, signIn, STATUS } from '../../test/utils';

const DATASET = {
  id: 'ds-1', name: 'valve', category: '', training_type: 'regression', data_type: 'training_data', type: 'supervised', comment: '',
  file_name: 'valve.csv', file_size: 10, encoding: 'utf-8', delimiter: ',', row_count: 3, column_count: 3, datetime_column: 't',
  preprocessed: false, preprocess_history: [], parent_dataset_name: null, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
  files: { original: '', parquet: '' }, statistics: { state: 'none', job_id: null },
};
const COLUMNS = [
  { name: 't', type: 'datetime', dtype: 'TIMESTAMP', count: 3, missing: 0 },
  { name: 'Current', type: 'float', dtype: 'DOUBLE', count: 3, missing: 0, mean: 1 },
  { name: 'Voltage', type: 'float', dtype: 'DOUBLE', count: 3, missing: 1, mean: 230 },
];
const PREVIEW = {
  step: { process_type: 'computed', method: 'expression', columns: [], params: { name: 'power', expression: 'Current * Voltage' }, fitted: {} },
  step_label: 'Step 1', rows_before: 3, rows_after: 3, rows_removed: 0, rows_changed: 2, cells_changed: { power: 2 }, columns_before: 3, columns_after: 4,
  columns_added: ['power'], columns_dropped: [], order_changed: false, target_columns: ['power'],
  affected_rows: [{ row: 0, status: 'changed', before: { t: '2020-01-01T00:00:00' }, after: { t: '2020-01-01T00:00:00', power: 230 } }],
  affected_columns: ['t', 'power'], chart: null, sample: false, sample_rows: 3, total_rows: 3,
};

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

describe('pre-processing details page', () => {
  it('builds a step, previews it, and asks before overwriting a condition of the same name', async () => {
    signIn();
    let runs = 0;
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'POST /api/load/dataset/ds-1': () => ok({ dataset: DATASET, columns: COLUMNS, rows: [['2020-01-01T00:00:00', 1, 230]], row_count: 3 }),
      'GET /api/preprocess/conditions': () => ok([]),
      'POST /api/manual/process/dataset/ds-1': () => ok(PREVIEW),
      'POST /api/preprocess/dataset/ds-1': () =>
        ++runs === 1
          ? json({ detail: { response: 'A condition named "mine" already exists. Confirm to overwrite it.', error: 'error' } }, 409)
          : ok({ temp_id: 'job-1', job_id: 'job-1', state: 'queued', condition_id: 'c1', condition_name: 'mine' }),
      'GET /api/preprocess/result/job-1': () => ok({ temp_id: 'job-1', state: 'running', progress: 0.5, message: 'Step 1 of 1', steps: [], result: null, dataset_id: null }),
    });
    const user = userEvent.setup();
    renderApp('/pre-processing/details/ds-1');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(screen.getAllByRole('button', { name: 'Add step' })[0]);
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('combobox', { name: 'Process type' }));
    await user.click(await screen.findByRole('option', { name: 'Computed column' }));
    // Nothing filled in: the dialog says what is missing and does not close.
    await user.click(within(dialog).getByRole('button', { name: 'Add step' }));
    expect(within(dialog).getByText('Give the new column a name.')).toBeInTheDocument();
    await user.type(within(dialog).getByRole('textbox', { name: /New column name/ }), 'power');
    await user.type(within(dialog).getByRole('textbox', { name: /Expression/ }), 'Current * Voltage');
    await user.click(within(dialog).getByRole('button', { name: 'Add step' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByText(/New column name: power/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByText('Added: power')).toBeInTheDocument();
    expect(screen.getByText('power: 2 values changed')).toBeInTheDocument();
    const preview = calls.find((c) => c.path === '/api/manual/process/dataset/ds-1')!;
    expect(preview.body).toEqual({ steps: [{ process_type: 'computed', method: 'expression', columns: [], params: { name: 'power', expression: 'Current * Voltage' } }], index: 0 });

    await user.type(screen.getByRole('textbox', { name: 'Condition name' }), 'mine');
    await user.click(screen.getByRole('button', { name: 'Run condition' }));
    const confirm = await screen.findByRole('dialog', { name: 'Overwrite the condition?' });
    await user.click(within(confirm).getByRole('button', { name: 'Overwrite' }));
    expect(await screen.findByText('Step 1 of 1')).toBeInTheDocument();
    const runCalls = calls.filter((c) => c.path === '/api/preprocess/dataset/ds-1');
    expect(runCalls.map((c) => (c.body as { confirm_overwrite: boolean }).confirm_overwrite)).toEqual([false, true]);
  }, 60_000);
});
