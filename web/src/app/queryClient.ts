import { QueryClient } from '@tanstack/react-query';

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: { background?: boolean };
    mutationMeta: { background?: boolean };
  }
}

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      // Errors are shown once by the API client (SPEC §8); a retry would show them again.
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}
