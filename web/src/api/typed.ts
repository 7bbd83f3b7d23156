/**
 * The client typed from the OpenAPI document (schema.d.ts, made by `npm run -w server openapi`): path, parameters,
 * body and answer all come from the server's declarations, none is chosen by hand.
 *
 *   answer(http.GET('/api/dataset/{id}/{min_schema}', { params: { path: { id, min_schema: 'false' } }, ...per({ signal }) }))
 *
 * openapi-fetch builds the call; `forward` hands it to apiRequest (client.ts), so every typed call has the same bearer,
 * refresh, 401 retry, SPEC §8 message dialog and i18n of errors as the rest of the app. `answer` unwraps the
 * `{detail: {response: X}}` envelope, as the type does.
 */
import createClient from 'openapi-fetch';
import { accountHandled, apiRequest, queryString, unwrap, type AccountCallOptions, type RequestOptions } from './client';
import type { paths } from './schema';

type Method = NonNullable<RequestOptions['method']>;
const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const isMethod = (m: string): m is Method => (METHODS as readonly string[]).includes(m);

/** openapi-fetch builds a Request, which needs an absolute URL: the app's own origin (jsdom's in tests). */
const origin = window.location.origin;

/** Sends openapi-fetch's request through apiRequest, with the call's own options (signal, silent, auth). */
async function forward(req: Request, opts: RequestOptions): Promise<Response> {
  const url = new URL(req.url);
  const method = req.method.toUpperCase();
  if (!isMethod(method)) throw new TypeError(`unsupported method ${req.method}`);
  const headers = { ...Object.fromEntries(req.headers), ...opts.headers };
  let body: string | undefined = req.body === null ? undefined : await req.text();
  // A POST, PUT or PATCH without a body sends `{}`, as apiPost always did (routes with an all-optional body read it).
  if (body === undefined && method !== 'GET' && method !== 'DELETE') {
    body = '{}';
    headers['content-type'] = 'application/json';
  }
  const path = url.origin === origin ? url.pathname + url.search : url.href;
  return apiRequest(path, { ...opts, method, body, headers });
}

/** The typed client; each method takes the path as declared, `{ params: { path, query }, body }` and per-call options. */
export const http = createClient<paths>({
  baseUrl: origin,
  fetch: (req) => forward(req, {}),
  // The query written as every other call writes it (URLSearchParams: a space is '+', a list 'a,b').
  querySerializer: (query) => queryString(query),
});

/**
 * Per-call options of a typed call (abort signal, silent, no bearer): spread into its init. The signal is kept out of
 * openapi-fetch's Request (jsdom's AbortSignal is not the one Node's Request accepts) and given to fetch itself.
 */
export const per = (opts: RequestOptions) => ({ fetch: (req: Request) => forward(req, opts) });

/** The answer a call's `detail.response` (or `detail`) holds, as the server declares it. */
export type Unwrapped<D> = D extends { detail: { response: infer T } } ? T : D extends { detail: infer T } ? T : D;

/** Awaits a typed call and returns its answer (what `detail.response` holds); failures were thrown by apiRequest. */
export async function answer<D>(call: Promise<{ data?: D }>): Promise<Unwrapped<D>> {
  const { data } = await call;
  return unwrap<Unwrapped<D>>(data);
}

/**
 * A typed call of the account client (/account/api): made silent, then the account client's snackbar and messages
 * (client.ts accountHandled). `accountAnswer((o) => http.GET('/account/api/profile', o), { silent: true })`.
 */
export function accountAnswer<D>(call: (init: ReturnType<typeof per>) => Promise<{ data?: D }>, opts: Pick<AccountCallOptions, 'success' | 'silent'> = {}): Promise<Unwrapped<D>> {
  return accountHandled(() => answer(call(per({ silent: true }))), opts);
}

/** The paths that take a POST. */
export type PostPath = { [P in keyof paths]: paths[P] extends { post: object } ? P : never }[keyof paths];
/** The `{name}` parameters of a path template. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? Record<N, string> & PathParams<Rest> : unknown;
/** A declared path with its parameters filled in (encoded), for the calls openapi-fetch does not make (uploads with
 * progress, conditional POSTs): `fillPath('/api/x/{id}', { id })`. */
export function fillPath<P extends string>(path: P, params: PathParams<P>): string {
  const values: Record<string, unknown> = Object(params);
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
}
