import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSignedIn } from '../api/session';
import type { NavigateState } from '../lib/navigation';

/** SPEC §2: every page but /login and not-found needs sign-in; remember where the user wanted to go. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const signedIn = useSignedIn();
  const location = useLocation();
  if (!signedIn) {
    const state: NavigateState = { from: location.pathname + location.search + location.hash };
    return <Navigate to="/login" replace state={state} />;
  }
  return <>{children}</>;
}

/** Signed-in users visiting /login (or /register) go to / — or back to where they were headed. */
export function GuestOnly({ children }: { children: ReactNode }) {
  const signedIn = useSignedIn();
  const location = useLocation();
  if (signedIn) {
    const from = (location.state as NavigateState | null)?.from;
    const safe = from && from.startsWith('/') && !from.startsWith('//') && !from.startsWith('/login') ? from : '/';
    return <Navigate to={safe} replace />;
  }
  return <>{children}</>;
}
