import { currentLanguage } from '../i18n';
import i18n from '../i18n';
import { showMessage, showSnackbar, type Message } from '../lib/feedback';
import { currentLocation, navigateTo } from '../lib/navigation';
import { ApiError, describeError, isRecord } from './errors';
import { clearSession, getSession, sessionFromTokens, setSession, type Session, type TokenPair } from './session';

export { ApiError } from './errors';

/** Refresh the access token when fewer than this many ms remain (SPEC §7, §9: 300 s). */
export const REFRESH_MARGIN_MS = 300_000;
export const REFRESH_PATH = '/account/api/auth/refresh';

type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** JSON body */
  json?: unknown;
  /** any other body (FormData…) */
  body?: BodyInit;
  query?: Query;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** send the bearer, refresh it, handle 401 (default true) */
  auth?: boolean;
  /** do not open the message dialog; the caller shows the error itself */
  silent?: boolean;
}

/** The query string of a call: empty values kept, absent (null, undefined) ones left out. */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    params.append(k, String(v));
  }
  return params.toString();
}

export function buildUrl(path: string, query?: Query): string {
  if (!query) return path;
  const qs = queryString(query);
  if (!qs) return path;
  return path + (path.includes('?') ? '&' : '?') + qs;
}

/** Success bodies are `{detail: {response: X}}` (sometimes `{detail: X}`); callers get X. */
export function unwrap<T>(data: unknown): T {
  if (isRecord(data) && 'detail' in data) {
    const d = data.detail;
    if (isRecord(d) && 'response' in d) return d.response as T;
    return d as T;
  }
  return data as T;
}

export function baseHeaders(token: string | null): Record<string, string> {
  const h: Record<string, string> = { 'Accept-Language': currentLanguage(), Accept: 'application/json' };
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

// ---- token refresh (single flight) -------------------------------------------------------------

let inflight: Promise<Session> | null = null;

/** Refreshes the session; concurrent callers share one request. Refresh tokens rotate: the new pair is stored. */
export function refreshSession(): Promise<Session> {
  if (!inflight) {
    inflight = doRefresh().finally(() => {
      inflight = null;
    });
  }
  return inflight;
}

async function doRefresh(): Promise<Session> {
  const s = getSession();
  if (!s) throw new ApiError(401, null, true);
  let res: Response;
  try {
    res = await fetch(REFRESH_PATH, {
      method: 'POST',
      headers: { ...baseHeaders(null), 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: s.refresh_token }),
    });
  } catch {
    // No answer: keep the session (the server may be restarting) and say the service is busy.
    throw new ApiError(0, null);
  }
  if (!res.ok) throw new ApiError(res.status, await readBody(res), true);
  const next = sessionFromTokens(unwrap<TokenPair>(await res.json()));
  setSession(next);
  return next;
}

/** Signed out by the server (refresh refused, token rejected): clear the session and go to /login. */
function sessionExpired(): never {
  clearSession();
  if (!window.location.pathname.startsWith('/login')) {
    navigateTo('/login', { replace: true, state: { from: currentLocation() } });
  }
  throw new ApiError(401, null, true);
}

async function refreshOrExpire(opts: RequestOptions): Promise<Session> {
  try {
    return await refreshSession();
  } catch (e) {
    if (e instanceof ApiError && e.status !== 0) sessionExpired();
    if (!opts.silent) showMessage(describeError(0, null));
    throw e;
  }
}

/** The access token to send now: refreshed first when fewer than 300 s remain. */
export async function accessToken(opts: RequestOptions = {}): Promise<string | null> {
  const s = getSession();
  if (!s) return null;
  if (s.expires_at - Date.now() < REFRESH_MARGIN_MS) return (await refreshOrExpire(opts)).access_token;
  return s.access_token;
}

// ---- errors ---------------------------------------------------------------------------------------

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** SPEC §8: hide the loader (react-query does), show the message dialog, go home on 403. */
export function raise(status: number, body: unknown, opts: RequestOptions): never {
  const auth = opts.auth ?? true;
  if (status === 403 && auth) navigateTo('/', { replace: true });
  if (!opts.silent) showMessage(describeError(status, body));
  throw new ApiError(status, body);
}

/** Shows an error caught from a silent call (or anything unexpected) in the message dialog. */
export function reportError(err: unknown): void {
  if (err instanceof ApiError) {
    if (!err.silenced) showMessage(describeError(err.status, err.body));
    return;
  }
  if (err instanceof DOMException && err.name === 'AbortError') return;
  showMessage({ error: i18n.t('errors.unknown'), details: err instanceof Error ? err.message : undefined });
}

// ---- fetch ----------------------------------------------------------------------------------------

