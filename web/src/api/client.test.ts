import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { currentMessages, resetFeedback } from '../lib/feedback';
import { setNavigator } from '../lib/navigation';
import { json, mockFetch, ok } from '../test/utils';
import { api, apiGet, apiPost, apiPostTagged, REFRESH_MARGIN_MS } from './client';
import { ApiError } from './errors';
import { getSession, setSession } from './session';

const navigate = vi.fn();

function session(msLeft: number) {
  setSession({ access_token: 'old-access', refresh_token: 'old-refresh', expires_at: Date.now() + msLeft });
}

const refreshed = () => ok({ access_token: 'new-access', refresh_token: 'new-refresh', expires_in: 3600 });

beforeEach(() => {
  resetFeedback();
  navigate.mockReset();
  setNavigator(navigate);
});
afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  await i18n.changeLanguage('en');
});

describe('API client basics', () => {
  it('returns detail.response and sends the bearer and Accept-Language', async () => {
    session(3_600_000);
    const calls = mockFetch({ 'GET /api/users/me': () => ok({ id: 'u1' }) });
    await expect(api('/api/users/me')).resolves.toEqual({ id: 'u1' });
    expect(calls[0].headers.get('Authorization')).toBe('Bearer old-access');
    expect(calls[0].headers.get('Accept-Language')).toBe('en');
    await i18n.changeLanguage('ja');
    await api('/api/users/me');
    expect(calls[1].headers.get('Accept-Language')).toBe('ja');
  });

  it('encodes query parameters and skips empty ones', async () => {
    session(3_600_000);
    const calls = mockFetch({ 'GET /api/datasets/list/': () => ok({ items: [], total: 0 }) });
    await apiGet('/api/datasets/list/', { query: 'a b', page: 1, page_size: 20, data_type: '', type: undefined });
    expect(calls[0].url.search).toBe('?query=a+b&page=1&page_size=20&data_type=');
  });
});

describe('asking again for an answer held (entity tags)', () => {
  it('sends the held tag; a 304 gives back the held value without reading a body, a 200 the new one', async () => {
    session(3_600_000);
    let answer = { n: 1 };
    let etag = '"t1"';
    const calls = mockFetch({
      'POST /api/a': (c) => (c.headers.get('If-None-Match') === etag ? new Response(null, { status: 304, headers: { ETag: etag } }) : json({ detail: { response: answer } }, 200, { ETag: etag })),
    });
    const read = vi.fn((a: { n: number }) => ({ twice: a.n * 2 }));
    const first = await apiPostTagged('/api/a', { q: 1 }, read);
    expect(first).toEqual({ value: { twice: 2 }, etag: '"t1"' });
    expect(calls[0].headers.get('If-None-Match')).toBeNull();
    const again = await apiPostTagged('/api/a', { q: 1 }, read, first);
    expect(again).toBe(first); // the very value held: nothing read, parsed or made again
    expect(calls[1].headers.get('If-None-Match')).toBe('"t1"');
    expect(calls[1].body).toEqual({ q: 1 });
    expect(read).toHaveBeenCalledTimes(1);
    // The answer changed (another version of the dataset): the server sends it whole, with its new tag.
    [answer, etag] = [{ n: 5 }, '"t2"'];
    expect(await apiPostTagged('/api/a', { q: 1 }, read, first)).toEqual({ value: { twice: 10 }, etag: '"t2"' });
    expect(currentMessages()).toEqual([]);
  });

  it('a 304 to a call that held nothing is an error, as any status it does not expect', async () => {
    session(3_600_000);
    mockFetch({ 'POST /api/a': () => new Response(null, { status: 304 }) });
    await expect(apiPostTagged('/api/a', {}, (a) => a)).rejects.toMatchObject({ status: 304 });
  });
});

describe('SPEC §8 error handling through the client', () => {
  beforeEach(() => session(3_600_000));

  it('422: the dialog lists field: message', async () => {
    mockFetch({ 'POST /api/x': () => json({ detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] }, 422) });
    await expect(apiPost('/api/x', {})).rejects.toBeInstanceOf(ApiError);
    expect(currentMessages()[0]).toMatchObject({ details: ['name: Field required'] });
  });

  it('403: goes home and still shows the message', async () => {
    mockFetch({ 'GET /api/x': () => json({ detail: { response: 'You do not have permission to do this.', error: 'forbidden' } }, 403) });
    await expect(api('/api/x')).rejects.toMatchObject({ status: 403 });
    expect(navigate).toHaveBeenCalledWith('/', { replace: true });
    expect(currentMessages()[0].error).toBe('You do not have permission to do this.');
  });

  it('403 without a message: home, and the busy message', async () => {
    mockFetch({ 'GET /api/x': () => json(null, 403) });
    await expect(api('/api/x')).rejects.toMatchObject({ status: 403 });
    expect(navigate).toHaveBeenCalledWith('/', { replace: true });
    expect(currentMessages()[0].error).toBe('Server Busy');
  });

  it('400 with detail.response: response and error', async () => {
    mockFetch({ 'POST /api/x': () => json({ detail: { response: 'The file is empty.', error: 'csv_empty' } }, 400) });
    await expect(apiPost('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(currentMessages()[0]).toMatchObject({ error: 'The file is empty.', details: 'csv_empty' });
  });

  it.each([404, 409, 413])('%i with detail.response: that message', async (status) => {
    mockFetch({ 'GET /api/x': () => json({ detail: { response: 'ファイルサイズは1024 MB未満にしてください。', error: 'e' } }, status) });
    await expect(api('/api/x')).rejects.toMatchObject({ status });
    expect(currentMessages()[0].error).toBe('ファイルサイズは1024 MB未満にしてください。');
    expect(navigate).not.toHaveBeenCalled();
  });

  it('5xx: Server Busy (English and Japanese)', async () => {
    mockFetch({ 'GET /api/x': () => json({ detail: { response: 'boom' } }, 500) });
    await expect(api('/api/x')).rejects.toMatchObject({ status: 500 });
    expect(currentMessages()[0]).toEqual(
      expect.objectContaining({
        error: 'Server Busy',
        details: "We're experiencing higher than usual traffic right now. Please wait a few moments and try again. Thank you for your patience.",
      }),
    );
    resetFeedback();
    await i18n.changeLanguage('ja');
    await expect(api('/api/x')).rejects.toMatchObject({ status: 500 });
    expect(currentMessages()[0].error).toBe('サーバーが混み合っています');
  });

  it('network failure: Server Busy', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(api('/api/x')).rejects.toMatchObject({ status: 0 });
    expect(currentMessages()[0].error).toBe('Server Busy');
  });

  it('silent calls do not open the dialog; aborted calls never do', async () => {
    mockFetch({ 'GET /api/x': () => json(null, 500) });
    await expect(api('/api/x', { silent: true })).rejects.toBeInstanceOf(ApiError);
    const aborted = new AbortController();
    aborted.abort();
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new DOMException('aborted', 'AbortError'))));
    await expect(api('/api/x', { signal: aborted.signal })).rejects.toMatchObject({ silenced: true });
    expect(currentMessages()).toHaveLength(0);
  });
});

