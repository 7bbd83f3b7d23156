import { Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, ScrollRestoration, useMatches } from 'react-router';
import PageLoading from '../components/PageLoading';
import { formatTitle, usePageTitleOverride, type RouteHandle } from './pageTitle';

/** The top route: keeps the document title '<page> | Mitate' in step with the route (SPEC §2). */
export default function Root() {
  const { t } = useTranslation();
  const matches = useMatches();
  const override = usePageTitleOverride();
  const handleTitle = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.title)?.handle as
    | RouteHandle
    | undefined;
  const title = override ?? (handleTitle?.title ? t(handleTitle.title) : '');
  useEffect(() => {
    document.title = formatTitle(title);
  }, [title]);
  return (
    <>
      <Suspense fallback={<PageLoading />}>
        <Outlet />
      </Suspense>
      <ScrollRestoration />
    </>
  );
}
