import { useQuery } from '@tanstack/react-query';
import { accountCall } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import { sessionFromTokens, setSession } from '../../api/session';
import { useSignedIn } from '../../api/session';

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/account/responses.ts).
export type Invitation = Schemas['Invitation'];
/** My profile as GET profile answers it (with the platform-administrator flag). */
export type Profile = Schemas['MyProfile'];
export type AccountProfile = Schemas['Profile'];
export type Settings = Schemas['Settings'];
export type IdentityStatus = Schemas['IdentityStatus'];

export const useAuthOptions = () =>
  useQuery({ queryKey: ['account', 'options'], queryFn: () => answer(http.GET('/account/api/auth/options', per({ auth: false, silent: true }))), staleTime: 5 * 60_000 });

type Msg = Schemas['Message'];
/** Calls of a person not signed in: no bearer; the page says what went wrong. */
const guest = () => per({ auth: false, silent: true });

export const resendVerification = (email: string) => answer(http.POST('/account/api/auth/resend-verification', { body: { email }, ...guest() }));
export const verifyEmail = (token: string) => answer(http.POST('/account/api/auth/verify-email', { body: { token }, ...guest() }));
export const forgotPassword = (email: string) => answer(http.POST('/account/api/auth/forgot-password', { body: { email }, ...guest() }));
export const resetPassword = (token: string, password: string, confirm_password: string) =>
  answer(http.POST('/account/api/auth/reset-password', { body: { token, password, confirm_password }, ...guest() }));

export const invitation = (token: string) => answer(http.GET('/account/api/auth/invitation', { params: { query: { token } }, ...guest() }));
export async function acceptInvitation(token: string, password: string, confirm_password: string) {
  const tokens = await answer(http.POST('/account/api/auth/accept-invitation', { body: { token, password, confirm_password }, ...guest() }));
  setSession(sessionFromTokens(tokens));
}

/** Where the directory's sign-out page is, for a session that came through single sign-on. */
export const SSO_LOGOUT_KEY = 'mitate.ssoLogout';

export async function exchangeSsoCode(code: string) {
  const res = await answer(http.POST('/account/api/oidc/exchange', { body: { code }, ...guest() }));
  try {
    if (res.end_session_url) localStorage.setItem(SSO_LOGOUT_KEY, res.end_session_url);
    else localStorage.removeItem(SSO_LOGOUT_KEY);
  } catch {
    /* ignore */
  }
  setSession(sessionFromTokens(res));
}

export const changePassword = (current_password: string, password: string, confirm_password: string) =>
  accountCall<Msg>('/account/api/auth/change-password', { method: 'POST', json: { current_password, password, confirm_password }, silent: true, success: true });

/** `silent` for background readers (the user menu): a failure there never opens the message dialog. */
export function useProfile(opts: { silent?: boolean } = {}) {
  const signedIn = useSignedIn();
  return useQuery({
    queryKey: ['account', 'profile'],
    queryFn: () => accountCall<Profile>('/account/api/profile', { silent: opts.silent }),
    enabled: signedIn,
    meta: opts.silent ? { background: true } : undefined,
  });
}

export const saveSetup = (values: Record<string, string | null | boolean>, opts: { silent?: boolean } = {}) =>
  accountCall<Schemas['SetupSaved']>('/account/api/members/setup', { method: 'PUT', json: values, silent: opts.silent ?? true, success: true });

/** `quiet`: no success snackbar and no error dialog (a save the person did not ask for on this page). */
export const saveSettings = (s: Partial<Settings>, opts: { quiet?: boolean } = {}) =>
  accountCall<Schemas['SettingsSaved']>('/account/api/settings', { method: 'PUT', json: s, success: !opts.quiet, silent: opts.quiet });

export const uploadIdentity = (front: File, back: File) => {
  const body = new FormData();
  body.append('front', front);
  body.append('back', back);
  return accountCall<IdentityStatus>('/account/api/identity', { method: 'POST', body, silent: true });
};
