import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifySchemaCompiler } from 'fastify';
import { hasZodFastifySchemaValidationErrors, validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { langOf, localize, type Message, type MessageKey } from '../i18n/messages.js';
import { securityHeaders } from './security-headers.js';

/** An error the user caused; the handler turns it into SPEC §8's shapes in the caller's language. */
export class AppError extends Error {
  constructor(
    public status: number,
    public key: Message,
    public params: Record<string, string | number> = {},
    public field?: string,
  ) {
    super(typeof key === 'string' ? key : key.en);
  }

  /** A stable code for clients: the catalogue key, or the code an area's own message declares. */
  get code(): string {
    return typeof this.key === 'string' ? this.key : (this.key.code ?? 'error');
  }
}

/**
 * A request-schema check (zod refine / addIssue) whose message comes from a catalogue: pass the result as the
 * issue's `params` (with `message: text.en` for the document); the error handler says it in the caller's language.
 */
export function localIssue(text: Message, values: Record<string, string | number> = {}) {
  return { localText: text, localValues: values };
}

/** English catalogue texts a schema uses as its own message (see said()), back to the catalogue entry. */
const catalogued = new Map<string, Message>();

/**
 * A schema's own fixed message taken from a catalogue, e.g. `.min(1, said('required'))`: zod keeps the English text,
 * and the error handler says it in the caller's language. For a message with values, use localIssue() in a refine.
 */
export function said(text: Message): string {
  const en = localize('en', text);
  catalogued.set(en, text);
  return en;
}

const jaLocale = z.locales.ja().localeError;

/** One refused part of a request as the validator reports it (fastify-type-provider-zod's shape, plus our `messageJa`). */
interface RequestIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
  messageJa?: string;
}

/**
 * The validator compiler: fastify-type-provider-zod's, and when a request is refused, the same check once more with
 * zod's Japanese locale so the handler can answer a Japanese caller in Japanese (only refusals pay for the second run).
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const check = zodValidatorCompiler(route);
  const schema = route.schema;
  return (data) => {
    const result = check(data);
    if (typeof result === 'object' && 'error' in result && Array.isArray(result.error) && schema instanceof z.ZodType) withJapanese(result.error as RequestIssue[], schema, data);
    return result;
  };
};

function withJapanese(issues: RequestIssue[], schema: z.ZodType, data: unknown): void {
  const ja = z.safeParse(schema, data, { error: jaLocale });
  if (ja.success) return;
  issues.forEach((v, i) => {
    const j = ja.error.issues[i];
    if (j && j.code === v.keyword && `/${j.path.join('/')}` === v.instancePath) v.messageJa = j.message;
  });
}

/**
 * A part of a request read by hand (the fields of a multipart form, or one JSON field of it) checked by its schema: the refusal is thrown as
 * a request-schema error, answered by the error handler like any other (422, in the caller's language).
 */
export function parseField<T extends z.ZodType>(schema: T, value: unknown, field?: string): z.infer<T> {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const ja = z.safeParse(schema, value, { error: jaLocale });
  const at = field ? [field] : [];
  const err = new Error(`${field ?? 'body'} refused`) as Error & { statusCode: number; validation: unknown[]; validationContext: string };
  err.statusCode = 422;
  err.validationContext = 'body';
  err.validation = parsed.error.issues.map((i, n) => {
    const j = ja.success ? undefined : ja.error.issues[n];
    const { path, code, message, ...rest } = i;
    return {
      [Symbol.for('ZodFastifySchemaValidationError')]: true,
      keyword: code,
      instancePath: `/${[...at, ...path.map(String)].join('/')}`,
      schemaPath: `#/${[...at, ...path.map(String)].join('/')}/${code}`,
      message,
      params: rest,
      messageJa: j && j.code === code ? j.message : undefined,
    };
  });
  throw err;
}

