import { useEffect } from 'react';
import { createStore, useStore } from '../lib/store';

export const PRODUCT_NAME = 'Mitate';

/** Data a route may carry in its `handle`. */
export interface RouteHandle {
  /** i18n key of the page title ('<page> | Mitate') */
  title?: string;
}

const override = createStore<string | null>(null);

/** A page with a better title than its route's (e.g. the dataset's name) sets it here. */
export function usePageTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (!title) return undefined;
    override.set(title);
    return () => override.set(null);
  }, [title]);
}

export const usePageTitleOverride = () => useStore(override);

export const formatTitle = (page: string) => (page ? `${page} | ${PRODUCT_NAME}` : PRODUCT_NAME);
