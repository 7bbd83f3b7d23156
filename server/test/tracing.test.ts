import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { until } from './until.js';
import { diagnosticsJob } from '../src/jobs/diagnostics.js';

/**
 * Issue 16: one trace from the request to the engine. The server records spans with an in-memory exporter; the
 * engine worker it starts exports over OTLP/HTTP to a collector stand-in started here, and logs its span's ids.
 */

type Rec = Record<string, unknown>;

/** A test app whose POST /test/job creates a diagnostics job inside the request, as the feature routes do. */
async function tracedApp(traceSample: number, lines: Rec[], exporter?: InMemorySpanExporter): Promise<TestApp> {
  const t = await makeTestApp('sqlite', {
    logger: true,
    logStream: { write: (line: string) => void lines.push(JSON.parse(line)) },
    traceExporter: exporter,
    config: { traceSample, ...(exporter ? {} : { otlpEndpoint: undefined }) },
  });
  t.app.post('/test/job', async (req) => {
    const body = req.body as { mode: string };
    const job = await t.app.ctx.jobs.create({ orgId: 'org-t', userId: null, kind: diagnosticsJob, spec: { mode: body.mode, seconds: 0.1 } });
    return { id: job.id };
  });
  return t;
}

async function runJob(t: TestApp, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'POST', url: '/test/job', payload: { mode: 'sleep' }, headers });
  expect(res.statusCode).toBe(200);
  const id = (res.json() as { id: string }).id;
  await t.app.ctx.jobs.waitFor(id, 120_000);
  const row = await t.app.ctx.db.selectFrom('jobs').select(['request_id', 'trace_json']).where('id', '=', id).executeTakeFirstOrThrow();
  return { id, res, row, trace: row.trace_json ? (JSON.parse(row.trace_json) as Record<string, string>) : null };
}

const engineRecord = (lines: Rec[], id: string) => lines.find((l) => l.job_id === id && l.source === 'engine' && l.msg === 'engine: job succeeded');

describe('traces from request to engine', () => {
  const collected: Buffer[] = [];
  let collector: http.Server;
  const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, delay: process.env.OTEL_BSP_SCHEDULE_DELAY };
  const sampledLines: Rec[] = [];
  const offLines: Rec[] = [];
  const exporter = new InMemorySpanExporter();
  const unsampledExporter = new InMemorySpanExporter();
  const unsampledLines: Rec[] = [];
  let sampled: TestApp;
  let unsampled: TestApp;
  let off: TestApp;

  beforeAll(async () => {
    // The engine workers inherit these: they export to this collector stand-in, every 100 ms.
    collector = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        if (req.url === '/v1/traces') collected.push(Buffer.concat(parts));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    sampled = await tracedApp(1, sampledLines, exporter);
    unsampled = await tracedApp(0, unsampledLines, unsampledExporter);
    // Tracing off in the server (no exporter, no endpoint): jobs carry no trace context at all.
    off = await tracedApp(1, offLines);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([sampled?.close(), unsampled?.close(), off?.close()]);
    collector?.close();
    for (const [k, v] of [['OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint], ['OTEL_BSP_SCHEDULE_DELAY', saved.delay]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('a sampled request: its span is the parent of the engine job span, one trace id throughout', async () => {
    const { id, trace } = await runJob(sampled, { 'x-request-id': 'trace-req-1' });
    const span = await until('the request span', () => exporter.getFinishedSpans().find((s) => s.attributes['mitate.request_id'] === 'trace-req-1'));
    expect(span.name).toBe('POST /test/job');
    expect(span.attributes['http.response.status_code']).toBe(200);
    const { traceId, spanId } = span.spanContext();
    expect(trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    // The engine's record of the job names the same trace, and a span of its own.
    const rec = await until('the engine record', () => engineRecord(sampledLines, id));
    expect(rec).toMatchObject({ trace_id: traceId, request_id: 'trace-req-1', kind: 'diagnostics', attempt: 1 });
    expect(rec.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(rec.span_id).not.toBe(spanId);
    // ... and exported it over OTLP/HTTP: the protobuf carries the trace id, the engine span id and its parent (ours).
    const bytes = (hex: string) => Buffer.from(hex, 'hex');
    const batch = await until('the engine span at the collector', () => collected.find((b) => b.includes(bytes(String(rec.span_id)))));
    expect(batch.includes(bytes(traceId))).toBe(true);
    expect(batch.includes(bytes(spanId))).toBe(true);
    expect(batch.includes(Buffer.from('job diagnostics'))).toBe(true);
  }, 180_000);

  it('a caller-sent traceparent is the parent; a sampled-out caller is followed too', async () => {
    const parentTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { trace } = await runJob(unsampled, { traceparent: `00-${parentTrace}-00f067aa0ba902b7-01` });
    // The server's ratio is 0, but the caller sampled this trace: parent-based sampling records it.
    const span = await until('the child span', () => unsampledExporter.getFinishedSpans().find((s) => s.spanContext().traceId === parentTrace));
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(trace?.traceparent).toBe(`00-${parentTrace}-${span.spanContext().spanId}-01`);

    const before = exporter.getFinishedSpans().length;
    const notSampled = await runJob(sampled, { traceparent: `00-${parentTrace.replace('4', '5')}-00f067aa0ba902b7-00` });
    expect(notSampled.trace?.traceparent).toMatch(/-00$/);
    const rec = await until('the engine record', () => engineRecord(sampledLines, notSampled.id));
    expect(rec.trace_id).toBeUndefined();
    expect(exporter.getFinishedSpans().slice(before).some((s) => s.spanContext().traceId === parentTrace.replace('4', '5'))).toBe(false);
  }, 180_000);

  it('a sampled-out request makes no spans, in the server or the engine', async () => {
    const { id, trace, row } = await runJob(unsampled, { 'x-request-id': 'trace-req-0' });
    expect(row.request_id).toBe('trace-req-0');
    // The job says "not sampled", so the engine, parent-based, records nothing.
    expect(trace?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const rec = await until('the engine record', () => engineRecord(unsampledLines, id));
    expect(rec).toMatchObject({ request_id: 'trace-req-0' });
    expect(rec.trace_id).toBeUndefined();
    expect(rec.span_id).toBeUndefined();
    expect(unsampledExporter.getFinishedSpans().some((s) => s.attributes['mitate.request_id'] === 'trace-req-0')).toBe(false);
    // Requests without a job are not recorded either.
    await unsampled.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(unsampledExporter.getFinishedSpans().every((s) => s.spanContext().traceId === '4bf92f3577b34da6a3ce929d0e0e4736')).toBe(true);
  }, 180_000);

  it('tracing off: the request id still follows the job, no trace context does', async () => {
    const { id, trace, row } = await runJob(off, { 'x-request-id': 'trace-off-1' });
    expect(row.request_id).toBe('trace-off-1');
    expect(trace).toBeNull();
    const rec = await until('the engine record', () => engineRecord(offLines, id));
    expect(rec.request_id).toBe('trace-off-1');

    // Over a real socket, with the body arriving after the headers: the handler runs from a later socket read,
    // yet the job still gets the request's id.
    await off.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = off.app.server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/test/job', headers: { 'content-type': 'application/json', 'x-request-id': 'trace-off-2' } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => req.end('{"mode": "sleep"}'), 200);
    });
    const late = JSON.parse(answer) as { id: string };
    const lateRow = await off.app.ctx.db.selectFrom('jobs').select('request_id').where('id', '=', late.id).executeTakeFirstOrThrow();
    expect(lateRow.request_id).toBe('trace-off-2');
  }, 180_000);
});
