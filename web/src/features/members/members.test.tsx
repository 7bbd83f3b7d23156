import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { json, ME, mockFetch, ok, renderApp, signIn, STATUS } from '../../test/utils';
import { inviteProblems } from './InviteDialog';

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  await i18n.changeLanguage('en');
});

const MEMBERS = [
  { id: 'u1', email: 'hanako@example.com', first_name: 'Hanako', last_name: 'Yamada', role: 'admin', status: 'active', created_at: '2026-01-01T00:00:00Z' },
  { id: 'u2', email: 'taro@example.com', first_name: 'Taro', last_name: 'Sato', role: 'member', status: 'active', created_at: '2026-01-02T00:00:00Z' },
];

function routes(extra: Record<string, Parameters<typeof mockFetch>[0] extends infer R ? (R extends Record<string, infer H> ? H : never) : never> = {}) {
  return mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok(STATUS),
    'GET /account/api/profile': () => json({ detail: { response: 'x', error: 'not_found' } }, 404),
    'GET /account/api/members': () => ok({ items: MEMBERS, total: 2 }),
    ...extra,
  });
}

describe('members (/users)', () => {
  it('invite rules: e-mail, names not digits only', () => {
    expect(inviteProblems({ email: 'x', role: 'member', first_name: '123', last_name: '' })).toEqual({
      email: 'validation.email',
      first_name: 'validation.notDigitsOnly',
      last_name: 'validation.required',
    });
    expect(inviteProblems({ email: 'a@b.co', role: 'viewer', first_name: 'A', last_name: 'B' })).toEqual({});
  });

  it('invites by e-mail with role and names, and shows the success message', async () => {
    signIn();
    const calls = routes({ 'POST /account/api/members': () => ok({ id: 'u3', message: 'Invitation sent to kenji@example.com.' }, 201) });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Invite member' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invite a member' });
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }));
    expect(within(dialog).getAllByText('This field is required.')).toHaveLength(3);
    await user.type(within(dialog).getByRole('textbox', { name: /E-mail address/ }), 'kenji@example.com');
    await user.type(within(dialog).getByRole('textbox', { name: /First name/ }), 'Kenji');
    await user.type(within(dialog).getByRole('textbox', { name: /Last name/ }), 'Mori');
    await user.click(within(dialog).getByRole('combobox', { name: /Role/ }));
    await user.click(await screen.findByRole('option', { name: 'Viewer' }));
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Invitation sent to kenji@example.com.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'kenji@example.com', role: 'viewer', first_name: 'Kenji', last_name: 'Mori' });
  });

  it('an invitation to an existing member says so in the dialog and changes nothing', async () => {
    signIn();
    routes({ 'POST /account/api/members': () => json({ detail: { response: 'This person is already a member of an organisation.', error: 'already_member' } }, 409) });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Invite member' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invite a member' });
    await user.type(within(dialog).getByRole('textbox', { name: /E-mail address/ }), 'taro@example.com');
    await user.type(within(dialog).getByRole('textbox', { name: /First name/ }), 'Taro');
    await user.type(within(dialog).getByRole('textbox', { name: /Last name/ }), 'Sato');
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }));
    expect(await within(dialog).findByText('This person is already a member of an organisation.')).toBeInTheDocument();
  });

  it('changes a role only after confirmation, with PUT /members/{id} carrying one field', async () => {
    signIn();
    const calls = routes({ 'PUT /account/api/members/u2': () => ok({ ...MEMBERS[1], role: 'viewer', message: 'Member updated successfully.' }) });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('combobox', { name: 'Role of Taro Sato' }));
    await user.click(await screen.findByRole('option', { name: 'Viewer' }));
    const confirm = await screen.findByRole('dialog', { name: 'Change the role?' });
    expect(confirm).toHaveTextContent('Change the role of Taro Sato to Viewer?');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Change' }));
    expect(await screen.findByText('Member updated successfully.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ role: 'viewer' });
    // one cannot change oneself: no select on one's own row
    expect(screen.queryByRole('combobox', { name: 'Role of Hanako Yamada' })).toBeNull();
  });

  it('cancels an invitation that has not been accepted, after confirmation', async () => {
    signIn();
    const invited = { id: 'u3', email: 'jiro@example.com', first_name: 'Jiro', last_name: 'Ito', role: 'member', status: 'invited', created_at: '2026-01-03T00:00:00Z' };
    let items = [...MEMBERS, invited];
    const calls = routes({
      'GET /account/api/members': () => ok({ items, total: items.length }),
      'DELETE /account/api/members/u3': () => {
        items = [...MEMBERS];
        return ok({ id: 'u3', message: 'The invitation to jiro@example.com was cancelled.' });
      },
    });
    renderApp('/users');
    const user = userEvent.setup();
    // Only the invitation has the action; members who joined do not.
    await user.click(await screen.findByRole('button', { name: 'Cancel the invitation of Jiro Ito' }));
    expect(screen.queryByRole('button', { name: 'Cancel the invitation of Taro Sato' })).toBeNull();
    const confirm = await screen.findByRole('dialog', { name: 'Cancel invitation' });
    expect(confirm).toHaveTextContent('jiro@example.com');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Cancel invitation' }));
    expect(await screen.findByText('The invitation to jiro@example.com was cancelled.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Jiro Ito')).toBeNull());
  });

  it('viewers see the list without invite or change controls', async () => {
    signIn();
    mockFetch({
      'GET /api/users/me': () => ok({ ...ME, role: 'viewer' }),
      'GET /api/services/status': () => ok(STATUS),
      'GET /account/api/members': () => ok({ items: MEMBERS, total: 2 }),
    });
    renderApp('/users');
    await screen.findByText('Taro Sato');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Invite member' })).toBeNull());
    expect(screen.queryByRole('combobox', { name: 'Role of Taro Sato' })).toBeNull();
  });
});
