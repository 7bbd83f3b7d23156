import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountCall, accountErrorMessage, ApiError } from '../../api/client';
import { accountAnswer, http } from '../../api/typed';
import { getSession, setSession } from '../../api/session';
import i18n from '../../i18n';
import { currentMessages, resetFeedback } from '../../lib/feedback';
import { formatDateTime, formatOffset, setDisplaySettings } from '../../lib/format';
import { json, mockFetch, ok, signIn } from '../../test/utils';

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  resetFeedback();
  setDisplaySettings({ clock24h: true, tzOffsetMinutes: 540 });
  await i18n.changeLanguage('en');
});

describe("the account client's messages (SPEC §8 'Account client')", () => {
  it('shows the server message, joins 422 entries, silences aborted, expired, revoked and not-activated, else "Unknown error occured!"', () => {
    expect(accountErrorMessage(new ApiError(409, { detail: { response: 'This person is already a member of an organisation.', error: 'error' } }))).toEqual({
      error: 'This person is already a member of an organisation.',
    });
    const v = accountErrorMessage(new ApiError(422, { detail: [{ loc: ['body', 'email'], msg: 'Please enter a valid e-mail address.' }, { loc: ['body', 'role'], msg: 'Invalid option' }] }));
    expect(v?.details).toEqual(['Please enter a valid e-mail address.', 'Invalid option']);
    expect(accountErrorMessage(new ApiError(0, null, true))).toBeNull();
    expect(accountErrorMessage(new Error('Request aborted'))).toBeNull();
    expect(accountErrorMessage(new DOMException('x', 'AbortError'))).toBeNull();
    expect(accountErrorMessage(new ApiError(401, { detail: { response: 'expired', error: 'token_invalid' } }))).toBeNull();
    expect(accountErrorMessage(new ApiError(403, { detail: { response: 'not activated', error: 'account_not_activated' } }))).toBeNull();
    expect(accountErrorMessage(new ApiError(500, null))).toEqual({ error: 'Unknown error occured!' });
    expect(accountErrorMessage(new TypeError('boom'))).toEqual({ error: 'Unknown error occured!' });
  });

  it('a 401 refreshes once, retries the queued calls, and shows the success message', async () => {
    signIn();
    let refreshes = 0;
    const calls = mockFetch({
      'POST /account/api/auth/refresh': () => {
        refreshes++;
        return ok({ access_token: 'access-2', refresh_token: 'refresh-2', expires_in: 3600 });
      },
      'GET /account/api/members': (c) => (c.headers.get('authorization') === 'Bearer access-2' ? ok({ items: [], total: 0 }) : json({ detail: { response: 'x', error: 'token_invalid' } }, 401)),
      'PUT /account/api/members/m1': (c) =>
        c.headers.get('authorization') === 'Bearer access-2' ? ok({ id: 'm1', role: 'viewer', message: 'Member updated successfully.' }) : json({ detail: { response: 'x', error: 'token_invalid' } }, 401),
    });
    const [list, updated] = await Promise.all([
      accountAnswer((o) => http.GET('/account/api/members', o)),
      accountAnswer((o) => http.PUT('/account/api/members/{id}', { params: { path: { id: 'm1' } }, body: { role: 'viewer' }, ...o }), { success: true }),
    ]);
    expect(list.total).toBe(0);
    expect(updated.role).toBe('viewer');
    expect(refreshes).toBe(1);
    expect(getSession()?.refresh_token).toBe('refresh-2');
    expect(calls.filter((c) => c.path === '/account/api/members/m1')).toHaveLength(2);
    expect(currentMessages()).toEqual([]);
  });

  it('a failed refresh signs out silently (the guard then shows /login)', async () => {
    signIn();
    mockFetch({
      'POST /account/api/auth/refresh': () => json({ detail: { response: 'expired', error: 'token_invalid' } }, 401),
      'GET /account/api/profile': () => json({ detail: { response: 'x', error: 'token_invalid' } }, 401),
    });
    await expect(accountCall('/account/api/profile')).rejects.toBeInstanceOf(ApiError);
    expect(getSession()).toBeNull();
    expect(currentMessages()).toEqual([]);
  });

  it('shows other errors in the message dialog', async () => {
    signIn();
    mockFetch({ 'POST /account/api/members': () => json({ detail: { response: 'This person is already a member of an organisation.', error: 'error' } }, 409) });
    await expect(accountCall('/account/api/members', { method: 'POST', json: {} })).rejects.toBeInstanceOf(ApiError);
    expect(currentMessages()[0].error).toBe('This person is already a member of an organisation.');
  });
});

describe('dates at the chosen offset and clock (SPEC §9)', () => {
  it('defaults to +9 h and 24-hour, and follows the settings', async () => {
    const t = '2026-03-01T15:30:00Z';
    expect(formatDateTime(t)).toBe('02/03/2026, 00:30');
    setDisplaySettings({ tzOffsetMinutes: -300 });
    expect(formatDateTime(t)).toBe('01/03/2026, 10:30');
    setDisplaySettings({ clock24h: false });
    expect(formatDateTime(t)).toMatch(/01\/03\/2026, 10:30\s?am/i);
    await i18n.changeLanguage('ja');
    setDisplaySettings({ clock24h: true, tzOffsetMinutes: 540 });
    expect(formatDateTime(t)).toBe('2026/03/02 00:30');
    expect(formatOffset(540)).toBe('UTC+09:00');
    expect(formatOffset(-570)).toBe('UTC-09:30');
  });
});
