import LinearProgress from '@mui/material/LinearProgress';
import { useIsFetching, useIsMutating } from '@tanstack/react-query';

/** The thin bar at the top while any foreground query or mutation runs (background polls excluded). */
export default function GlobalProgress() {
  const fetching = useIsFetching({ predicate: (q) => !q.meta?.background });
  const mutating = useIsMutating({ predicate: (m) => !m.meta?.background });
  if (fetching + mutating === 0) return null;
  return (
    <LinearProgress
      aria-label="loading"
      data-testid="global-progress"
      sx={{ position: 'fixed', top: 0, left: 0, right: 0, height: 3, zIndex: (t) => t.zIndex.tooltip + 1 }}
    />
  );
}
