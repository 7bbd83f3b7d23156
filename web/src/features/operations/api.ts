import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { paths } from '../../api/schema';

/** The answer as the server declares it (server/src/features/services, GET /api/services/operations). */
export type Operations = paths['/api/services/operations']['get']['responses'][200]['content']['application/json']['detail']['response'];

/** Workers, queue depth and recent failures across organisations (platform administrators); refreshed every 5 s. */
export function useOperations(enabled: boolean) {
  return useQuery({ queryKey: ['operations'], queryFn: () => api<Operations>('/api/services/operations'), enabled, refetchInterval: 5000 });
}
