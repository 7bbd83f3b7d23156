import { useQuery } from '@tanstack/react-query';
import { accountAnswer, http } from '../../api/typed';
import type { BodyOf, Member } from '../../api/types';
import type { components } from '../../api/schema';

/** The answer of GET /members/{id} (generated from the server's OpenAPI document). */
export type MemberDetails = components['schemas']['MemberDetails'];

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: () => accountAnswer((o) => http.GET('/account/api/members', o)) });
}

export function useMember(id: string | undefined) {
  return useQuery({
    queryKey: ['members', id],
    queryFn: (): Promise<MemberDetails> => accountAnswer((o) => http.GET('/account/api/members/{id}', { params: { path: { id: id! } }, ...o })),
    enabled: !!id,
  });
}

export type Invite = BodyOf<'/account/api/members', 'post'>;
/** One change of a member: its role or its status. */
export type MemberUpdate = BodyOf<'/account/api/members/{id}', 'put'>;

/** POST members: the success message is the server's ('Invitation sent to …'). */
export const inviteMember = (body: Invite) => accountAnswer((o) => http.POST('/account/api/members', { body, ...o }), { silent: true, success: true });

/** PUT /members/{id} with exactly one field: role or status. */
export const updateMember = (id: string, field: MemberUpdate) =>
  accountAnswer((o) => http.PUT('/account/api/members/{id}', { params: { path: { id } }, body: field, ...o }), { success: true });

export const memberName = (m: Pick<Member, 'first_name' | 'last_name' | 'email'>) =>
  [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;

/** DELETE /members/{id}: cancels an invitation that has not been accepted (the server's message is shown). */
export const cancelInvitation = (id: string) =>
  accountAnswer((o) => http.DELETE('/account/api/members/{id}', { params: { path: { id } }, ...o }), { success: true });
