import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { useSignedIn } from '../api/session';
import { setNavigator } from '../lib/navigation';
import GlobalProgress from './GlobalProgress';
import MessageDialog from './MessageDialog';
import { createQueryClient } from './queryClient';
import { routes } from './routes';
import SnackbarHost from './SnackbarHost';
import { createAppTheme } from './theme';

/** Drops every cached answer when the user signs out, so the next user never sees them. */
function ForgetOnSignOut({ client }: { client: QueryClient }) {
  const signedIn = useSignedIn();
  useEffect(() => {
    if (!signedIn) client.clear();
  }, [signedIn, client]);
  return null;
}

export function AppProviders({ children, queryClient }: { children: ReactNode; queryClient: QueryClient }) {
  const { i18n } = useTranslation();
  const lang = i18n.language === 'ja' ? 'ja' : 'en';
  const theme = useMemo(() => createAppTheme(lang), [lang]);
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider theme={theme} defaultMode="light">
        <CssBaseline />
        <ForgetOnSignOut client={queryClient} />
        <GlobalProgress />
        {children}
        <MessageDialog />
        <SnackbarHost />
      </ThemeProvider>
    </QueryClientProvider>
  );
}

export default function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(() => createBrowserRouter(routes));
  useEffect(() => {
    setNavigator((to, options) => void router.navigate(to, options));
  }, [router]);
  return (
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
