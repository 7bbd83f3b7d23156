import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { PlatformProject } from './api';

warmUp(() => import('./index'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

const NO_STATS = { total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' };
const QUOTE = { currency: 'JPY', subscription_price: 9800, infrastructure_price: 6100, total: 15900, billing_cycle: 'monthly', lines: [] };

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const project: PlatformProject = {
  id: 'pp1', name: 'Power API', key: 'power', status: 'approved', actions: ['start'], reason: null,
  model: { project_id: 'p1', project_name: 'Power', model_key: '1_lightgbm', type: 'regression' },
  settings: { content_language: 'en-gb', industry: '', use_case: '', language: '', version: '1.0', documentation_url: '', tutorial_url: '', source_code_url: '', sandbox_url: '', cover_image_url: '',
    cpu_cores: 1, memory_gb: 1, gpu_gb: 0, expected_requests_per_month: 0, expected_rps: 0, expected_unique_users: 0, expected_item_count: 0, subscription_type: 'standard', billing_cycle: 'monthly',
    auto_scaling: false, cloud_provider: 'mitate', region: 'ap-northeast-1' },
  currency: 'JPY', subscription_price: 9800, infrastructure_price: 6100, endpoint: 'http://localhost/serve/power/predict', features: ['AT', 'V'], outputs: ['predicted_EP'], image: null,
  created_at: '2026-11-23T01:00:00Z', updated_at: '2026-11-23T01:00:00Z', reviewed_at: null,
};

describe('hosted API page', () => {
  it('offers the actions the server allows, asks before each, and shows a new key once with its warning', async () => {
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/projects/pp1': () => ok(project),
      'GET /api/platform/projects/pp1/credentials': () => ok([]),
      'GET /api/platform/projects/pp1/statistics': () => ok({ total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' }),
      'POST /api/platform/projects/pp1/start': () => ok({ ...project, status: 'running', actions: ['stop'] }),
      'POST /api/platform/projects/pp1/credentials': () => ok({ id: 'c1', name: 'line 1', kind: 'production', prefix: 'mk_live_abcdefgh', created_at: '2026-11-23T01:00:00Z', last_used_at: null, revoked_at: null, secret: 'mk_live_abcdefghSECRET' }, 201),
    });
    const user = userEvent.setup();
    renderApp('/platform/details/pp1');
    await screen.findByText('Power API', {});
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Start' }));
    const confirm = await screen.findByRole('dialog');
    expect(calls.some((c) => c.path.endsWith('/start'))).toBe(false); // nothing before the confirmation
    await user.click(within(confirm).getByRole('button', { name: 'Start' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path.endsWith('/start'))).toBe(true));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(await screen.findByRole('button', { name: 'New credential' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('This field is required.')).toBeTruthy(); // SPEC §5: credential name required
    await user.type(within(dialog).getByRole('textbox', { name: /Credential name/ }), 'line 1');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await screen.findByText('Download credentials before closing because they cannot be downloaded again.', {});
    expect((screen.getByTestId('api-secret') as HTMLInputElement).value).toBe('mk_live_abcdefghSECRET');
    expect(screen.getByRole('button', { name: 'Close without downloading' })).toBeTruthy();
  }, 60_000);

  it('describes an image model\'s request and answer, with a multipart curl', async () => {
    const image = { ...project, key: 'tiles', endpoint: 'http://localhost/serve/tiles/predict', model: { ...project.model, model_key: '1_patchcore', type: 'analysis' }, features: [], outputs: [],
      image: { kind: 'analysis' as const, algorithm: 'patchcore', classes: ['OK', 'NG'], image_size: 128, threshold: 2.5, formats: ['jpeg', 'png', 'bmp', 'tiff'], max_bytes: 7 * 1024 * 1024 } };
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/projects/pp1': () => ok(image),
      'GET /api/platform/projects/pp1/credentials': () => ok([]),
      'GET /api/platform/projects/pp1/statistics': () => ok({ total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' }),
    });
    renderApp('/platform/details/pp1');
    const panel = await screen.findByTestId('image-request');
    expect(within(panel).getByText('Request and answer')).toBeTruthy();
    expect(panel.textContent).toContain('JPEG, PNG, BMP, TIFF, at most 7 MiB');
    expect(panel.textContent).toContain('resized to 128 × 128 px');
    expect(panel.textContent).toContain('heatmap_png');
    expect(panel.textContent).toContain('(2.5 when published)');
    expect(screen.getByText(/-F image=@part\.png/)).toBeTruthy();
    expect(screen.getByText('One image (JPEG, PNG, BMP or TIFF), resized to 128 px')).toBeTruthy();
  }, 60_000);

  it("names each model's project type in the model picker, not its identifier (issue 33)", async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/models': () =>
        ok([{ project_id: 'p9', project_name: 'Pump', project_type: 'time_series_anomaly_detection_unsupervised', model_key: '1_isolation_forest', algorithm: 'isolation_forest', metrics: null, trained_at: null }]),
    });
    renderApp('/platform/new');
    await userEvent.click(await screen.findByRole('combobox', { name: 'Trained model' }));
    const option = await screen.findByRole('option', { name: /Pump/ });
    expect(option.textContent).toBe('Pump · 1_isolation_forest (Time-series anomaly detection (unsupervised))');
  }, 60_000);

  it("a time-series detector's page describes its rows: time column, history, alarm rule, threshold in force, a stream call", async () => {
    signIn();
    const ts: PlatformProject = { ...project, status: 'running', actions: ['stop'], model: { ...project.model, type: 'time_series_anomaly_detection_unsupervised', model_key: '1_pca_mspc' }, features: ['t', 'a', 'b'], outputs: ['anomaly_score', 'alarm', 'top_signal'] };
    const iface = {
      time_column: 't', time_type: 'datetime', signals: [{ name: 'a', type: 'number' }, { name: 'b', type: 'number' }], resample: null, warmup_rows: 4, detector_rows: 3, history_rows: 7, span: '20s',
      alarm_rule: { k: 2, n: 4 }, threshold: 2.5, trained_threshold: 3.1, threshold_source: 'saved',
      outputs: ['time', 'status', 'anomaly_score', 'alarm', 'top_signal', 'contribution_a', 'contribution_b'].map((name) => ({ name, type: 'number | null', description: '' })),
      stream: { exact_rows: 1000, max_rows: 10000, max_series: 1000, idle_minutes: 1440, kept_in: 'memory' },
      examples: { block: { rows: [{ t: '2026-01-01 08:00:00', a: 0, b: 0 }] }, stream: { series: 'line-1', rows: [{ t: '2026-01-01 08:00:00', a: 0, b: 0 }] } },
      openapi: JSON.stringify({ openapi: '3.0.3' }),
    };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/projects/pp1': () => ok(ts),
      'GET /api/platform/projects/pp1/credentials': () => ok([]),
      'GET /api/platform/projects/pp1/statistics': () => ok({ total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' }),
      'GET /api/platform/projects/pp1/time-series': () => ok(iface),
    });
    renderApp('/platform/details/pp1');
    const panel = await screen.findByTestId('ts-interface');
    expect(within(panel).getByText('7 rows before the row, and the rows of the last 20s')).toBeTruthy();
    expect(within(panel).getByText('2 of the last 4 rows over the threshold')).toBeTruthy();
    expect(within(panel).getByText('2.5 (saved on the project)')).toBeTruthy();
    expect(screen.getByTestId('ts-example').textContent).toContain('{"series":"line-1","rows":[{"t":"2026-01-01 08:00:00","a":0,"b":0}]}');
    await userEvent.click(within(panel).getByRole('tab', { name: 'OpenAPI' }));
    expect(screen.getByTestId('ts-example').textContent).toContain('"openapi": "3.0.3"');
    expect(screen.queryByText('or a CSV body')).toBeNull(); // the tabular examples are not shown
  }, 60_000);

  describe('editing a project\'s settings', () => {
    const mock = (p: PlatformProject, me = ME, put: (body: unknown) => Response = (b) => ok({ ...p, ...(b as object) })) => {
      let current = p;
      return mockFetch({
        'GET /api/users/me': () => ok(me),
        'GET /api/services/status': () => ok(STATUS),
        'GET /api/platform/projects/pp1': () => ok(current),
        'GET /api/platform/projects/pp1/credentials': () => ok([]),
        'GET /api/platform/projects/pp1/statistics': () => ok(NO_STATS),
        'POST /api/platform/quote': () => ok(QUOTE),
        'PUT /api/platform/projects/pp1': (c) => {
          const { name, ...settings } = c.body as Record<string, unknown>;
          current = { ...current, name: (name as string) ?? current.name, settings: { ...current.settings, ...settings } };
          return put(c.body);
        },
      });
    };
    const draft: PlatformProject = { ...project, status: 'draft', actions: ['submit'], settings: { ...project.settings, cpu_cores: 2, memory_gb: 1.5, industry: 'Energy' } };

    it.each([
      ['a draft', draft, ME, true],
      ['a rejected project', { ...project, status: 'rejected', actions: ['submit', 'draft'], reason: 'Add documentation' }, ME, true],
      ['a running project', { ...project, status: 'running', actions: ['stop'] }, ME, false],
      ['an approved project', project, ME, false],
      ['a viewer, even of a draft', draft, { ...ME, role: 'viewer' }, false],
    ] as const)('offers Edit for %s', async (_, p, me, shown) => {
      signIn();
      mock(p as PlatformProject, me as typeof ME);
      renderApp('/platform/details/pp1');
      await screen.findByText('Power API', {});
      await screen.findByText('Content language');
      expect(!!screen.queryByRole('link', { name: 'Edit' })).toBe(shown);
    }, 60_000);

    it('opened by its address for a running project, says why there is no form', async () => {
      signIn();
      mock({ ...project, status: 'running', actions: ['stop'] });
      renderApp('/platform/edit/pp1');
      expect(await screen.findByText('Only a draft or rejected project can be edited.')).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
      expect(screen.getByRole('link', { name: 'Back to the project' })).toBeTruthy();
    }, 60_000);

    it('fills the form with the current values, sends only what changed, and shows the new values', async () => {
      signIn();
      const calls = mock(draft);
      const user = userEvent.setup();
      renderApp('/platform/details/pp1');
      await user.click(await screen.findByRole('link', { name: 'Edit' }));
      const name = await screen.findByRole('textbox', { name: /^Name/ });
      expect((name as HTMLInputElement).value).toBe('Power API');
      expect((screen.getByRole('textbox', { name: 'CPU cores' }) as HTMLInputElement).value).toBe('2');
      expect((screen.getByRole('textbox', { name: 'Memory (GB)' }) as HTMLInputElement).value).toBe('1.5');
      expect((screen.getByRole('textbox', { name: 'Industry' }) as HTMLInputElement).value).toBe('Energy');
      expect(screen.queryByRole('textbox', { name: /^Key/ })).toBeNull(); // fixed once created
      await screen.findByTestId('price-total'); // the live quote, as when creating
      await user.clear(name);
      await user.type(name, 'Power API v2');
      const cpu = screen.getByRole('textbox', { name: 'CPU cores' });
      await user.clear(cpu);
      await user.type(cpu, '4');
      await user.click(screen.getByRole('button', { name: 'Save' }));
      await screen.findByRole('heading', { name: 'Overview' }); // back on the details page
      const writes = calls.filter((c) => c.method !== 'GET' && !c.path.endsWith('/quote'));
      expect(writes.map((c) => [c.method, c.path, c.body])).toEqual([['PUT', '/api/platform/projects/pp1', { name: 'Power API v2', cpu_cores: 4 }]]);
      expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('Power API v2');
      expect(screen.getByText('4')).toBeTruthy();
    }, 60_000);

    it('Cancel changes nothing; the server\'s refusals are shown on the fields or as its message', async () => {
      signIn();
      let refusal: Response = ok(null);
      const calls = mock(draft, ME, () => refusal);
      const user = userEvent.setup();
      renderApp('/platform/edit/pp1');
      const name = await screen.findByRole('textbox', { name: /^Name/ });
      await user.type(name, ' changed');
      await user.click(screen.getByRole('button', { name: 'Cancel' }));
      await screen.findByRole('link', { name: 'Edit' });
      expect(calls.some((c) => c.method === 'PUT')).toBe(false);

      await user.click(screen.getByRole('link', { name: 'Edit' }));
      const cpu = await screen.findByRole('textbox', { name: 'CPU cores' });
      await user.clear(cpu);
      await user.type(cpu, '300');
      refusal = new Response(JSON.stringify({ detail: [{ loc: ['body', 'cpu_cores'], msg: '256 以下の値を入力してください。', type: 'too_big' }] }), { status: 422, headers: { 'content-type': 'application/json' } });
      await user.click(screen.getByRole('button', { name: 'Save' }));
      expect(await screen.findByText('256 以下の値を入力してください。')).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Save' })).toBeTruthy(); // still editing

      refusal = new Response(JSON.stringify({ detail: { response: 'Only a draft or rejected project can be edited.', error: 'not_editable' } }), { status: 409, headers: { 'content-type': 'application/json' } });
      await user.click(screen.getByRole('button', { name: 'Save' }));
      expect(within(await screen.findByRole('dialog')).getByText('Only a draft or rejected project can be edited.')).toBeTruthy();
    }, 60_000);
  });
});
