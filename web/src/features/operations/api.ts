import { useQuery } from '@tanstack/react-query';
import { answer, http } from '../../api/typed';

/** Workers, queue depth and recent failures across organisations (platform administrators); refreshed every 5 s. */
export function useOperations(enabled: boolean) {
  return useQuery({ queryKey: ['operations'], queryFn: () => answer(http.GET('/api/services/operations')), enabled, refetchInterval: 5000 });
}
