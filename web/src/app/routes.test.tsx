import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getSession, setSession } from '../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, json } from '../test/utils';
import { signedInRoutes } from './routes';

const signedInApi = () =>
  mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok(STATUS),
    'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
  });

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

describe('route guards (SPEC §2)', () => {
  it('sends unauthenticated users to /login and back where they wanted to go after signing in', async () => {
    mockFetch({
      'POST /account/api/auth/login': () => ok({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }),
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/dataset/ds1/false': () => json({ detail: { response: 'Requested URL not exist', error: 'not_found' } }, 404),
    });
    const { router } = renderApp('/profile');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByRole('heading', { name: 'Sign in to Mitate' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/E-mail address/), 'hanako@example.com');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), 'Secret-123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));
    expect(getSession()?.access_token).toBe('a');
    expect(await screen.findByText('Acme Chemicals')).toBeInTheDocument();
  });

  it('sends signed-in users visiting /login to / (and so to /dataset)', async () => {
    signIn();
    signedInApi();
    const { router } = renderApp('/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset'));
  });

  it('redirects the root to /dataset', async () => {
    signIn();
    signedInApi();
    const { router } = renderApp('/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset'));
    expect(await screen.findByRole('heading', { name: 'Datasets' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Datasets | Mitate'));
  });

  it.each(['/no/such/page', '/404', '/dataset/unknown/extra/segments/here'])('shows Not Found for %s, signed out', async (path) => {
    mockFetch({});
    const { router } = renderApp(path);
    expect(await screen.findByText('404')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Not Found' })).toBeInTheDocument();
    expect(screen.getByText('Requested URL not exist')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
  });

  it('shows Not Found inside the shell when signed in', async () => {
    signIn();
    signedInApi();
    renderApp('/nothing-here');
    expect(await screen.findByText('Requested URL not exist')).toBeInTheDocument();
    expect(screen.getByTestId('nav-drawer')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Not Found | Mitate'));
  });

  it('declares every route of SPEC §2', () => {
    const paths = signedInRoutes.map((r) => r.path).filter(Boolean);
    for (const p of [
      'dataset',
      'dataset/details/:dataset_id/:data_type',
      'dataset/register',
      'visualization/details/:dataset_id',
      'pre-processing/details/:dataset_id',
      'training/time_series_anomaly_detection_unsupervised/register/:dataset_id',
      'training/discriminant-analysis/report/:project_id/:model',
      'training/classification/class',
      'training/prediction/register/:project_id/:model_key',
      'prediction/report/:report_type/:prediction_id',
      'optimization/regress/visualization/:project_id/:algorithm',
      'optimal-design/details/:project_id/:model',
      'statistical-analysis/register/:dataset_id',
      'users/:member_id',
      'profile',
    ]) {
      expect(paths).toContain(p);
    }
    expect(paths.length).toBeGreaterThanOrEqual(62);
  });

  it('the image classification browsing page opens under Training, saying what to do with no project yet', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/image/project/list': () => ok([]),
    });
    renderApp('/training/classification/images');
    expect(await screen.findByText(/There are no image classification projects yet/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Image classification: test images' })).toBeInTheDocument();
    // breadcrumbs: translated labels
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' });
    expect(crumbs).toHaveTextContent('Training');
  });
});
