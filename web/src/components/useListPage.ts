import { useEffect, useEffectEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDebounced } from '../lib/useDebounced';
import { PAGE_SIZES, type SortDirection } from './ListTable';

interface Options<S extends string> {
  pageSizes?: readonly number[];
  defaultPageSize?: number;
  /** The orders the server knows (`<field>_<asc|desc>`) and the one it takes by default, for a list sorted there. */
  sorts?: readonly S[];
  defaultSort?: S;
}

/**
 * A server-paged list page's state kept in the URL (so a reload or a shared link shows the same page): `page` (1-based
 * in the URL, 0-based here), `page_size` (one of `pageSizes`), the search text (debounced into `query`), the order
 * and the page's own filters. `params` is what the list's endpoint takes; `update` changes keys and goes back to the
 * first page unless told not to.
 */
export function useListPage<S extends string = never>({ pageSizes = PAGE_SIZES, defaultPageSize = 20, sorts, defaultSort }: Options<S> = {}) {
  const [url, setUrl] = useSearchParams();
  const [search, setSearch] = useState(url.get('query') ?? '');
  const query = useDebounced(search.trim(), 400);
  const page = Math.max(0, Number(url.get('page') ?? 1) - 1) || 0;
  const pageSize = pageSizes.includes(Number(url.get('page_size'))) ? Number(url.get('page_size')) : defaultPageSize;
  const sort = sorts?.find((s) => s === url.get('sort')) ?? defaultSort;

  const update = (changes: Record<string, string | number | null>, resetPage = true) =>
    setUrl(
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
    if ((url.get('query') ?? '') !== q) update({ query: q });
  });
  useEffect(() => syncQuery(query), [query]);

  const order = sort ? /^(.*)_(asc|desc)$/.exec(sort) : null;
  return {
    search,
    setSearch,
    page,
    pageSize,
    pageSizes,
    /** The page, its size and the search as the list endpoints take them. */
    params: { query, page: page + 1, page_size: pageSize },
    sort,
    /** Sorted by the server (the columns' order is the URL's), or not sortable but in the browser. */
    sorted: sorts !== undefined,
    /** The order as the table shows it, and its change (back to the default order on null). */
    order: order ? { field: order[1], direction: order[2] as SortDirection } : null,
    setOrder: (o: { field: string; direction: SortDirection } | null) => update({ sort: o ? `${o.field}_${o.direction}` : (defaultSort ?? null) }),
    /** A filter's value, '' when absent or not one of `values` (a hand-edited address is left out of the call). */
    filter: <V extends string>(key: string, values: readonly V[]): V | '' => values.find((v) => v === url.get(key)) ?? '',
    setFilter: (key: string, value: string) => update({ [key]: value }),
    setPage: (page: number, pageSize: number) => update({ page: page + 1, page_size: pageSize }, false),
  };
}

/** What the list page reads of it (not the order's own type, which is the page's). */
export type ListPageState = Pick<ReturnType<typeof useListPage>, 'search' | 'setSearch' | 'page' | 'pageSize' | 'pageSizes' | 'sorted' | 'order' | 'setOrder' | 'setPage'>;
