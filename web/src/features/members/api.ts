import { useQuery } from '@tanstack/react-query';
import { accountCall } from '../../api/client';
import type { Member, Page } from '../../api/types';
import type { components } from '../../api/schema';

/** The answer of GET /members/{id} (generated from the server's OpenAPI document). */
export type MemberDetails = components['schemas']['MemberDetails'];

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: () => accountCall<Page<Member>>('/account/api/members') });
}

export function useMember(id: string | undefined) {
  return useQuery({
    queryKey: ['members', id],
    queryFn: () => accountCall<MemberDetails>(`/account/api/members/${encodeURIComponent(id!)}`),
    enabled: !!id,
  });
}

export interface Invite {
  email: string;
  role: string;
  first_name: string;
  last_name: string;
}

/** POST members: the success message is the server's ('Invitation sent to …'). */
export const inviteMember = (body: Invite) => accountCall<{ id: string; message: string }>('/account/api/members', { method: 'POST', json: body, silent: true, success: true });

/** PUT /members/{id} with exactly one field: role or status. */
export const updateMember = (id: string, field: { role: string } | { status: string }) =>
  accountCall<Member & { message: string }>(`/account/api/members/${encodeURIComponent(id)}`, { method: 'PUT', json: field, success: true });

export const memberName = (m: Pick<Member, 'first_name' | 'last_name' | 'email'>) =>
  [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;

/** DELETE /members/{id}: cancels an invitation that has not been accepted (the server's message is shown). */
export const cancelInvitation = (id: string) =>
  accountCall<{ id: string; message: string }>(`/account/api/members/${encodeURIComponent(id)}`, { method: 'DELETE', success: true });
