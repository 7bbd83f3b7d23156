import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyAccess } from '../../auth/tokens.js';

/**
 * Prometheus metrics at GET /metrics (text exposition format 0.0.4): requests and their latencies by route,
 * the job queue (waiting, running, workers), jobs finished by kind and state with their durations.
 * Protected: a bearer equal to MITATE_METRICS_TOKEN (for the scraper), or a platform administrator's token.
 */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 14_400];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}
const newHistogram = (n: number): Histogram => ({ counts: new Array(n).fill(0), sum: 0, count: 0 });
function observe(h: Histogram, buckets: number[], v: number) {
  for (let i = 0; i < buckets.length; i++) if (v <= buckets[i]) h.counts[i]++;
  h.sum += v;
  h.count++;
}
const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (o: Record<string, string>) => `{${Object.entries(o).map(([k, v]) => `${k}="${esc(v)}"`).join(',')}}`;

function histogramLines(name: string, buckets: number[], series: Map<string, { labels: Record<string, string>; h: Histogram }>): string[] {
  const out: string[] = [];
  for (const { labels: l, h } of series.values()) {
    buckets.forEach((b, i) => out.push(`${name}_bucket${labels({ ...l, le: String(b) })} ${h.counts[i]}`));
    out.push(`${name}_bucket${labels({ ...l, le: '+Inf' })} ${h.count}`);
    out.push(`${name}_sum${labels(l)} ${h.sum}`);
    out.push(`${name}_count${labels(l)} ${h.count}`);
  }
  return out;
}

export function installMetrics(app: FastifyInstance): void {
  const requests = new Map<string, { labels: Record<string, string>; n: number }>();
  const latency = new Map<string, { labels: Record<string, string>; h: Histogram }>();
  const started = Date.now();
  const { account } = app.services;

  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    if (route === '/metrics') return;
    const l = { method: req.method, route, status: String(reply.statusCode) };
    const key = `${l.method} ${l.route} ${l.status}`;
    const r = requests.get(key) ?? { labels: l, n: 0 };
    r.n++;
    requests.set(key, r);
    const lk = `${l.method} ${l.route}`;
    const h = latency.get(lk) ?? { labels: { method: l.method, route }, h: newHistogram(BUCKETS.length) };
    observe(h.h, BUCKETS, reply.elapsedTime / 1000);
    latency.set(lk, h);
  });

  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const { ctx } = app;
    const h = req.headers.authorization;
    const token = h?.startsWith('Bearer ') ? h.slice(7) : '';
    const expected = ctx.config.metricsToken;
    let allowed = !!expected && token.length === expected.length && crypto.timingSafeEqual(Buffer.from(token), Buffer.from(expected));
    if (!allowed && token) {
      const claims = verifyAccess(ctx.secret, token);
      if (claims) {
        const user = await account.users.byId(claims.sub);
        allowed = !!user && user.status === 'active' && (await app.services.installation.isAdmin({ userId: user.id, email: user.email }));
      }
    }
    if (!allowed) {
      reply.header('www-authenticate', 'Bearer');
      return reply.code(401).type('text/plain; charset=utf-8').send('unauthorised\n');
    }
    const lines: string[] = [];
    lines.push('# HELP mitate_http_requests_total HTTP requests answered, by method, route and status.', '# TYPE mitate_http_requests_total counter');
    for (const r of requests.values()) lines.push(`mitate_http_requests_total${labels(r.labels)} ${r.n}`);
    lines.push('# HELP mitate_http_request_duration_seconds Time to answer, by method and route.', '# TYPE mitate_http_request_duration_seconds histogram');
    lines.push(...histogramLines('mitate_http_request_duration_seconds', BUCKETS, latency));
    const status = await ctx.jobs.status();
    lines.push('# HELP mitate_queue_jobs Jobs waiting and running in the queue.', '# TYPE mitate_queue_jobs gauge');
    lines.push(`mitate_queue_jobs${labels({ state: 'waiting' })} ${status.queued}`, `mitate_queue_jobs${labels({ state: 'running' })} ${status.busy}`);
    lines.push('# HELP mitate_workers Engine workers connected (local pool or BullMQ).', '# TYPE mitate_workers gauge', `mitate_workers ${status.workers}`);
    lines.push('# HELP mitate_workers_running 1 while the worker pool takes jobs.', '# TYPE mitate_workers_running gauge', `mitate_workers_running ${status.running ? 1 : 0}`);
    // jobs finished in the last 24 hours, from the jobs table (every server of a deployment agrees)
    const since = new Date(Date.now() - 24 * 3600_000).toISOString();
    const rows = await ctx.jobs.finishedSince(since);
    const finished = new Map<string, { labels: Record<string, string>; n: number }>();
    const durations = new Map<string, { labels: Record<string, string>; h: Histogram }>();
    for (const r of rows) {
      const k = `${r.kind} ${r.state}`;
      const f = finished.get(k) ?? { labels: { kind: r.kind, state: r.state }, n: 0 };
      f.n++;
      finished.set(k, f);
      if (r.started_at && r.finished_at && r.state === 'succeeded') {
        const d = durations.get(r.kind) ?? { labels: { kind: r.kind }, h: newHistogram(JOB_BUCKETS.length) };
        observe(d.h, JOB_BUCKETS, Math.max(0, (Date.parse(r.finished_at) - Date.parse(r.started_at)) / 1000));
        durations.set(r.kind, d);
      }
    }
    lines.push('# HELP mitate_jobs_finished_24h Jobs finished in the last 24 hours, by kind and state.', '# TYPE mitate_jobs_finished_24h gauge');
    for (const f of finished.values()) lines.push(`mitate_jobs_finished_24h${labels(f.labels)} ${f.n}`);
    lines.push('# HELP mitate_job_duration_seconds_24h Run time of jobs that succeeded in the last 24 hours, by kind.', '# TYPE mitate_job_duration_seconds_24h histogram');
    lines.push(...histogramLines('mitate_job_duration_seconds_24h', JOB_BUCKETS, durations));
    const mem = process.memoryUsage();
    lines.push('# TYPE mitate_process_resident_memory_bytes gauge', `mitate_process_resident_memory_bytes ${mem.rss}`);
    lines.push('# TYPE mitate_process_uptime_seconds gauge', `mitate_process_uptime_seconds ${(Date.now() - started) / 1000}`);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(lines.join('\n') + '\n');
  });
}
