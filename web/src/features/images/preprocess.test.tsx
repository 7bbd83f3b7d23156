import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn } from '../../test/utils';
import { classRows } from './ClassificationBrowse';

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const dataset = {
  id: 'ds1',
  name: 'tiles',
  file_name: 'tiles.zip',
  training_type: 'analysis',
  data_type: 'training_data',
  image: { kind: 'analysis', classes: ['OK', 'NG'], counts: { train: { OK: 10, NG: 4 }, test: { OK: 2, NG: 1 } }, skipped: [], total: 17 },
};

describe('image pre-processing page', () => {
  it('previews the operations on real images, runs them over every image and registers a new dataset', async () => {
    signIn();
    const previews: Record<string, unknown>[] = [];
    let registered: unknown = null;
    let polls = 0;
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/ds1/false': () => ok(dataset),
      'GET /api/image/dataset/ds1': () => ok(dataset),
      'GET /api/image/dataset/ds1/image/000000': () => new Response(new Blob(['x'], { type: 'image/jpeg' })),
      'POST /api/image/preprocess/ds1': (c) => {
        const b = c.body as { preview: boolean; operations: { rotate: number } };
        if (b.preview) {
          previews.push(b.operations);
          return ok({ items: [{ id: '000000', name: 'OK/a.png', label: 'OK', before_size: [200, 100], after_size: b.operations.rotate === 90 ? [100, 200] : [200, 100], mode: 'RGB', before: PNG, after: PNG }] });
        }
        return ok({ temp_id: 'run1', job_id: 'run1', state: 'queued', source_dataset_id: 'ds1' });
      },
      'GET /api/image/preprocess/result/run1': () =>
        ok(
          ++polls < 2
            ? { temp_id: 'run1', source_dataset_id: 'ds1', state: 'running', progress: 0.5, error: null, dataset_id: null, result: null, sample: [] }
            : {
                temp_id: 'run1',
                source_dataset_id: 'ds1',
                state: 'succeeded',
                progress: 1,
                error: null,
                dataset_id: null,
                result: { total: 17, counts: dataset.image.counts, classes: ['OK', 'NG'], skipped: [], operations: {} },
                sample: [{ id: '000000', label: 'OK', split: 'train', width: 100, height: 200 }],
              },
        ),
      'GET /api/image/preprocess/result/run1/thumb/000000': () => new Response(new Blob(['x'], { type: 'image/jpeg' })),
      'POST /api/image/new_dataset/register/run1': (c) => {
        registered = c.body;
        return ok({ ...dataset, id: 'ds2', name: (c.body as { name: string }).name });
      },
      'GET /api/dataset/ds2/false': () => ok({ ...dataset, id: 'ds2' }),
      'GET /api/image/dataset/ds2': () => ok({ ...dataset, id: 'ds2' }),
      'GET /api/image/dataset/ds2/gallery': () => ok({ total: 0, items: [] }),
    });
    const user = userEvent.setup();
    const { router } = renderApp('/pre-processing/details/ds1');
    expect(await screen.findByRole('heading', { name: 'Image pre-processing' }, { timeout: 60_000 })).toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Counts per class and split' })).toHaveTextContent(/OK\s*10\s*2\s*12/);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    // the preview comes from the engine, on images of this dataset
    expect(await screen.findByRole('img', { name: 'After: OK/a.png' })).toBeInTheDocument();
    expect(screen.getByText(/After · 200 × 100 px/)).toBeInTheDocument();
    await user.click(screen.getByRole('combobox', { name: 'Rotate (clockwise)' }));
    await user.click(screen.getByRole('option', { name: '90°' }));
    await waitFor(() => expect(screen.getByText(/After · 100 × 200 px/)).toBeInTheDocument(), { timeout: 60_000 });
    expect(previews.at(-1)).toMatchObject({ rotate: 90 });
    // a size out of range is said at once and nothing runs
    await user.click(screen.getByRole('checkbox', { name: 'Resize' }));
    const width = screen.getByRole('spinbutton', { name: 'Width (px)' });
    await user.clear(width);
    await user.type(width, '3');
    expect(screen.getByText('8 to 4096')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Process all 17 images' })).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Resize' }));
    await user.click(screen.getByRole('button', { name: 'Process all 17 images' }));
    expect(await screen.findByText(/17 images processed/, undefined, { timeout: 60_000 })).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Processed images (a few of each class)' })).getAllByRole('listitem')).toHaveLength(1);
    const name = screen.getByRole('textbox', { name: 'New dataset name' });
    expect(name).toHaveValue('tiles (pre-processed)');
    await user.clear(name);
    await user.click(screen.getByRole('button', { name: 'Register as a new dataset' }));
    expect(screen.getByText('Enter a name for the new dataset.')).toBeInTheDocument();
    await user.type(name, 'tiles rotated');
    await user.click(screen.getByRole('button', { name: 'Register as a new dataset' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset/details/ds2/training_data'));
    expect(registered).toEqual({ name: 'tiles rotated', comment: '' });
    expect(calls.some((c) => c.path === '/api/load/dataset/ds1')).toBe(false); // the table pre-processing page was not used
  }, 60_000);
});

describe('image classification by class', () => {
  it('turns the test gallery into per-class precision, recall, F1 and the usual confusion', () => {
    const g = (label: string, predicted: string, id: string) => ({ id, label, predicted, score: 0.9, heatmap: null });
    const rows = classRows(['cat', 'dog', 'fox'], [g('cat', 'cat', '1'), g('cat', 'dog', '2'), g('dog', 'dog', '3'), g('dog', 'dog', '4'), g('cat', 'dog', '5')]);
    expect(rows[0]).toMatchObject({ label: 'cat', support: 3, predicted: 1, correct: 1, precision: 1, recall: 1 / 3, confusedWith: { label: 'dog', n: 2 } });
    expect(rows[0].f1).toBeCloseTo(0.5);
    expect(rows[1]).toMatchObject({ support: 2, predicted: 4, precision: 0.5, recall: 1, confusedWith: null });
    // a class neither in the test images nor predicted: 0/0 counted as 0 (scikit-learn zero_division=0) and marked; no F1
    expect(rows[2]).toMatchObject({ support: 0, predicted: 0, precision: 0, recall: 0, undefinedPrecision: true, undefinedRecall: true, f1: null });
  });
});
