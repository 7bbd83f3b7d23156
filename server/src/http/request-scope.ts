import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A W3C trace context as it travels in headers and job payloads: {traceparent, tracestate?}. */
export type TraceCarrier = Record<string, string>;

/** What a request hands to the work it starts (a job carries both to the engine and its logs). */
export interface RequestScope {
  requestId: string;
  /** W3C trace context of the request's span (traceparent, tracestate); unset while tracing is off. */
  trace?: TraceCarrier;
  /** Tracing is on but this request was not sampled: its jobs say so, and the engine records nothing either. */
  sampledOut?: boolean;
}

/** The trace context a job carries: its request's, or "not sampled" for a sampled-out request; none outside requests. */
export function traceOf(scope: RequestScope | undefined): TraceCarrier | undefined {
  if (scope?.trace) return scope.trace;
  if (scope?.sampledOut) return { traceparent: `00-${crypto.randomBytes(16).toString('hex')}-${crypto.randomBytes(8).toString('hex')}-00` };
  return undefined;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The scope of the request whose code is running now, if any (a job created by it inherits its ids). */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

/** Runs `fn` inside a request's scope: what it creates carries that request's ids (tests of other front ends). */
export function withRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * Makes the request's scope current for its hooks and handler (a body that arrives after the headers included:
 * test/tracing.test.ts sends one over a real socket).
 */
export function installRequestScope(app: FastifyInstance, scopeOf: (req: FastifyRequest) => RequestScope): void {
  app.addHook('onRequest', (req, _reply, done) => storage.run(scopeOf(req), done));
}
