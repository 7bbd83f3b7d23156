import { useQuery } from '@tanstack/react-query';
import { accountCall, apiGet, apiPost } from '../../api/client';
import { sessionFromTokens, setSession, type TokenPair } from '../../api/session';
import { useSignedIn } from '../../api/session';

export interface AuthOptions {
  local_login: boolean;
  sso: boolean;
  tenant: string;
  email_verification_required: boolean;
}

export const useAuthOptions = () =>
  useQuery({ queryKey: ['account', 'options'], queryFn: () => apiGet<AuthOptions>('/account/api/auth/options', undefined, { auth: false, silent: true }), staleTime: 5 * 60_000 });

type Msg = { message: string };
const guest = { auth: false, silent: true } as const;

export const resendVerification = (email: string) => apiPost<Msg>('/account/api/auth/resend-verification', { email }, guest);
export const verifyEmail = (token: string) => apiPost<Msg>('/account/api/auth/verify-email', { token }, guest);
export const forgotPassword = (email: string) => apiPost<Msg>('/account/api/auth/forgot-password', { email }, guest);
export const resetPassword = (token: string, password: string, confirm_password: string) =>
  apiPost<Msg>('/account/api/auth/reset-password', { token, password, confirm_password }, guest);

export interface Invitation {
  email: string;
  first_name: string;
  last_name: string;
  organisation_name: string;
}
export const invitation = (token: string) => apiGet<Invitation>('/account/api/auth/invitation', { token }, guest);
export async function acceptInvitation(token: string, password: string, confirm_password: string) {
  const tokens = await apiPost<TokenPair>('/account/api/auth/accept-invitation', { token, password, confirm_password }, guest);
  setSession(sessionFromTokens(tokens));
}

/** Where the directory's sign-out page is, for a session that came through single sign-on. */
export const SSO_LOGOUT_KEY = 'mitate.ssoLogout';

export async function exchangeSsoCode(code: string) {
  const res = await apiPost<TokenPair & { end_session_url: string | null }>('/account/api/oidc/exchange', { code }, guest);
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

export type IdentityState = 'not_done' | 'under_review' | 'done' | 'rejected';

export interface Profile {
  id: string;
  email: string;
  role: string;
  status: string;
  created_at: string;
  has_password: boolean;
  values: Record<string, string | null>;
  registration_complete: boolean;
  missing: string[];
  settings: { language: string; currency: string; dark_theme: boolean; clock_24h: boolean; tz_offset_minutes: number };
  identity: { state: IdentityState; reason: string | null; submitted_at: string | null; reviewed_at: string | null };
  platform_admin: boolean;
}

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
  accountCall<{ message: string; profile: Profile }>('/account/api/members/setup', { method: 'PUT', json: values, silent: opts.silent ?? true, success: true });

export type Settings = Profile['settings'];
/** `quiet`: no success snackbar and no error dialog (a save the person did not ask for on this page). */
export const saveSettings = (s: Partial<Settings>, opts: { quiet?: boolean } = {}) =>
  accountCall<Settings & { message: string }>('/account/api/settings', { method: 'PUT', json: s, success: !opts.quiet, silent: opts.quiet });

export const uploadIdentity = (front: File, back: File) => {
  const body = new FormData();
  body.append('front', front);
  body.append('back', back);
  return accountCall<Profile['identity']>('/account/api/identity', { method: 'POST', body, silent: true });
};
