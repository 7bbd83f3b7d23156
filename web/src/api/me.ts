import { useQuery } from '@tanstack/react-query';
import { answer, http, per } from './typed';
import { useSignedIn } from './session';

/** Status and its update are polled every 30000 ms (SPEC §4, §9). */
export const SERVICE_STATUS_INTERVAL_MS = 30_000;

export function useMe() {
  const signedIn = useSignedIn();
  return useQuery({
    queryKey: ['users', 'me'],
    queryFn: () => answer(http.GET('/api/users/me')),
    enabled: signedIn,
    staleTime: 5 * 60_000,
  });
}

export function useServiceStatus() {
  const signedIn = useSignedIn();
  return useQuery({
    queryKey: ['services', 'status'],
    // Background poll: never opens the message dialog every 30 s when the server is away.
    queryFn: () => answer(http.GET('/api/services/status', per({ silent: true }))),
    enabled: signedIn,
    refetchInterval: SERVICE_STATUS_INTERVAL_MS,
    staleTime: SERVICE_STATUS_INTERVAL_MS,
    meta: { background: true },
  });
}

/** Viewers read but never create, change or delete (the server refuses them with 403 anyway). */
export function useCanWrite(): boolean {
  const { data: me } = useMe();
  return !!me && me.role !== 'viewer';
}
