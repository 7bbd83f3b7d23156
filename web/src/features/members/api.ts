import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../api/client';
import type { Member, Page } from '../../api/types';

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: () => apiGet<Page<Member>>('/account/api/members') });
}

export function useMember(id: string | undefined) {
  return useQuery({
    queryKey: ['members', id],
    queryFn: () => apiGet<Member>(`/account/api/members/${encodeURIComponent(id!)}`),
    enabled: !!id,
  });
}

export const memberName = (m: Pick<Member, 'first_name' | 'last_name' | 'email'>) =>
  [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;
