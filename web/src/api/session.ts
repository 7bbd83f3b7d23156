import { createStore, useStore } from '../lib/store';

/** The sign-in kept in localStorage under `mitate.session` (SPEC §3 Session). */
export interface Session {
  access_token: string;
  refresh_token: string;
  /** epoch milliseconds */
  expires_at: number;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  /** seconds */
  expires_in: number;
}

export const SESSION_KEY = 'mitate.session';

function read(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (typeof s.access_token !== 'string' || typeof s.refresh_token !== 'string' || typeof s.expires_at !== 'number') {
      return null;
    }
    return s as Session;
  } catch {
    return null;
  }
}

const store = createStore<Session | null>(read());

export const getSession = (): Session | null => store.get();

export function setSession(session: Session | null): void {
  try {
    if (session) localStorage.setItem(SESSION_KEY, JSON.stringify(session));
    else localStorage.removeItem(SESSION_KEY);
  } catch {
    /* storage may be full or blocked; the in-memory session still works for this tab */
  }
  store.set(session);
}

export const clearSession = () => setSession(null);

export function sessionFromTokens(tokens: TokenPair, now = Date.now()): Session {
  return {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: now + tokens.expires_in * 1000,
  };
}

/** Re-reads localStorage (another tab signed in or out, or a test changed it). */
export function reloadSession(): void {
  store.set(read());
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    if (e.key === SESSION_KEY || e.key === null) reloadSession();
  });
}

export const useSignedIn = () => useStore(store) !== null;
