import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getSession, setSession } from '../../api/session';
import i18n from '../../i18n';
import { json, ME, mockFetch, ok, renderApp, STATUS } from '../../test/utils';

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  localStorage.clear();
  await i18n.changeLanguage('en');
});

const SENT = 'If an account exists for this e-mail address, we have sent it a message. Please check your inbox.';

describe('account screens', () => {
  it('forgot password: checks the e-mail, then shows the same answer for any address', async () => {
    const calls = mockFetch({ 'POST /account/api/auth/forgot-password': () => ok({ message: SENT }) });
    renderApp('/forgot-password');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Send reset link' }));
    expect(screen.getByText('This field is required.')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /E-mail address/ }), 'nobody@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(SENT)).toBeInTheDocument();
    expect(calls[calls.length - 1].body).toEqual({ email: 'nobody@example.com' });
  });

  it('reset password: the rules, then the server says when the link is used or expired', async () => {
    mockFetch({
      'POST /account/api/auth/reset-password': () =>
        json({ detail: { response: 'This link is invalid, has expired or has already been used. Please request a new one.', error: 'error' } }, 400),
    });
    renderApp('/reset-password?token=abc');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^New password/), 'Tr0ub4dor&3');
    await user.type(screen.getByLabelText(/^Confirm password/), 'Tr0ub4dor&4');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(screen.getByText('Passwords do not match.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/^Confirm password/));
    await user.type(screen.getByLabelText(/^Confirm password/), 'Tr0ub4dor&3');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByText(/has already been used/)).toBeInTheDocument();
  });

  it('verify e-mail: follows the link once and offers to sign in', async () => {
    const calls = mockFetch({ 'POST /account/api/auth/verify-email': () => ok({ message: 'Your e-mail address is verified. You can sign in now.' }) });
    renderApp('/verify-email?token=tok');
    expect(await screen.findByText('Your e-mail address is verified. You can sign in now.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    expect(calls.filter((c) => c.path === '/account/api/auth/verify-email')).toHaveLength(1);
  });

  it('verify e-mail: with verification off (the default) it does not claim a mail was sent', async () => {
    mockFetch({ 'GET /account/api/auth/options': () => ok({ local_login: true, sso: false, tenant: null, email_verification_required: false }) });
    renderApp('/verify-email');
    expect(await screen.findByText(/does not ask for e-mail verification/)).toBeInTheDocument();
    expect(screen.queryByText(/We sent/)).toBeNull();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
  });

  it('verify e-mail: with verification on it says the link was sent and offers to resend', async () => {
    mockFetch({ 'GET /account/api/auth/options': () => ok({ local_login: true, sso: false, tenant: null, email_verification_required: true }) });
    renderApp('/verify-email');
    expect(await screen.findByText(/We sent you a verification link/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Resend verification e-mail' })).toBeInTheDocument();
  });

  it('login offers single sign-on and trades the returned code for a session', async () => {
    mockFetch({
      'GET /account/api/auth/options': () => ok({ local_login: true, sso: true, tenant: 'single', email_verification_required: false }),
      'POST /account/api/oidc/exchange': () => ok({ access_token: 'a', refresh_token: 'r', expires_in: 900, end_session_url: 'http://idp/session/end?x=1' }),
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
    });
    const { router } = renderApp('/login?sso_code=abc&return_to=%2Fusers');
    await waitFor(() => expect(getSession()?.refresh_token).toBe('r'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/users'));
    expect(localStorage.getItem('mitate.ssoLogout')).toBe('http://idp/session/end?x=1');
  });

  it('login shows the directory error and the SSO button; local login can be off', async () => {
    mockFetch({ 'GET /account/api/auth/options': () => ok({ local_login: false, sso: true, tenant: 'common', email_verification_required: false }) });
    renderApp('/login?sso_error=Single%20sign-on%20failed');
    expect(await screen.findByText('Single sign-on failed')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Sign in with your corporate account' })).toHaveAttribute('href', '/account/api/oidc/login');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull());
  });
});
