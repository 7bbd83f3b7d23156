import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import type { TraceCarrier } from './http/request-scope.js';

/** A W3C trace context as it travels in headers and job payloads: {traceparent, tracestate?}. */

const propagator = new W3CTraceContextPropagator();
const setter = { set: (carrier: TraceCarrier, key: string, value: string) => void (carrier[key] = value) };
const getter = {
  get: (headers: FastifyRequest['headers'], key: string) => headers[key],
  keys: (headers: FastifyRequest['headers']) => Object.keys(headers),
};

/**
 * OpenTelemetry traces of this server: one SERVER span per sampled request, whose context each job the request
 * creates carries to the engine (the engine's job span is its child). Used only when an exporter is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT, or a test's exporter); otherwise app.ts does not even load this module.
 */
export class Tracing {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly spans = new WeakMap<FastifyRequest, Span>();

  constructor(
    readonly ratio: number,
    exporter: SpanExporter,
    /** OTEL_SERVICE_NAME (config.otelServiceName). */
    serviceName: string,
    /** Tests export each span at its end; deployments batch. */
    immediate = false,
  ) {
    this.provider = new TracerProvider({
      // The root decision (the ratio) is made per request in startRequest, before any span exists, so a
      // sampled-out request costs one random draw; a span with a parent follows its parent's decision.
      sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      spanProcessors: [immediate ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
    });
    this.tracer = this.provider.getTracer('mitate-server');
  }

  /** From the settings: OTLP over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none (tracing off). */
  static fromConfig(config: Config, exporter?: SpanExporter): Tracing | null {
    if (exporter) return new Tracing(config.traceSample, exporter, config.otelServiceName, true);
    if (!config.otlpEndpoint) return null;
    return new Tracing(config.traceSample, new OTLPTraceExporter(), config.otelServiceName);
  }

  /**
   * Starts the request's span and answers the context its jobs carry. A request without a parent is sampled
   * here by one random draw: a sampled-out one gets no span object and nothing is exported.
   */
  startRequest(req: FastifyRequest): TraceCarrier | undefined {
    let parent: Context = ROOT_CONTEXT;
    if (req.headers.traceparent !== undefined) parent = propagator.extract(ROOT_CONTEXT, req.headers, getter);
    const hasParent = trace.getSpanContext(parent) !== undefined;
    if (!hasParent && !(Math.random() < this.ratio)) return undefined;
    const span = this.tracer.startSpan(
      `${req.method} ${req.routeOptions.url ?? 'unknown route'}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'mitate.request_id': req.id } },
      parent,
    );
    if (!span.isRecording()) return hasParent ? inject(trace.setSpan(ROOT_CONTEXT, span)) : undefined;
    if (req.routeOptions.url) span.setAttribute('http.route', req.routeOptions.url);
    this.spans.set(req, span);
    return inject(trace.setSpan(ROOT_CONTEXT, span));
  }

  endRequest(req: FastifyRequest, reply: FastifyReply): void {
    const span = this.spans.get(req);
    if (!span) return;
    this.spans.delete(req);
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  /** Ends the provider: spans still batched are sent. */
  async close(): Promise<void> {
    await this.provider.shutdown().catch(() => {});
  }

  /** Installs the request hooks; the request's scope gets its trace context through `startRequest`. */
  install(app: FastifyInstance): void {
    app.addHook('onResponse', (req, reply, done) => {
      this.endRequest(req, reply);
      done();
    });
    app.addHook('onClose', async () => this.close());
  }
}

function inject(ctx: Context): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagator.inject(ctx, carrier, setter);
  return carrier;
}
