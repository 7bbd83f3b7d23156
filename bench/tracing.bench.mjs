// Tracing's cost on the serving route (issue 16): server CPU per request of POST /serve/{key}/predict (an unknown
// key, so the answer is the route's own early 401/404 and the hooks are most of the work) on three servers in
// alternating rounds: tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT), tracing on with every request sampled out
// (MITATE_TRACE_SAMPLE=0), and tracing on with every request sampled (MITATE_TRACE_SAMPLE=1, spans sent over
// OTLP/HTTP to a stand-in collector here). CPU time, not wall time, so other processes' load does not count.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { startServer, writeResult } from './lib.mjs';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 2 : 4;
const REQUESTS = QUICK ? 1000 : 3000;
const CONCURRENCY = 8;

let exported = 0;
const collector = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    if (req.url === '/v1/traces') exported++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise((r) => collector.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${collector.address().port}`;

/** User + system CPU of one process so far, in ms (USER_HZ 100). */
function cpuMs(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10;
}

const cases = {
  off: await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }),
  sampled_out: await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, MITATE_TRACE_SAMPLE: '0' }),
  sampled: await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, MITATE_TRACE_SAMPLE: '1' }),
};

async function burst(url, n) {
  let next = 0;
  const statuses = new Map();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) {
        const res = await fetch(`${url}/serve/no-such-key/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"rows":[{"x":1}]}' });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return Object.fromEntries(statuses);
}

const load = [os.loadavg()[0]];
const perRequest = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const statuses = {};
try {
  for (const s of Object.values(cases)) await burst(s.url, 300); // warm-up: code paths compiled, connections open
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, s] of Object.entries(cases)) {
      const before = cpuMs(s.pid);
      statuses[name] = await burst(s.url, REQUESTS);
      perRequest[name].push((cpuMs(s.pid) - before) / REQUESTS);
    }
  }
} finally {
  load.push(os.loadavg()[0]);
  for (const s of Object.values(cases)) await s.stop();
  collector.close();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms) => Math.round(ms * 1000);
writeResult('tracing', {
  what: 'server CPU per request of POST /serve/{unknown key}/predict, microseconds (median of rounds; every round listed)',
  requests_per_round: REQUESTS,
  concurrency: CONCURRENCY,
  cpu_us_per_request: Object.fromEntries(Object.entries(perRequest).map(([k, v]) => [k, { median: us(median(v)), rounds: v.map(us) }])),
  sampled_out_vs_off: Math.round((median(perRequest.sampled_out) / median(perRequest.off)) * 1000) / 1000,
  sampled_vs_off: Math.round((median(perRequest.sampled) / median(perRequest.off)) * 1000) / 1000,
  statuses,
  otlp_exports_received: exported,
  load_avg_1m: { before: load[0], after: load[1] },
});