describe('token refresh (SPEC §7/§9: when fewer than 300 s remain)', () => {
  it('does not refresh with more than 300 s left', async () => {
    session(REFRESH_MARGIN_MS + 60_000);
    const calls = mockFetch({ 'GET /api/x': () => ok(1), 'POST /account/api/auth/refresh': refreshed });
    await api('/api/x');
    expect(calls.map((c) => c.path)).toEqual(['/api/x']);
  });

  it('refreshes first with fewer than 300 s left, stores the rotated pair and uses the new token', async () => {
    session(REFRESH_MARGIN_MS - 1_000);
    const calls = mockFetch({ 'GET /api/x': () => ok(1), 'POST /account/api/auth/refresh': refreshed });
    await api('/api/x');
    expect(calls.map((c) => c.path)).toEqual(['/account/api/auth/refresh', '/api/x']);
    expect(calls[0].body).toEqual({ refresh_token: 'old-refresh' });
    expect(calls[1].headers.get('Authorization')).toBe('Bearer new-access');
    const s = getSession()!;
    expect(s.refresh_token).toBe('new-refresh');
    expect(s.expires_at).toBeGreaterThan(Date.now() + 3_500_000);
    expect(JSON.parse(localStorage.getItem('mitate.session')!).refresh_token).toBe('new-refresh');
  });

  it('single flight: concurrent calls wait for one refresh', async () => {
    session(10_000);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls = mockFetch({
      'GET /api/x': () => ok(1),
      'POST /account/api/auth/refresh': async () => {
        await gate;
        return refreshed();
      },
    });
    const all = Promise.all([api('/api/x'), api('/api/x'), api('/api/x')]);
    await new Promise((r) => setTimeout(r, 10));
    release();
    await all;
    expect(calls.filter((c) => c.path === '/account/api/auth/refresh')).toHaveLength(1);
    expect(calls.filter((c) => c.path === '/api/x').every((c) => c.headers.get('Authorization') === 'Bearer new-access')).toBe(true);
  });

  it('on 401: one refresh, then the call is retried once', async () => {
    session(3_600_000);
    const calls = mockFetch({
      'GET /api/x': (c) => (c.headers.get('Authorization') === 'Bearer new-access' ? ok('done') : json({ detail: { response: 'expired' } }, 401)),
      'POST /account/api/auth/refresh': refreshed,
    });
    await expect(api('/api/x')).resolves.toBe('done');
    expect(calls.map((c) => c.path)).toEqual(['/api/x', '/account/api/auth/refresh', '/api/x']);
    expect(currentMessages()).toHaveLength(0);
  });

  it('a failed refresh clears the session and goes to /login, silently', async () => {
    session(3_600_000);
    mockFetch({
      'GET /api/x': () => json({ detail: { response: 'expired' } }, 401),
      'POST /account/api/auth/refresh': () => json({ detail: { response: 'revoked' } }, 401),
    });
    await expect(api('/api/x')).rejects.toMatchObject({ status: 401, silenced: true });
    expect(getSession()).toBeNull();
    expect(localStorage.getItem('mitate.session')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login', expect.objectContaining({ replace: true }));
    expect(currentMessages()).toHaveLength(0);
  });

  it('a second 401 after refreshing signs out (no endless retry)', async () => {
    session(3_600_000);
    const calls = mockFetch({
      'GET /api/x': () => json(null, 401),
      'POST /account/api/auth/refresh': refreshed,
    });
    await expect(api('/api/x')).rejects.toMatchObject({ status: 401 });
    expect(calls.filter((c) => c.path === '/api/x')).toHaveLength(2);
    expect(getSession()).toBeNull();
  });

  it('a refresh that gets no answer keeps the session and shows Server Busy', async () => {
    session(1_000);
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(api('/api/x')).rejects.toMatchObject({ status: 0 });
    expect(getSession()).not.toBeNull();
    expect(currentMessages()[0].error).toBe('Server Busy');
  });
});
