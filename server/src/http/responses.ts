import { serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * The response side of the API contract (SPEC §7, §8): the success envelope, the error shapes, and the
 * serializer that checks every answer against its route's schema. Each route lists its answers with
 * `replies({200: Schema})` (or `fileReplies(...)` for downloads); the OpenAPI document and the web app's
 * generated types come from these declarations.
 */

/** Success: `{detail: {response: T}}`. */
export const envelope = <T extends z.ZodType>(response: T) => z.object({ detail: z.object({ response }) });

/** 400, 401, 403, 404, 409, 413, 429: a message in the caller's language and a stable code. */
export const ErrorBody = z
  .object({ detail: z.object({ response: z.string(), error: z.string().describe('A stable code for clients, e.g. not_found') }) })
  .meta({ id: 'Error' });

/** 422: one entry per invalid field. */
export const ValidationErrorBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])).describe('Where: ["body" | "querystring" | "params", field, ...]'),
        msg: z.string(),
        type: z.string(),
      }),
    ),
  })
  .meta({ id: 'ValidationError' });

/** Every route may answer these (SPEC §8); 404 also stands for another organisation's id. */
export const errorReplies = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  422: ValidationErrorBody,
  429: ErrorBody,
} as const;

type Enveloped<T extends Record<number, z.ZodType>> = { [K in keyof T]: T[K] extends z.ZodType ? z.ZodObject<{ detail: z.ZodObject<{ response: T[K] }> }> : never };

/** A route's answers: each success schema wrapped in the envelope, plus the error shapes. */
export function replies<T extends Record<number, z.ZodType>>(success: T): Enveloped<T> & typeof errorReplies {
  const wrapped = Object.fromEntries(Object.entries(success).map(([code, s]) => [code, envelope(s as z.ZodType)])) as Enveloped<T>;
  return { ...wrapped, ...errorReplies };
}

/** A download: the body is a file of the given type, not JSON. */
export function fileReplies(contentType: string, description: string) {
  return {
    // z.any: the handler sends a stream or a string, which fastify passes through unserialised.
    200: { description, content: { [contentType]: { schema: z.any().meta({ type: 'string', format: 'binary' }) } } },
    ...errorReplies,
  };
}

/** A message in the caller's language, for calls whose whole answer is that message. */
export const MessageView = z.object({ message: z.string() }).meta({ id: 'Message' });
/** A removed thing's id. */
export const IdView = z.object({ id: z.string() }).meta({ id: 'Deleted' });
export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number().int() });

/** A value stored as text in the database but always one of `values`: documented (and checked) as that enum. */
// Typed as a string on the server side, where the database row's column is a string.
export const storedEnum = <const V extends readonly [string, ...string[]]>(values: V) => z.enum(values) as unknown as z.ZodString;

type SerializerArgs = Parameters<typeof serializerCompiler>[0];

/**
 * The zod serializer silently drops keys a schema does not declare. With `strict` (tests, the Schemathesis
 * run) an answer that loses a key is an error instead, so an incomplete schema cannot hide.
 */
export function responseSerializer(strict: boolean) {
  return (args: SerializerArgs) => {
    const checked = serializerCompiler(args);
    const serialize = strict
      ? (data: unknown) => {
          const out = checked(data);
          const lost = droppedKey(JSON.parse(JSON.stringify(data) ?? 'null'), JSON.parse(out), '');
          if (lost !== null) throw new Error(`Response of ${args.method} ${args.url} loses "${lost}": its response schema does not declare it`);
          return out;
        }
      : checked;
    // A frozen answer (a kept result, never changed: see the exploration cache) is checked and written once per
    // route; asking the same question again sends the same text (a 10,000-cell grid: ~10 ms less each time).
    const written = new WeakMap<object, string>();
    return (data: unknown) => {
      const inner = frozenResponse(data);
      const hit = inner && written.get(inner);
      if (hit) return `${ENVELOPE_HEAD}${hit}}}`;
      const out = serialize(data);
      if (inner && out.startsWith(ENVELOPE_HEAD) && out.endsWith('}}')) written.set(inner, out.slice(ENVELOPE_HEAD.length, -2));
      return out;
    };
  };
}

const ENVELOPE_HEAD = '{"detail":{"response":';

/** `response` of an envelope `{detail: {response}}` (nothing else in it) when that object is frozen. */
function frozenResponse(data: unknown): object | null {
  if (!data || typeof data !== 'object' || Object.keys(data).length !== 1) return null;
  const detail = (data as { detail?: unknown }).detail;
  if (!detail || typeof detail !== 'object' || Object.keys(detail).length !== 1) return null;
  const response = (detail as { response?: unknown }).response;
  return response && typeof response === 'object' && Object.isFrozen(response) ? response : null;
}

function droppedKey(input: unknown, output: unknown, at: string): string | null {
  if (Array.isArray(input) && Array.isArray(output)) {
    for (let i = 0; i < input.length; i++) {
      const lost = droppedKey(input[i], output[i], `${at}[${i}]`);
      if (lost !== null) return lost;
    }
    return null;
  }
  if (input && output && typeof input === 'object' && typeof output === 'object') {
    for (const [k, v] of Object.entries(input)) {
      if (!(k in output)) return `${at}.${k}`;
      const lost = droppedKey(v, (output as Record<string, unknown>)[k], `${at}.${k}`);
      if (lost !== null) return lost;
    }
  }
  return null;
}
