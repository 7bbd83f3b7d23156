import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { Drift, PlatformProject } from './api';

warmUp(() => import('./index'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const project = {
  id: 'pp1', name: 'Strength API', key: 'strength', status: 'running', actions: ['stop'], reason: null,
  model: { project_id: 'p1', project_name: 'Strength', model_key: '1_linear', type: 'regression' },
  settings: { content_language: 'en-gb', industry: '', use_case: '', language: '', version: '1.0', documentation_url: '', tutorial_url: '', source_code_url: '', sandbox_url: '', cover_image_url: '',
    cpu_cores: 1, memory_gb: 1, gpu_gb: 0, expected_requests_per_month: 0, expected_rps: 0, expected_unique_users: 0, expected_item_count: 0, subscription_type: 'standard', billing_cycle: 'monthly',
    auto_scaling: false, cloud_provider: 'mitate', region: 'ap-northeast-1' },
  currency: 'JPY', subscription_price: 9800, infrastructure_price: 6100, endpoint: 'http://localhost/serve/strength/predict', features: ['cement', 'water'], outputs: ['predicted_strength'],
  created_at: '2026-11-23T01:00:00Z', updated_at: '2026-11-23T01:00:00Z', reviewed_at: null,
} as PlatformProject;

const settings = { psi: 0.2, p_value: 0.01, outside: 0.05, missing: 0.05, window_rows: 1000, window_hours: 24, min_rows: 100, auto_every: 1000, auto_minutes: 60 };
const feature = (name: string, psi: number, p: number, warnings: ('shift' | 'outside' | 'missing')[]) => ({
  feature: name, kind: 'numeric' as const, rows: 500, psi, test: 'ks' as const, statistic: 0.1, p_value: p, outside: warnings.includes('outside') ? 0.12 : 0, missing: 0, train_min: 0, train_max: 1, mean: 1, train_mean: 1, warnings,
});
const check = (id: string, features: (Omit<ReturnType<typeof feature>, 'kind'> & { kind: 'numeric' | 'score' })[]) => ({
  id, state: 'done' as const, trigger: 'auto' as const, rows: 500, window_from: '2026-11-23T01:00:00Z', window_to: '2026-11-23T02:00:00Z', created_at: '2026-11-23T02:00:00Z', finished_at: '2026-11-23T02:00:05Z',
  error: null, enough_rows: true, condition_applied: false, features, warning: features.some((f) => f.warnings.length > 0),
});
const shifted = check('c1', [feature('cement', 0.74, 1e-12, ['shift', 'outside']), feature('water', 0.03, 0.9, [])]);
const drift: Drift = {
  settings, sampled_rows: 800, new_rows: 300, running: false, latest: shifted, warning: true, warned_features: ['cement'],
  history: [{ time: '2026-11-23T02:00:00Z', rows: 500, psi: { cement: 0.74, water: 0.03 }, warned: ['cement'] }],
};

const routes = (d: () => Drift) => ({
  'GET /api/users/me': () => ok(ME),
  'GET /api/services/status': () => ok(STATUS),
  'GET /api/platform/projects/pp1': () => ok(project),
  'GET /api/platform/projects/pp1/credentials': () => ok([]),
  'GET /api/platform/projects/pp1/statistics': () => ok({ total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' }),
  'GET /api/platform/projects/pp1/drift': () => ok(d()),
});

describe('input drift on the hosted API page', () => {
  it('warns on the shifted feature only, and the button starts a check', async () => {
    signIn();
    let now = drift;
    const calls = mockFetch({ ...routes(() => now), 'POST /api/platform/projects/pp1/drift/check': () => ok((now = { ...drift, running: true })) });
    const user = userEvent.setup();
    renderApp('/platform/details/pp1');
    const panel = await screen.findByTestId('drift-panel');
    expect((await within(panel).findByTestId('drift-warning')).textContent).toContain('cement');
    expect(within(within(panel).getByTestId('drift-row-cement')).getByText('Shifted')).toBeTruthy();
    expect(within(within(panel).getByTestId('drift-row-cement')).getByText('Out of range')).toBeTruthy();
    expect(within(within(panel).getByTestId('drift-row-water')).getByText('OK')).toBeTruthy();
    expect(within(panel).getByRole('img', { name: 'PSI per feature over time' })).toBeTruthy();
    await user.click(within(panel).getByRole('button', { name: 'Check drift' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path.endsWith('/drift/check'))).toBe(true));
    expect(await within(panel).findByRole('button', { name: 'Checking…' })).toBeTruthy();
  }, 60_000);

  it('shows no warning for a steady API and none before any check', async () => {
    signIn();
    const steady = check('c2', [feature('cement', 0.02, 0.8, []), feature('water', 0.03, 0.9, [])]);
    mockFetch(routes(() => ({ ...drift, latest: steady, warning: false, warned_features: [] })));
    renderApp('/platform/details/pp1');
    const panel = await screen.findByTestId('drift-panel');
    await within(panel).findByTestId('drift-row-cement');
    expect(within(panel).queryByTestId('drift-warning')).toBeNull();
    expect(within(panel).getAllByText('OK')).toHaveLength(2);
  }, 60_000);

  it("watches an image model's served scores against its validation OK scores", async () => {
    signIn();
    const image = { kind: 'analysis' as const, algorithm: 'patchcore', classes: ['OK', 'NG'], image_size: 128, threshold: 39.9, formats: ['jpeg', 'png', 'bmp', 'tiff'], max_bytes: 7340032 };
    const score = { ...feature('score', 0.9, 1e-9, ['shift', 'outside']), kind: 'score' as const };
    const scored = { ...drift, latest: check('c3', [score]), warned_features: ['score'], history: [{ time: '2026-11-23T02:00:00Z', rows: 500, psi: { score: 0.9 }, warned: ['score'] }] };
    mockFetch({ ...routes(() => scored), 'GET /api/platform/projects/pp1': () => ok({ ...project, model: { ...project.model, type: 'analysis' }, features: [], outputs: [], image }) });
    renderApp('/platform/details/pp1');
    const panel = await screen.findByTestId('drift-panel');
    expect(within(panel).getByText(/compared with the scores of the validation OK images/)).toBeTruthy();
    expect((await within(panel).findByTestId('drift-warning')).textContent).toContain('Served score');
    const row = within(panel).getByTestId('drift-row-score');
    expect(within(row).getByText('Served score')).toBeTruthy();
    expect(within(row).getByText('Shifted')).toBeTruthy();
    expect(within(panel).getByText('Above the highest validation score')).toBeTruthy();
  }, 60_000);
});
