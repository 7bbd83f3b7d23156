import { useQuery } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import type { BodyOf } from '../../api/types';
import { accountAnswer, answer, http, per } from '../../api/typed';
import { accountHandled } from '../../api/client';
import { uploadTo } from '../../api/upload';
import { sessionFromTokens, setSession } from '../../api/session';
import { useSignedIn } from '../../api/session';

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/account/responses.ts).
export type Invitation = Schemas['Invitation'];
/** My profile as GET profile answers it (with the platform-administrator flag). */
export type Profile = Schemas['MyProfile'];
export type AccountProfile = Schemas['Profile'];
export type Settings = Schemas['Settings'];

export const useAuthOptions = () =>
  useQuery({ queryKey: ['account', 'options'], queryFn: () => answer(http.GET('/account/api/auth/options', per({ auth: false, silent: true }))), staleTime: 5 * 60_000 });

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
  accountAnswer((o) => http.POST('/account/api/auth/change-password', { body: { current_password, password, confirm_password }, ...o }), { silent: true, success: true });

/** `silent` for background readers (the user menu): a failure there never opens the message dialog. */
export function useProfile(opts: { silent?: boolean } = {}) {
  const signedIn = useSignedIn();
  return useQuery({
    queryKey: ['account', 'profile'],
    queryFn: () => accountAnswer((o) => http.GET('/account/api/profile', o), { silent: opts.silent }),
    enabled: signedIn,
    meta: opts.silent ? { background: true } : undefined,
  });
}

export const saveSetup = (values: BodyOf<'/account/api/members/setup', 'put'>, opts: { silent?: boolean } = {}) =>
  accountAnswer((o) => http.PUT('/account/api/members/setup', { body: values, ...o }), { silent: opts.silent ?? true, success: true });

/** `quiet`: no success snackbar and no error dialog (a save the person did not ask for on this page). */
/** A change of settings (the fields it sets). */
export type SettingsChange = BodyOf<'/account/api/settings', 'put'>;
export const saveSettings = (s: SettingsChange, opts: { quiet?: boolean } = {}) =>
  accountAnswer((o) => http.PUT('/account/api/settings', { body: s, ...o }), { success: !opts.quiet, silent: opts.quiet });

export const uploadIdentity = (front: File, back: File) => {
  const body = new FormData();
  body.append('front', front);
  body.append('back', back);
  return accountHandled(() => uploadTo('/account/api/identity', {}, body, { silent: true }), { silent: true });
};
