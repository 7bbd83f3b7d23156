import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { langOf, localize, type Message } from '../i18n/messages.js';

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

  /** A stable code for clients: the catalogue key, or the English text of an area's own message. */
  get code(): string {
    return typeof this.key === 'string' ? this.key : 'error';
  }
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
      const where = (err as any).validationContext ?? 'body';
      return reply.code(422).send({
        detail: err.validation.map((v) => ({
          loc: [where, ...v.instancePath.split('/').filter(Boolean)],
          msg: v.message ?? 'Invalid value',
          type: 'value_error',
        })),
      });
    }
    // A malformed multipart body (no boundary, cut short) is the caller's fault, not ours.
    if (!(err as FastifyError).statusCode && /^(Multipart: |Malformed part header|Unexpected end of form|Part terminated early)/.test(err.message)) {
      return reply.code(400).send({ detail: { response: localize(lang, 'bad_request'), error: 'bad_request' } });
    }
    const status = (err as FastifyError).statusCode ?? 500;
    if (status === 413 || (err as FastifyError).code === 'FST_REQ_FILE_TOO_LARGE') {
      const size = (req.server as any).config?.maxUploadMb ?? 0;
      const msg = localize(lang, 'file_too_large', { size: `${size} MB` });
      return reply.code(413).send({ detail: { response: msg, error: 'file_too_large' } });
    }
    if (status >= 400 && status < 500) {
      const msg = status === 404 ? localize(lang, 'not_found') : (err.message || localize(lang, 'bad_request'));
      return reply.code(status).send({ detail: { response: msg, error: (err as FastifyError).code ?? 'bad_request' } });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ detail: { response: localize(lang, 'server_error'), error: 'server_error' } });
  });
}

/** Unknown API paths get the 404 message; with a built web app, other GETs get index.html (the client shows Not Found). */
export function installNotFound(app: FastifyInstance, spa: boolean): void {
  app.setNotFoundHandler((req, reply) => {
    const api = req.url.startsWith('/api') || req.url.startsWith('/account/api');
    if (spa && req.method === 'GET' && !api) return reply.type('text/html').sendFile('index.html');
    const lang = langOf(req.headers['accept-language']);
    return reply.code(404).send({ detail: { response: localize(lang, 'not_found'), error: 'not_found' } });
  });
}

export const ok = <T>(response: T) => ({ detail: { response } });
