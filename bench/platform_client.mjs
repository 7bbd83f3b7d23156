// The load generator of platform.bench.mjs, in its own process so its CPU is its own (measured and reported) and its
// garbage collection and event loop do not share a thread with the bench's bookkeeping. node:http with a keep-alive
// agent (one socket per caller): much less CPU per request than fetch, the same client for Mitate and the peer.
// Messages from the parent: {id, url, headers, body, concurrency, seconds | count}; the answer: {id, lat, errors,
// cpu_ms, servedBy, t0, t1} (t0/t1: CLOCK_MONOTONIC ns as strings, to match the server's CPU profile samples).
import http from 'node:http';

const agents = new Map();
function agentOf(url, concurrency) {
  const k = `${new URL(url).host} ${concurrency}`;
  if (!agents.has(k)) agents.set(k, new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency }));
  return agents.get(k);
}

function once(url, agent, headers, body, servedBy) {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const how = /desc="([^"]+)"/.exec(res.headers['server-timing'] ?? '')?.[1];
      if (how) servedBy[how] = (servedBy[how] ?? 0) + 1;
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

process.on('message', async (m) => {
  const agent = agentOf(m.url, m.concurrency);
  const lat = [];
  const servedBy = {};
  let errors = 0;
  let left = m.count ?? Infinity;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const end = performance.now() + (m.seconds ?? 0) * 1000;
  await Promise.all(
    Array.from({ length: m.concurrency }, async () => {
      while (m.count !== undefined ? left-- > 0 : performance.now() < end) {
        const s = performance.now();
        if (!(await once(m.url, agent, m.headers, m.body, servedBy))) errors++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const t1 = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  process.send({ id: m.id, lat, errors, servedBy, cpu_ms: (cpu.user + cpu.system) / 1000, t0: String(t0), t1: String(t1) });
});
process.on('disconnect', () => process.exit(0));
