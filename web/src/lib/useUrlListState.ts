import { useEffect, useEffectEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDebounced } from './useDebounced';

/**
 * A server-paged list's state kept in the URL (so a reload or a shared link shows the same page): `page` (1-based in
 * the URL, 0-based here), `page_size` (one of `pageSizes`), the search text (debounced into `query`) and any filters
 * the page reads from `params`. `update` changes keys and goes back to the first page unless told not to.
 */
export function useUrlListState(pageSizes: readonly number[], defaultPageSize = 20) {
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('query') ?? '');
  const query = useDebounced(search.trim(), 400);
  const page = Math.max(0, Number(params.get('page') ?? 1) - 1) || 0;
  const pageSize = pageSizes.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : defaultPageSize;

  const update = (changes: Record<string, string | number | null>, resetPage = true) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v === null || v === '') next.delete(k);
          else next.set(k, String(v));
        }
        if (resetPage) next.delete('page');
        return next;
      },
      { replace: true },
    );

  // Only the debounced text drives this effect; it reads the current URL when it runs.
  const syncQuery = useEffectEvent((q: string) => {
    if ((params.get('query') ?? '') !== q) update({ query: q });
  });
  useEffect(() => syncQuery(query), [query]);

  return { params, search, setSearch, query, page, pageSize, update };
}
