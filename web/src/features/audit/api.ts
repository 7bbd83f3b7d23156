import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { paths } from '../../api/schema';
import { answer, http } from '../../api/typed';
import { isOneOf } from '../../api/types';

/** The answer as the server declares it (server/src/features/audit). */
export type AuditPage = paths['/api/audit']['get']['responses'][200]['content']['application/json']['detail']['response'];
export type AuditEvent = AuditPage['items'][number];

export const ACTIONS = [
  'sign_up', 'sign_in', 'sign_in_failed', 'sign_out', 'password_reset', 'member_invite', 'member_change', 'member_remove',
  'key_create', 'key_revoke', 'delete', 'payment', 'service', 'create', 'change',
] as const;

/** GET /api/audit: one page, newest first (owners and administrators). */
export function useAudit(page: number, pageSize: number, action: string) {
  return useQuery({
    queryKey: ['audit', page, pageSize, action],
    queryFn: () => answer(http.GET('/api/audit', { params: { query: { page, page_size: pageSize, ...(isOneOf(ACTIONS, action) ? { action } : {}) } } })),
    placeholderData: keepPreviousData,
  });
}