/** A refused part in the caller's language: a catalogue text where the schema gave one, else zod's own words. */
function issueMessage(lang: 'en' | 'ja', v: RequestIssue): string {
  const p = v.params?.params as { localText?: Message; localValues?: Record<string, string | number> } | undefined;
  if (p?.localText) return localize(lang, p.localText, p.localValues ?? {});
  const own = v.message !== undefined ? catalogued.get(v.message) : undefined;
  if (own) return localize(lang, own);
  if (lang === 'ja' && v.messageJa) return v.messageJa;
  return v.message ?? localize(lang, 'bad_request');
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply) => {
    const lang = langOf(req.headers['accept-language']);
    if (err instanceof AppError) {
      const msg = localize(lang, err.key, err.params);
      if (err.status === 422) {
        return reply.code(422).send({ detail: [{ loc: ['body', err.field ?? ''], msg, type: err.code }] });
      }
      return reply.code(err.status).send({ detail: { response: msg, error: err.code } });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = (err as { validationContext?: string }).validationContext ?? 'body';
      return reply.code(422).send({
        detail: err.validation.map((v) => ({
          loc: [where, ...v.instancePath.split('/').filter(Boolean)],
          msg: issueMessage(lang, v as RequestIssue),
          type: 'value_error',
        })),
      });
    }
    // A malformed multipart body (no boundary, cut short) is the caller's fault, not ours.
    if (!(err as FastifyError).statusCode && /^(Multipart: |Malformed part header|Unexpected end of form|Part terminated early)/.test(err.message)) {
      return reply.code(400).send({ detail: { response: localize(lang, 'bad_request'), error: 'bad_request' } });
    }
    const status = (err as FastifyError).statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const f = frameworkError(err as FastifyError, req.server.config?.maxUploadMb ?? 0);
      return reply.code(f.status).send({ detail: { response: localize(lang, f.key, f.params), error: f.key } });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ detail: { response: localize(lang, 'server_error'), error: 'server_error' } });
  });
}

/** Unknown API paths get the 404 message; with a built web app, other GETs get index.html (the client shows Not Found). */
export function installNotFound(app: FastifyInstance, spa: boolean): void {
  app.setNotFoundHandler((req, reply) => {
    const api = req.url.startsWith('/api') || req.url.startsWith('/account/api');
    if (spa && req.method === 'GET' && !api) return reply.type('text/html').header('Cache-Control', 'no-cache').sendFile('index.html');
    const lang = langOf(req.headers['accept-language']);
    return reply.code(404).send({ detail: { response: localize(lang, 'not_found'), error: 'not_found' } });
  });
}

export const ok = <T>(response: T) => ({ detail: { response } });

/** The JSON body limit (Fastify bodyLimit); uploads have their own, MITATE_MAX_UPLOAD_MB. */
export const JSON_BODY_LIMIT_MB = 10;
/** Longest path part (an id, a search text) the router accepts; longer ones answer 414. */
export const MAX_PARAM_LENGTH = 256;

const BY_STATUS: Record<number, MessageKey> = {
  404: 'not_found',
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/** Fastify's and its plugins' own errors in our words: the status, a catalogue key (also the stable code) and its values. */
export function frameworkError(err: Partial<FastifyError>, maxUploadMb: number): { status: number; key: MessageKey; params: Record<string, string | number> } {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, key: 'json_too_large', params: { size: `${JSON_BODY_LIMIT_MB} MB` } };
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, key: 'file_too_large', params: { size: `${maxUploadMb} MB` } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, key: 'invalid_json', params: {} };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, key: 'empty_json', params: {} };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 415, key: 'unsupported_media_type', params: {} };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, key: 'uri_too_long', params: { max: MAX_PARAM_LENGTH } };
    case 'FST_ERR_BAD_URL':
      return { status: 400, key: 'bad_url', params: {} };
  }
  const key = BY_STATUS[status] ?? 'bad_request';
  return { status, key, params: key === 'uri_too_long' ? { max: MAX_PARAM_LENGTH } : {} };
}

/** Fastify's frameworkErrors option: errors raised before routing (bad URL encoding, a path part too long). */
export function onFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const f = frameworkError(err, req.server.config?.maxUploadMb ?? 0);
  const lang = langOf(req.headers['accept-language']);
  void reply.code(f.status).headers(securityHeaders()).send({ detail: { response: localize(lang, f.key, f.params), error: f.key } });
}

/** Requests Node itself cannot parse (no route, no language known): our envelope, in English. */
export function onClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const key = BY_STATUS[status] ?? 'bad_request';
  const body = JSON.stringify({ detail: { response: localize('en', key), error: key } });
  const headers = Object.entries({ ...securityHeaders(), 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n${headers}\r\n\r\n${body}`);
}
