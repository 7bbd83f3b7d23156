import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorReplies } from './responses.js';

/** A file part of a multipart body, for the OpenAPI document. */
export const filePart = () => z.string().meta({ format: 'binary' });

/**
 * Multipart routes read their parts themselves (fields, then a streamed file), so fastify must not validate
 * a body. They declare the parts under `multipart` instead, and this transform documents them as the body.
 */
export const openApiTransform: typeof jsonSchemaTransform = (doc) => {
  const { multipart, tagged, bodies, ...schema } = (doc.schema ?? {}) as { multipart?: z.ZodType; tagged?: boolean; bodies?: Record<string, z.ZodType> } & Record<string, unknown>;
  // Every route answers the SPEC §8 errors alike: the document lists them wherever a route did not say so itself.
  schema.response = { ...errorReplies, ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
  const out = jsonSchemaTransform({ ...doc, schema } as typeof doc);
  if (tagged && out.schema) {
    const response = (out.schema as { response?: Record<string, unknown> }).response ?? {};
    response['304'] = { description: 'Not Modified (no body): the answer is still the one whose ETag the caller sent in If-None-Match. Every answer carries its ETag.' };
    (out.schema as Record<string, unknown>).response = response;
  }
  if (multipart && out.schema && !(out.schema as { hide?: boolean }).hide) {
    const body = z.toJSONSchema(multipart, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;
    delete body.$schema;
    (out.schema as Record<string, unknown>).body = body;
    (out.schema as Record<string, unknown>).consumes = ['multipart/form-data'];
  }
  if (bodies && out.schema) {
    const content = Object.fromEntries(
      Object.entries(bodies).map(([type, b]) => {
        const { $schema: _, ...json } = z.toJSONSchema(b, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;
        return [type, { schema: json }];
      }),
    );
    (out.schema as Record<string, unknown>).body = { content };
  }
  return out;
};

export const openApiTransformObject = jsonSchemaTransformObject;

declare module 'fastify' {
  interface FastifySchema {
    /** The parts of a multipart body (documentation only; the route parses them). */
    multipart?: unknown;
    /** A body the route reads itself, per content type (documentation only; see platform/gateway.ts). */
    bodies?: unknown;
    /** The route's answers carry an ETag and answer If-None-Match with 304 (documentation only; see visualization/routes.ts). */
    tagged?: boolean;
  }
}
