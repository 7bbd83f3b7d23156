import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currentMessages, resetFeedback } from '../lib/feedback';
import { setNavigator } from '../lib/navigation';
import { json, mockFetch, ok } from '../test/utils';
import { ApiError } from './errors';
import { getSession, setSession } from './session';
import { answer, http, per } from './typed';

const navigate = vi.fn();

beforeEach(() => {
  resetFeedback();
  navigate.mockReset();
  setNavigator(navigate);
  setSession({ access_token: 'old-access', refresh_token: 'old-refresh', expires_at: Date.now() + 3_600_000 });
});
afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

describe('the typed client', () => {
  it('fills the path, encodes the query, sends the bearer and returns detail.response', async () => {
    const calls = mockFetch([['GET', /^\/api\/dataset\/upload\//, () => ok({ rows: [], total: 0 })]]);
    const page = await answer(http.GET('/api/dataset/upload/{id}', { params: { path: { id: 'a b/c' }, query: { page: 2, page_size: 20 } } }));
    expect(page).toEqual({ rows: [], total: 0 });
    expect(calls[0].url.pathname).toBe('/api/dataset/upload/a%20b%2Fc');
    expect(calls[0].url.search).toBe('?page=2&page_size=20');
    expect(calls[0].headers.get('Authorization')).toBe('Bearer old-access');
    expect(calls[0].headers.get('Accept-Language')).toBe('en');
  });

  it('writes the query as every other call does: absent values left out, empty ones kept, spaces as +', async () => {
    const calls = mockFetch({ 'GET /api/datasets/list/': () => ok({ items: [], total: 0 }) });
    await answer(http.GET('/api/datasets/list/', { params: { query: { query: 'a b', page: 1, page_size: 20, data_type: '', type: undefined } } }));
    expect(calls[0].url.search).toBe('?query=a+b&page=1&page_size=20&data_type=');
  });

  it('sends a JSON body, and `{}` for a POST without one (as apiPost did)', async () => {
    const calls = mockFetch({ 'PUT /api/dataset/d1': () => ok({ id: 'd1' }), 'POST /api/statistics/d1': () => ok({ job_id: 'j1' }) });
    const body = { name: 'n', category: '', comment: '', training_type: 'regression', data_type: 'training_data', type: 'supervised' } as const;
    await answer(http.PUT('/api/dataset/{id}', { params: { path: { id: 'd1' } }, body }));
    expect(calls[0].body).toEqual(body);
    expect(calls[0].headers.get('Content-Type')).toBe('application/json');
    await answer(http.POST('/api/statistics/{dataset_id}', { params: { path: { dataset_id: 'd1' } } }));
    expect(calls[1].body).toEqual({});
    expect(calls[1].headers.get('Content-Type')).toBe('application/json');
  });

  it('shows a failure in the message dialog and throws the ApiError, or stays silent when asked', async () => {
    mockFetch({ 'GET /api/users/me': () => json({ detail: { response: 'Nope', error: 'bad' } }, 400) });
    await expect(answer(http.GET('/api/users/me'))).rejects.toBeInstanceOf(ApiError);
    expect(currentMessages()).toHaveLength(1);
    resetFeedback();
    await expect(answer(http.GET('/api/users/me', per({ silent: true })))).rejects.toMatchObject({ status: 400 });
    expect(currentMessages()).toEqual([]);
  });

  it('refreshes the session on a 401 and sends the call again with the new token', async () => {
    let n = 0;
    const calls = mockFetch({
      'GET /api/users/me': () => (n++ === 0 ? json(null, 401) : ok({ id: 'u1' })),
      'POST /account/api/auth/refresh': () => ok({ access_token: 'new-access', refresh_token: 'new-refresh', expires_in: 3600 }),
    });
    await expect(answer(http.GET('/api/users/me'))).resolves.toEqual({ id: 'u1' });
    expect(calls.map((c) => c.path)).toEqual(['/api/users/me', '/account/api/auth/refresh', '/api/users/me']);
    expect(calls[2].headers.get('Authorization')).toBe('Bearer new-access');
    expect(getSession()?.refresh_token).toBe('new-refresh');
  });

  it('passes the abort signal to fetch', async () => {
    const ctrl = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    vi.stubGlobal('fetch', vi.fn(async (_: string, init: RequestInit) => (seen.push(init.signal ?? undefined), ok({ id: 'u1' }))));
    await answer(http.GET('/api/users/me', per({ signal: ctrl.signal })));
    expect(seen[0]).toBe(ctrl.signal);
  });
});
