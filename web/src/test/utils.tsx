import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeAll, vi } from 'vitest';
import { setSession, type Session } from '../api/session';
import type { Me } from '../api/types';
import { AppProviders } from '../app/App';
import { createQueryClient } from '../app/queryClient';
import { routes } from '../app/routes';
import { resetFeedback } from '../lib/feedback';
import { setNavigator } from '../lib/navigation';

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(body === null ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** A success body as the server wraps it. */
export const ok = (response: unknown, status = 200) => json({ detail: { response } }, status);

export interface Call {
  method: string;
  path: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

type Handler = (call: Call) => Response | Promise<Response>;

/**
 * Replaces fetch: routes are 'METHOD /path' (exact path) or [method, RegExp]; unmatched calls answer 404.
 * Returns the list of calls made.
 */
export function mockFetch(routes: Record<string, Handler> | [string, RegExp, Handler][]) {
  const calls: Call[] = [];
  const list: [string, string | RegExp, Handler][] = Array.isArray(routes)
    ? routes
    : Object.entries(routes).map(([k, h]) => {
        const [method, path] = k.split(' ');
        return [method, path, h];
      });
  const impl = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    let body: unknown = init.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        /* keep text */
      }
    }
    const call: Call = { method, path: url.pathname, url, headers: new Headers(init.headers), body };
    calls.push(call);
    const found = list.find(([m, p]) => m === method && (typeof p === 'string' ? p === url.pathname : p.test(url.pathname)));
    if (!found) return json({ detail: { response: 'Requested URL not exist', error: 'not_found' } }, 404);
    return found[2](call);
  };
  vi.stubGlobal('fetch', vi.fn(impl));
  return calls;
}

export const ME: Me = {
  id: 'u1',
  email: 'hanako@example.com',
  first_name: 'Hanako',
  last_name: 'Yamada',
  name: 'Hanako Yamada',
  role: 'admin',
  status: 'active',
  language: 'en-gb',
  department: 'Process Engineering',
  office_location: 'Kawasaki',
  organisation: { id: 'o1', name: 'Acme Chemicals' },
  photo: null,
  links: { visualizer_url: null, test_site_url: null, show_test_site: false },
};

export const STATUS = { mode: 'local', running: true, workers: 2, busy: 0, queued: 0, active: 0, max_upload_mb: 1024 };

export function signIn(expiresInMs = 3_600_000): Session {
  const s = { access_token: 'access-1', refresh_token: 'refresh-1', expires_at: Date.now() + expiresInMs };
  setSession(s);
  return s;
}

/** Renders the whole app (route table, shell, providers) at a path, in a memory router. */
export function renderApp(path: string) {
  resetFeedback();
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  setNavigator((to, options) => void router.navigate(to, options));
  const queryClient = createQueryClient();
  const utils = render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...utils, router, queryClient };
}

/**
 * Loads an area's lazy chunks before its tests start: on a busy machine transforming a chunk on first import
 * can take longer than any wait inside a test, so the waits are left to measure the page, not the compiler.
 */
export function warmUp(...loads: Array<() => Promise<unknown>>) {
  beforeAll(async () => {
    await Promise.all(loads.map((load) => load()));
  }, 600_000);
}
