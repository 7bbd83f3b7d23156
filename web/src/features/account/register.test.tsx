import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { getSession, setSession } from '../../api/session';
import { ME, STATUS, json, mockFetch, ok, renderApp } from '../../test/utils';
import { checkPassword, passwordProblem } from './passwordRules';
import { registrationProblems } from './RegisterPage';

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  await i18n.changeLanguage('en');
});

describe('password rules (SPEC §5, same as the server)', () => {
  const person = { email: 'hanako.yamada@example.com', first_name: 'Hanako', last_name: 'Yamada' };
  it.each([
    ['Ab1!', 'length'],
    ['abcdefgh1', 'classes'],
    ['abcdefgh', 'classes'],
    ['Hanako-2024!', 'personal'],
    ['xYAMADAx1!', 'personal'],
    ['Example#123', 'personal'],
    ['Tr0ub4dor&3', null],
    ['correct-Horse7', null],
  ])('%s → %s', (pw, problem) => {
    expect(passwordProblem(pw, person)).toBe(problem);
  });

  it('checks each rule separately', () => {
    expect(checkPassword('short', person)).toEqual({ length: false, classes: false, personal: true });
  });

  it('registrationProblems: required fields, digits-only names, confirmation', () => {
    const p = registrationProblems({ first_name: '123', last_name: '', email: 'x', organisation_name: 'Acme', password: 'Tr0ub4dor&3', confirm: 'other' });
    expect(p).toEqual({ first_name: 'validation.notDigitsOnly', last_name: 'validation.required', email: 'validation.email', confirm: 'password.mismatch' });
  });
});

describe('the registration screen', () => {
  async function fill(password: string, confirm = password) {
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/^First name/), 'Hanako');
    await user.type(screen.getByLabelText(/^Last name/), 'Yamada');
    await user.type(screen.getByLabelText(/^E-mail address/), 'hanako@example.com');
    await user.type(screen.getByLabelText(/^Organisation name/), 'Acme Chemicals');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), password);
    await user.type(screen.getByLabelText(/^Confirm password/), confirm);
    return user;
  }

  it('checks the password rules live, with the server texts', async () => {
    mockFetch({});
    renderApp('/register');
    expect(await screen.findByRole('heading', { name: 'Create your Mitate account' })).toBeInTheDocument();
    const rule = (r: string) => document.querySelector(`[data-rule="${r}"]`)!;
    expect(rule('length')).toHaveTextContent('Password must be at least 8 characters.');
    expect(rule('classes')).toHaveTextContent('Password must contain at least 3 of: lowercase letters, uppercase letters, digits, symbols.');
    expect(rule('personal')).toHaveTextContent('Password must not contain part of your e-mail address or name.');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/^First name/), 'Hanako');
    const pw = screen.getByLabelText(/^Password/, { selector: 'input' });
    await user.type(pw, 'abc');
    expect(rule('length')).toHaveAttribute('data-ok', 'false');
    expect(rule('classes')).toHaveAttribute('data-ok', 'false');
    await user.type(pw, 'DEF12');
    expect(rule('length')).toHaveAttribute('data-ok', 'true');
    expect(rule('classes')).toHaveAttribute('data-ok', 'true');
    expect(rule('personal')).toHaveAttribute('data-ok', 'true');
    await user.type(pw, 'hanako');
    expect(rule('personal')).toHaveAttribute('data-ok', 'false');
  });

  it("says 'Passwords do not match.' and does not submit", async () => {
    const calls = mockFetch({});
    renderApp('/register');
    await screen.findByRole('heading', { name: 'Create your Mitate account' });
    const user = await fill('Tr0ub4dor&3', 'Tr0ub4dor&4');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('Passwords do not match.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('registers, then signs in directly', async () => {
    const calls = mockFetch({
      'POST /account/api/auth/register': () => ok({ id: 'u1', email: 'hanako@example.com' }, 201),
      'POST /account/api/auth/login': () => ok({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }),
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/datasets/list/': () => ok({ items: [], total: 0 }),
    });
    const { router } = renderApp('/register');
    await screen.findByRole('heading', { name: 'Create your Mitate account' });
    const user = await fill('Tr0ub4dor&3');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset'));
    expect(calls[0].body).toEqual({
      email: 'hanako@example.com',
      password: 'Tr0ub4dor&3',
      first_name: 'Hanako',
      last_name: 'Yamada',
      organisation_name: 'Acme Chemicals',
    });
    expect(getSession()?.refresh_token).toBe('r');
  });

  it('when the e-mail must be verified first, goes to /login with the server message', async () => {
    mockFetch({
      'POST /account/api/auth/register': () => ok({ id: 'u1', email: 'hanako@example.com' }, 201),
      'POST /account/api/auth/login': () =>
        json({ detail: { response: 'Please verify your e-mail address before signing in.', error: 'email_not_verified' } }, 403),
    });
    const { router } = renderApp('/register');
    await screen.findByRole('heading', { name: 'Create your Mitate account' });
    const user = await fill('Tr0ub4dor&3');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByText('Please verify your e-mail address before signing in.')).toBeInTheDocument();
    expect(getSession()).toBeNull();
  });

  it('shows the rules in Japanese', async () => {
    await i18n.changeLanguage('ja');
    mockFetch({});
    renderApp('/register');
    expect(await screen.findByText('パスワードは8文字以上にしてください。')).toBeInTheDocument();
    expect(screen.getByText('パスワードにメールアドレスや氏名の一部を含めないでください。')).toBeInTheDocument();
  });
});

describe('the login screen', () => {
  it('shows the server message for wrong credentials on the form', async () => {
    mockFetch({
      'POST /account/api/auth/login': () =>
        json({ detail: { response: 'The e-mail address or password is incorrect.', error: 'login_failed' } }, 401),
    });
    const { router } = renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/E-mail address/), 'x@example.com');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('The e-mail address or password is incorrect.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
