import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getSession, setSession } from '../api/session';
import type { Me } from '../api/types';
import * as browser from '../lib/browser';
import { ME, STATUS, mockFetch, ok, renderApp, signIn } from '../test/utils';
import { DRAWER_WIDTH } from './NavDrawer';

function api(me: Me = ME, status = STATUS) {
  return mockFetch({
    'GET /api/users/me': () => ok(me),
    'GET /api/services/status': () => ok(status),
    'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
    'POST /account/api/auth/logout': () => ok(true),
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

describe('the shell (SPEC §2)', () => {
  it('has a 256 px drawer with every area, the Visualizer and user management', async () => {
    signIn();
    api({ ...ME, links: { visualizer_url: 'https://viz.example.com', test_site_url: 'https://test.example.com', show_test_site: false } });
    renderApp('/dataset');
    const drawer = await screen.findByTestId('nav-drawer');
    expect(DRAWER_WIDTH).toBe(256);
    expect(drawer.style.width).toBe('256px');
    const links = within(drawer);
    const expected: [string, string][] = [
      ['Dataset', '/dataset'],
      ['Visualization', '/visualization'],
      ['Preprocessing', '/pre-processing'],
      ['Training', '/training'],
      ['Prediction', '/prediction'],
      ['Optimization', '/optimization'],
      ['Design of Experiments', '/optimal-design'],
      ['Statistics', '/statistical-analysis'],
      ['User management', '/users'],
    ];
    for (const [name, href] of expected) expect(links.getByRole('link', { name })).toHaveAttribute('href', href);
    const viz = await links.findByRole('link', { name: /Visualizer/ });
    expect(viz).toHaveAttribute('href', 'https://viz.example.com');
    expect(viz).toHaveAttribute('target', '_blank');
    expect(links.queryByRole('link', { name: /99 MI Test/ })).toBeNull();
  });

  it("shows '99 MI Test' only to allowed users, and hides the Visualizer when it has no address", async () => {
    signIn();
    api({ ...ME, links: { visualizer_url: null, test_site_url: 'https://test.example.com', show_test_site: true } });
    renderApp('/dataset');
    const drawer = within(await screen.findByTestId('nav-drawer'));
    const test = await drawer.findByRole('link', { name: /99 MI Test/ });
    expect(test).toHaveAttribute('href', 'https://test.example.com');
    expect(test).toHaveAttribute('target', '_blank');
    expect(drawer.queryByRole('link', { name: /Visualizer/ })).toBeNull();
  });

  it('switching the language saves ja-jp here and in the profile, then reloads the page', async () => {
    const reload = vi.spyOn(browser, 'reloadPage').mockImplementation(() => undefined);
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
      'PUT /account/api/settings': () => ok({ language: 'ja-jp', message: 'ok' }),
    });
    renderApp('/dataset');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Language' }));
    await user.click(screen.getByRole('menuitem', { name: '日本語' }));
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(localStorage.getItem('mitate.lang')).toBe('ja-jp');
    const put = calls.find((c) => c.method === 'PUT' && c.path === '/account/api/settings')!;
    expect(put.body).toEqual({ language: 'ja-jp' });
    expect(localStorage.getItem('mitate.lang.pending')).toBeNull();
  });

  it("applies the profile's saved language in a browser that shows another", async () => {
    const reload = vi.spyOn(browser, 'reloadPage').mockImplementation(() => undefined);
    localStorage.setItem('mitate.lang', 'en-gb');
    signIn();
    api({ ...ME, language: 'ja-jp' });
    renderApp('/dataset');
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(localStorage.getItem('mitate.lang')).toBe('ja-jp');
    localStorage.removeItem('mitate.lang');
  });

  it('saves a language chosen while signed out to the profile at the next sign-in, without reloading', async () => {
    const reload = vi.spyOn(browser, 'reloadPage').mockImplementation(() => undefined);
    localStorage.setItem('mitate.lang', 'en-gb');
    localStorage.setItem('mitate.lang.pending', '1');
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok({ ...ME, language: 'ja-jp' }),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
      'PUT /account/api/settings': () => ok({ language: 'en-gb', message: 'ok' }),
    });
    renderApp('/dataset');
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT' && c.path === '/account/api/settings')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ language: 'en-gb' });
    expect(localStorage.getItem('mitate.lang.pending')).toBeNull();
    expect(reload).not.toHaveBeenCalled();
    localStorage.removeItem('mitate.lang');
  });

  it('leads a person whose registration is not complete to /complete-registration from any page, until closed', async () => {
    signIn();
    const profile = { settings: { language: 'en-gb' }, registration_complete: false, missing: ['phone'], values: {}, identity: { state: 'not_done' } };
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
      'GET /account/api/profile': () => ok(profile),
    });
    renderApp('/dataset');
    const reminder = await screen.findByText('Your registration is not complete yet.', {});
    expect(within(reminder.closest('[role="alert"]') as HTMLElement).getByRole('link', { name: 'Complete registration' })).toHaveAttribute('href', '/complete-registration');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByText('Your registration is not complete yet.')).toBeNull();
    expect(sessionStorage.getItem('mitate.registrationReminder.dismissed')).toBe('1');
    sessionStorage.clear();
  });

  it('the avatar menu has Profile and Log Out; Log Out revokes the refresh token and goes to /login', async () => {
    const s = signIn();
    const calls = api();
    const { router } = renderApp('/dataset');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Account' }));
    expect(screen.getByRole('menuitem', { name: 'Profile' })).toBeInTheDocument();
    await user.click(screen.getByRole('menuitem', { name: 'Log Out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    const logout = calls.find((c) => c.path === '/account/api/auth/logout');
    expect(logout?.body).toEqual({ refresh_token: s.refresh_token });
    expect(getSession()).toBeNull();
  });

  it('shows a chip while the compute service is stopped', async () => {
    signIn();
    api(ME, { ...STATUS, running: false });
    renderApp('/dataset');
    expect(await screen.findByText('Compute service stopped')).toBeInTheDocument();
  });

  it("lets a writer resume the organisation's paused compute with a POST", async () => {
    signIn();
    let status = { ...STATUS, running: false, paused: true, pool_running: true };
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(status),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
      'POST /api/services/start': () => {
        status = { ...status, running: true, paused: false };
        return ok(status);
      },
    });
    const user = userEvent.setup();
    renderApp('/dataset');
    await user.click(await screen.findByText('Compute paused for your organisation'));
    await waitFor(() => expect(screen.queryByText('Compute paused for your organisation')).toBeNull());
    expect(calls.filter((c) => c.path === '/api/services/start').map((c) => c.method)).toEqual(['POST']);
  });

  it('shows no chip while it runs', async () => {
    signIn();
    const calls = api();
    renderApp('/dataset');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/services/status')).toBe(true));
    expect(screen.queryByText('Compute service stopped')).toBeNull();
  });
});
