import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { getDisplaySettings, setDisplaySettings } from '../../lib/format';
import { json, ME, mockFetch, ok, renderApp, signIn, STATUS, warmUp } from '../../test/utils';

warmUp(() => import('./index'));

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  setDisplaySettings({ clock24h: true, tzOffsetMinutes: 540 });
  await i18n.changeLanguage('en');
});

const PROFILE = {
  id: 'u1',
  email: ME.email,
  role: 'admin',
  status: 'active',
  created_at: '2026-01-01T00:00:00Z',
  has_password: true,
  values: { first_name: 'Hanako', last_name: 'Yamada', organisation_name: 'Acme Chemicals', city: null },
  registration_complete: false,
  missing: ['city'],
  settings: { language: 'en-gb', currency: 'JPY', dark_theme: false, clock_24h: true, tz_offset_minutes: 540 },
  identity: { state: 'not_done', reason: null, submitted_at: null, reviewed_at: null },
  platform_admin: false,
};

function routes(profile: object = PROFILE, extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok(STATUS),
    'GET /account/api/profile': () => ok(profile),
    ...(extra as object),
  });
}

describe('profile (/profile)', () => {
  it('shows the role label, the tabs and asks to complete the registration', async () => {
    signIn();
    routes();
    renderApp('/profile');
    expect(await screen.findByText('Your registration is not complete yet.')).toBeInTheDocument();
    expect(screen.getAllByText('Administrator').length).toBeGreaterThan(0);
    for (const tab of ['Basic info', 'Account info', 'Identity verification', 'Settings']) expect(screen.getByRole('tab', { name: tab })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^First name/ })).toHaveValue('Hanako');
  });

  it('puts the server rule messages under their fields (PUT members/setup)', async () => {
    signIn();
    const full = { ...PROFILE, values: { ...PROFILE.values, birth_date: '1988-04-12', phone: '', country_code: 'JP', state_or_province: 'Kanagawa', city: 'Kawasaki', postal_code: '210-0001', address: '1-2-3 Ekimae' } };
    const calls = routes(full, {
      'PUT /account/api/members/setup': () => json({ detail: [{ loc: ['body', 'phone'], msg: 'Please enter a valid phone number.', type: 'value_error' }] }, 422),
    });
    renderApp('/profile');
    const user = userEvent.setup();
    await screen.findByRole('textbox', { name: /^Phone/ });
    // a required field left empty is caught before sending
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Required fields are missing.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await user.type(screen.getByRole('textbox', { name: /^Phone/ }), '12ab');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please enter a valid phone number.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Phone/ })).toHaveAttribute('aria-invalid', 'true');
    expect((calls.find((c) => c.method === 'PUT')?.body as Record<string, unknown>).phone).toBe('12ab');
  });

  it('identity: payment blocked until verified; under review says "ID under review"; a non-image is refused before sending', async () => {
    signIn();
    routes();
    renderApp('/profile?tab=identity');
    expect(await screen.findByText(/Please verify your identity before paying/)).toBeInTheDocument();
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(screen.getByLabelText('Front of the ID'), new File(['hello'], 'id.txt', { type: 'text/plain' }));
    await user.click(screen.getByRole('button', { name: 'Send for review' }));
    expect(await screen.findByText('The ID image must be a JPEG or PNG picture.')).toBeInTheDocument();
    expect(screen.getByText('Please select an image.')).toBeInTheDocument();
  });

  it('identity under review', async () => {
    signIn();
    routes({ ...PROFILE, identity: { state: 'under_review', reason: null, submitted_at: '2026-01-01T00:00:00Z', reviewed_at: null } });
    renderApp('/profile?tab=identity');
    expect(await screen.findByText('ID under review')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Send for review' })).toBeNull();
  });

  it('settings apply at once: dark theme, 12-hour clock, offset', async () => {
    signIn();
    const calls = routes(PROFILE, { 'PUT /account/api/settings': (c) => ok({ ...PROFILE.settings, ...(c.body as object), message: 'Account Updated Successfully' }) });
    renderApp('/profile?tab=settings');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('switch', { name: 'Dark theme' }));
    await waitFor(() => expect(document.documentElement.getAttribute('data-mitate-scheme')).toBe('dark'));
    expect(await screen.findByText('Account Updated Successfully')).toBeInTheDocument();
    await user.click(screen.getByRole('switch', { name: '24-hour clock' }));
    await waitFor(() => expect(getDisplaySettings().clock24h).toBe(false));
    await user.click(screen.getByRole('combobox', { name: 'Time-zone offset' }));
    await user.click(within(await screen.findByRole('listbox')).getByRole('option', { name: 'UTC+00:00' }));
    await waitFor(() => expect(getDisplaySettings().tzOffsetMinutes).toBe(0));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ dark_theme: true }, { clock_24h: false }, { tz_offset_minutes: 0 }]);
  });
});