async function send(path: string, opts: RequestOptions, token: string | null): Promise<Response> {
  const headers = { ...baseHeaders(token), ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  try {
    return await fetch(buildUrl(path, opts.query), {
      method: opts.method ?? (body !== undefined ? 'POST' : 'GET'),
      headers,
      body,
      signal: opts.signal,
    });
  } catch (e) {
    if ((e as { name?: string })?.name === 'AbortError' || opts.signal?.aborted) throw new ApiError(0, null, true);
    if (!opts.silent) showMessage(describeError(0, null));
    throw new ApiError(0, null);
  }
}

/** A call with the bearer, refresh and SPEC §8 handling; resolves to the successful Response. */
export async function apiRequest(path: string, opts: RequestOptions = {}): Promise<Response> {
  const auth = opts.auth ?? true;
  const token = auth ? await accessToken(opts) : null;
  let res = await send(path, opts, token);
  if (res.status === 401 && auth) {
    const s = getSession();
    if (!s) sessionExpired();
    // Someone else may already have refreshed while this call was in flight: use their token.
    const retryToken = s.access_token !== token ? s.access_token : (await refreshOrExpire(opts)).access_token;
    res = await send(path, opts, retryToken);
    if (res.status === 401) sessionExpired();
  }
  // 304 answers a conditional call (If-None-Match): the caller still holds the answer (apiPostTagged).
  if (!res.ok && !(res.status === 304 && opts.headers?.['If-None-Match'])) raise(res.status, await readBody(res), opts);
  return res;
}

/** A JSON call; returns `detail.response`. */
export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await apiRequest(path, opts);
  if (res.status === 204) return undefined as T;
  const body = await readBody(res);
  return unwrap<T>(body);
}

export const apiGet = <T>(path: string, query?: Query, opts: RequestOptions = {}) => api<T>(path, { ...opts, query });
export const apiPost = <T>(path: string, json?: unknown, opts: RequestOptions = {}) =>
  api<T>(path, { ...opts, method: 'POST', json: json ?? {} });

/** File name from Content-Disposition (RFC 5987 `filename*` first). */
export function fileNameFrom(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*\s*=\s*([^']*)''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[2].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through */
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1].trim() : fallback;
}

/** Fetches a file with the bearer (GET, or POST with a JSON body) and returns it with its name. */
export async function apiBlob(path: string, fallbackName: string, opts: RequestOptions = {}): Promise<{ blob: Blob; fileName: string }> {
  const res = await apiRequest(path, opts);
  const blob = await res.blob();
  return { blob, fileName: fileNameFrom(res.headers.get('Content-Disposition'), fallbackName) };
}

// ---- account client (SPEC §8 'Account client') ------------------------------------------------------

/** Codes the account client never shows: the session ended (expired or revoked) or the account is not activated. */
export const ACCOUNT_SILENCED_CODES = new Set(['token_invalid', 'unauthenticated', 'account_not_activated']);

/**
 * What the account client shows for a failed call, or null when it stays silent:
 * the server's message (or error); 422 joins the list of errors; 'Request aborted', expired or revoked
 * tokens and not-activated accounts are silenced; anything else is 'Unknown error occured!'.
 */
export function accountErrorMessage(err: unknown): Message | null {
  if (err instanceof DOMException && err.name === 'AbortError') return null;
  if (!(err instanceof ApiError)) {
    if (err instanceof Error && err.message === 'Request aborted') return null;
    return { error: i18n.t('accountClient.unknown') };
  }
  if (err.silenced) return null;
  if (err.code && ACCOUNT_SILENCED_CODES.has(err.code)) return null;
  if (err.status === 401) return null;
  if (err.status === 422 && err.fieldErrors.length) {
    return { error: i18n.t('accountClient.invalid'), details: err.fieldErrors.map((f) => f.message) };
  }
  const server = err.serverMessage ?? err.code;
  if (server && err.status >= 400 && err.status < 500) return { error: server };
  return { error: i18n.t('accountClient.unknown') };
}

export interface AccountCallOptions extends RequestOptions {
  /** Show a success snackbar: the server's `message`, or this text. */
  success?: boolean | string;
}

/**
 * The account client's handling of a call made silent (SPEC §8 'Account client'): a success snackbar (the server's
 * `message`, or the given text) and its own messages for a failure (none with `silent`).
 */
export async function accountHandled<T>(call: () => Promise<T>, opts: Pick<AccountCallOptions, 'success' | 'silent'> = {}): Promise<T> {
  try {
    const result = await call();
    if (opts.success) {
      const msg = typeof opts.success === 'string' ? opts.success : isRecord(result) && typeof result.message === 'string' ? result.message : null;
      if (msg) showSnackbar(msg, 'success');
    }
    return result;
  } catch (err) {
    if (!opts.silent) {
      const m = accountErrorMessage(err);
      if (m) showMessage(m);
    }
    throw err;
  }
}

/** A call of the account client (/account/api): the main client's refresh and queue, its own messages. */
export function accountCall(path: string, opts: AccountCallOptions = {}): Promise<unknown> {
  const { success, silent, ...rest } = opts;
  return accountHandled(() => api<unknown>(path, { ...rest, silent: true }), { success, silent });
}

/** An answer as the caller keeps it: the value made of it and the entity tag (ETag) it came with. */
export interface Tagged<V> {
  value: V;
  etag: string | null;
}

/**
 * A POST for an answer the caller may hold already (`held`, as an earlier call returned it): sends its tag
 * (If-None-Match). On 304 the server has checked the caller's access and found the same answer, so the held value
 * is returned and no body is read or parsed; else `read` makes the value of the new answer, kept with its tag.
 */
export async function apiPostTagged<T, V>(path: string, json: unknown, read: (answer: T) => V, held?: Tagged<V>, opts: RequestOptions = {}): Promise<Tagged<V>> {
  const headers = held?.etag ? { ...opts.headers, 'If-None-Match': held.etag } : opts.headers;
  const res = await apiRequest(path, { ...opts, method: 'POST', json: json ?? {}, headers });
  if (res.status === 304 && held) return held;
  return { value: read(unwrap<T>(await readBody(res))), etag: res.headers.get('ETag') };
}
