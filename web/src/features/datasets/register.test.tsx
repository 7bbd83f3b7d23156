import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';

warmUp(() => import('./index'), () => import('./DatasetRegisterPage'));

function api(maxUploadMb = 1024) {
  return mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok({ ...STATUS, max_upload_mb: maxUploadMb }),
    'GET /api/dataset/ds-9/false': () => ok({ ...DATASET, columns: [] }),
    'GET /api/dataset/upload/ds-9': () => ok({ columns: ['datetime', 'temp'], rows: [], total: 0, page: 1, page_size: 100 }),
  });
}

const DATASET = {
  id: 'ds-9',
  name: 'plant',
  category: '',
  training_type: 'time_series_anomaly_detection_unsupervised',
  data_type: 'training_data',
  type: 'unsupervised',
  comment: '',
  file_name: 'plant.csv',
  file_size: 30,
  encoding: 'utf-8',
  delimiter: ',',
  row_count: 1,
  column_count: 3,
  datetime_column: 'datetime',
  preprocessed: false,
  preprocess_history: [],
  parent_dataset_name: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  files: { original: 'datasets/ds-9/original.csv', parquet: 'datasets/ds-9/data.parquet' },
  statistics: { state: 'none', job_id: null },
};

/** A stand-in XMLHttpRequest: records the request, reports upload progress, answers with `answer`. */
class FakeXhr {
  static last: FakeXhr | null = null;
  static answer = { status: 201, body: { detail: { response: DATASET } } };
  method = '';
  url = '';
  headers: Record<string, string> = {};
  sent: FormData | null = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((e: ProgressEvent) => void) | null; onload: (() => void) | null } = { onprogress: null, onload: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  abort() {
    this.onabort?.();
  }
  send(body: FormData) {
    this.sent = body;
    FakeXhr.last = this;
    setTimeout(() => {
      this.upload.onprogress?.({ lengthComputable: true, loaded: 50, total: 100 } as ProgressEvent);
      this.upload.onprogress?.({ lengthComputable: true, loaded: 100, total: 100 } as ProgressEvent);
      this.status = FakeXhr.answer.status;
      this.responseText = JSON.stringify(FakeXhr.answer.body);
      this.onload?.();
    }, 5);
  }
}

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  await i18n.changeLanguage('en');
});

const chooseFile = (file: File) => fireEvent.change(screen.getByTestId('file-input'), { target: { files: [file] } });

describe('dataset registration form', () => {
  it('says at preview that a JPEG renamed .csv is not a text CSV file, and sends nothing (Japanese too)', async () => {
    signIn();
    const calls = api();
    renderApp('/dataset/register');
    await screen.findByRole('heading', { name: 'Register dataset' });
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x09, 0x2c, 0x3b]);
    chooseFile(new File([jpeg], 'photo.csv', { type: 'text/csv' }));
    expect(await screen.findByText('The file is not a text CSV file: it contains binary data (a JPEG image). Save the table as CSV and choose that file.')).toBeInTheDocument();
    expect(screen.queryByTestId('header-columns')).toBeNull(); // no garbage header chips
    await userEvent.click(screen.getByRole('button', { name: 'Register' }));
    expect(calls.some((c) => c.path === '/api/dataset/register')).toBe(false);
    await i18n.changeLanguage('ja');
    expect(await screen.findByText(/テキストのCSVではありません（バイナリデータを含みます：JPEG画像）/)).toBeInTheDocument();
  });

  it("says 'File size must be less than 1 MB.' for a file over the service limit", async () => {
    signIn();
    const calls = api(1);
    renderApp('/dataset/register');
    await screen.findByRole('heading', { name: 'Register dataset' });
    await waitFor(() => expect(calls.some((c) => c.path === '/api/services/status')).toBe(true));
    await screen.findByText('Maximum file size: 1 MB');
    chooseFile(new File([new Uint8Array(2 * 1024 * 1024)], 'big.csv', { type: 'text/csv' }));
    expect(await screen.findByText('File size must be less than 1 MB.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Register' }));
    expect(calls.some((c) => c.path === '/api/dataset/register')).toBe(false);
  });

  it('has the size in the Japanese message too (1024 MB)', async () => {
    await i18n.changeLanguage('ja');
    signIn();
    api(1024);
    renderApp('/dataset/register');
    await screen.findByText('最大ファイルサイズ: 1024 MB');
    const big = new File(['x'], 'big.csv');
    Object.defineProperty(big, 'size', { value: 1025 * 1024 * 1024 });
    chooseFile(big);
    expect(await screen.findByText('ファイルサイズは1024 MB未満にしてください。')).toBeInTheDocument();
  });

  it('lists the header columns in a datetime select for a time series', async () => {
    signIn();
    api();
    renderApp('/dataset/register');
    await screen.findByRole('heading', { name: 'Register dataset' });
    expect(screen.queryByLabelText(/Datetime column/)).toBeNull();
    chooseFile(new File(['when;temp;pressure\n2024-01-01 00:00;1;2\n'], 'plant.csv', { type: 'text/csv' }));
    const chips = await screen.findByTestId('header-columns');
    expect(within(chips).getByText('pressure')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('switch', { name: 'This dataset is a time series' }));
    const select = screen.getByRole('combobox', { name: /Datetime column/ });
    await user.click(select);
    const options = within(screen.getByRole('listbox')).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(['when', 'temp', 'pressure']);
  });

  it('uploads the fields then the file (last) with progress, and opens the new dataset', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    signIn();
    api();
    const { router } = renderApp('/dataset/register');
    await screen.findByRole('heading', { name: 'Register dataset' });
    chooseFile(new File(['datetime,temp,pressure\n2024-01-01 00:00,1,2\n'], 'plant.csv', { type: 'text/csv' }));
    await screen.findByTestId('header-columns');
    const user = userEvent.setup();
    // a time-series training type turns the time-series switch on; the datetime column is guessed by name
    await user.click(screen.getByRole('combobox', { name: /Training type/ }));
    await user.click(screen.getByRole('option', { name: 'Time-series anomaly detection (unsupervised)' }));
    expect(screen.getByRole('switch', { name: 'This dataset is a time series' })).toBeChecked();
    await user.type(screen.getByLabelText(/^Category/), 'line A');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset/details/ds-9/training_data'));
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/dataset/register');
    expect(xhr.headers.Authorization).toBe('Bearer access-1');
    const keys = [...xhr.sent!.keys()];
    expect(keys).toEqual(['name', 'category', 'training_type', 'data_type', 'type', 'comment', 'datetime_column', 'file']);
    expect(xhr.sent!.get('name')).toBe('plant');
    expect(xhr.sent!.get('category')).toBe('line A');
    expect(xhr.sent!.get('type')).toBe('unsupervised');
    expect(xhr.sent!.get('datetime_column')).toBe('datetime');
    expect((xhr.sent!.get('file') as File).name).toBe('plant.csv');
    expect(await screen.findByText('Dataset “plant” was registered.')).toBeInTheDocument();
  });

  it('requires a name, a file and, for a time series, the datetime column', async () => {
    signIn();
    api();
    renderApp('/dataset/register');
    await screen.findByRole('heading', { name: 'Register dataset' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('switch', { name: 'This dataset is a time series' }));
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(screen.getByText('Please choose a file.')).toBeInTheDocument();
    expect(screen.getByText('This field is required.')).toBeInTheDocument();
    expect(screen.getByText('Please choose the datetime column of the time series.')).toBeInTheDocument();
  });
});
