import type { QueryClient } from '@tanstack/react-query';
import { apiPost } from '../../api/client';
import { answer, http, per } from '../../api/typed';
import { clearSession, getSession, sessionFromTokens, setSession } from '../../api/session';
import { navigateTo } from '../../lib/navigation';
import { SSO_LOGOUT_KEY } from './api';

export interface Credentials {
  email: string;
  password: string;
}

export interface Registration extends Credentials {
  first_name: string;
  last_name: string;
  organisation_name: string;
}

/** Login errors (401 wrong credentials, 403 e-mail not verified) are shown on the form: silent here. */
export async function login(credentials: Credentials): Promise<void> {
  const tokens = await answer(http.POST('/account/api/auth/login', { body: credentials, ...per({ auth: false, silent: true }) }));
  setSession(sessionFromTokens(tokens));
}

export function register(data: Registration) {
  return answer(http.POST('/account/api/auth/register', { body: data, ...per({ auth: false, silent: true }) }));
}

/** Revokes the refresh token (best effort), forgets the session and goes to /login. */
export async function logout(queryClient?: QueryClient): Promise<void> {
  const s = getSession();
  if (s) {
    await apiPost('/account/api/auth/logout', { refresh_token: s.refresh_token }, {
      auth: false,
      silent: true,
      headers: { Authorization: `Bearer ${s.access_token}` },
    }).catch(() => undefined);
  }
  clearSession();
  queryClient?.clear();
  // A session that came through single sign-on also ends at the directory, which sends the browser back to /login.
  let endSession: string | null = null;
  try {
    endSession = localStorage.getItem(SSO_LOGOUT_KEY);
    localStorage.removeItem(SSO_LOGOUT_KEY);
  } catch {
    /* ignore */
  }
  if (endSession) {
    window.location.assign(endSession);
    return;
  }
  navigateTo('/login', { replace: true });
}
