// Issue 31 §4: the cost of drift sampling on tabular serving. Two servers host the same linear model (CCPP): one with
// sampling off (MITATE_DRIFT_SAMPLE_CAP=0), one with the defaults (a reservoir of 200 rows per project and 5 s flush,
// automatic checks after 1,000 new rows). Single-row JSON predictions at concurrency 8, off and on alternating in
// rounds (the machine's load changes by the second); goal: throughput with sampling at most 5 % below without.
// `--quick`: 8 rounds of 1.5 s per server instead of 30 of 2 s. Also the cost of one `offer` call in this process
// (the only work sampling adds to a request), which the machine's load does not blur. Uses bench/platform_client.mjs as the load generator.
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { cpuMs, percentile, ROOT, startServer, writeResult, apiCall as call, accountToken as account, CCPP_CSV as CCPP, trainCcpp, verifyIdentity } from './lib.mjs';
import { DriftSampler } from '../server/src/features/platform/drift/sampler.ts';

/** ns per `offer` of a one-row request, the sampler's reservoir full (the steady state of a busy API). */
function offerCost() {
  const written = new Map();
  const sampler = new DriftSampler({ insertSamples: async () => written }, { sampleCap: 200, flushMs: 3_600_000, keepRows: 5000, keepDays: 30 }, () => {});
  const rows = Array.from({ length: 1000 }, (_, i) => [{ AT: i, V: 40.77, AP: 1010.84, RH: 90.01 }]);
  const N = 2_000_000;
  for (let i = 0; i < 100_000; i++) sampler.offer('org', 'project', rows[i % 1000]);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sampler.offer('org', 'project', rows[i % 1000]);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  void sampler.close();
  return Math.round(ns * 10) / 10;
}

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 8 : 30;
const SECONDS = QUICK ? 1.5 : 2;
const CONCURRENCY = 8;
const ROWS = CCPP.trim().split('\n').slice(1, 2001).map((l) => l.split(',').map(Number));

/** A running hosted API of a linear CCPP model on `server`: its URL, key and project id. */
async function hostLinear(server, admin) {
  const token = await account(server.url, `bench.${Date.now()}.${Math.random().toString(36).slice(2)}@example.com`);
  const adminToken = await account(server.url, admin);
  const { pid, models } = await trainCcpp(server.url, token, [{ algorithm: 'linear' }]);
  await verifyIdentity(server.url, token, adminToken);
  const m = models.find((x) => x.state === 'done');
  const p = await call(server.url, 'POST', '/api/platform/projects', token, { name: 'linear', key: 'bench-drift', project_id: pid, model_key: m.model_key, content_language: 'en-gb' });
  await call(server.url, 'POST', `/api/platform/projects/${p.id}/submit`, token);
  await call(server.url, 'POST', `/api/platform/admin/projects/${p.id}/review`, adminToken, { decision: 'approve' });
  await call(server.url, 'POST', `/api/platform/projects/${p.id}/start`, token);
  const { secret } = await call(server.url, 'POST', `/api/platform/projects/${p.id}/credentials`, token, { name: 'bench' });
  return { token, id: p.id, url: `${server.url}/serve/bench-drift/predict`, secret };
}

const client = fork(path.join(ROOT, 'bench', 'platform_client.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
let asked = 0;
function run(target, { seconds, count }) {
  const id = ++asked;
  return new Promise((resolve) => {
    const on = (m) => m.id === id && (client.off('message', on), resolve(m));
    client.on('message', on);
    client.send({ id, ...target, concurrency: CONCURRENCY, seconds, count });
  });
}

const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;
const ADMIN = `bench.admin.${Date.now()}@example.com`;
const common = { MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '2', MITATE_WORKERS: '1', MITATE_SERVE_IP_RPS: '1000000', MITATE_SERVE_KEY_RPS: '1000000' };
const servers = { off: await startServer({ ...common, MITATE_DRIFT_SAMPLE_CAP: '0' }), on: await startServer(common) };
let result = null;
try {
  const apis = { off: await hostLinear(servers.off, ADMIN), on: await hostLinear(servers.on, ADMIN) };
  // Each request one real row of CCPP, cycling (the same bodies for both servers).
  const bodies = ROWS.map(([AT, V, AP, RH]) => JSON.stringify({ rows: [{ AT, V, AP, RH }] }));
  const target = (k, i) => ({ url: apis[k].url, headers: { 'x-api-key': apis[k].secret, 'content-type': 'application/json' }, body: bodies[i % bodies.length] });
  // warm-up: until both answer in-process (the serving plan is fetched after a model's first request)
  for (const k of ['off', 'on'])
    for (const until = performance.now() + 120_000; performance.now() < until; ) if ((await run(target(k, 0), { count: 40 })).servedBy['in-process'] === 40) break;
  // sampling alone is measured; a drift check's own cost is measured after the rounds (it runs at most once an hour)
  await call(servers.on.url, 'PUT', `/api/platform/projects/${apis.on.id}/drift/settings`, apis.on.token, { auto_every: 0 });
  const got = { off: { lat: [], errors: 0, cpu: 0, rps: [] }, on: { lat: [], errors: 0, cpu: 0, rps: [] } };
  const loadBefore = load1();
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of r % 2 ? ['on', 'off'] : ['off', 'on']) {
      const c0 = cpuMs(servers[k].pid);
      const x = await run(target(k, r), { seconds: SECONDS });
      got[k].cpu += cpuMs(servers[k].pid) - c0;
      got[k].lat.push(...x.lat);
      got[k].errors += x.errors;
      got[k].rps.push(x.lat.length / SECONDS);
      console.log(`round ${r + 1} ${k}: ${(x.lat.length / SECONDS).toFixed(0)} req/s`);
    }
  }
  const r2 = (v) => Math.round(v * 100) / 100;
  const r4 = (v) => Math.round(v * 10000) / 10000;
  const summary = (g) => ({
    requests: g.lat.length,
    errors: g.errors,
    rps: r2(g.lat.length / (ROUNDS * SECONDS)),
    rps_per_round: g.rps.map(r2),
    p50_ms: r2(percentile(g.lat, 50)),
    p99_ms: r2(percentile(g.lat, 99)),
    server_cpu_ms_per_request: r4(g.cpu / Math.max(1, g.lat.length)),
  });
  const off = summary(got.off);
  const on = summary(got.on);
  const ratios = got.on.rps.map((v, i) => v / got.off.rps[i]).sort((a, b) => a - b);
  // one drift check over the sampled window, with nothing else running: the server family's CPU while it runs
  const c0 = cpuMs(servers.on.pid);
  const t0 = performance.now();
  let drift = await call(servers.on.url, 'POST', `/api/platform/projects/${apis.on.id}/drift/check`, apis.on.token);
  while (drift.running) {
    await new Promise((r) => setTimeout(r, 200));
    drift = await call(servers.on.url, 'GET', `/api/platform/projects/${apis.on.id}/drift`, apis.on.token);
  }
  const check = { rows: drift.latest.rows, state: drift.latest.state, seconds: r2((performance.now() - t0) / 1000), server_cpu_ms: cpuMs(servers.on.pid) - c0 };
  const driftOff = await call(servers.off.url, 'GET', `/api/platform/projects/${apis.off.id}/drift`, apis.off.token);
  result = {
    quick: QUICK,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    seconds_per_round: SECONDS,
    load_average_1min: { before: loadBefore, after: load1() },
    sampling_off: off,
    sampling_on: on,
    throughput_overhead_percent: r2((1 - on.rps / off.rps) * 100),
    throughput_overhead_percent_median_round: r2((1 - ratios[Math.floor(ratios.length / 2)]) * 100),
    offer_ns_per_request: offerCost(),
    cpu_overhead_percent: r2((on.server_cpu_ms_per_request / off.server_cpu_ms_per_request - 1) * 100),
    sampled_rows_kept: drift.sampled_rows,
    check,
    check_cpu_share_of_one_core_at_default_rate_percent: r4((check.server_cpu_ms / 3_600_000) * 100),
    sampled_rows_kept_when_off: driftOff.sampled_rows,
    goal: 'throughput with drift sampling at most 5 % below the same server without it, at concurrency 8',
    note: 'Two servers on the same 2 cores, one measured at a time, off and on alternating per round (the order swapped every round). Single-row JSON predictions of a linear CCPP model answered in-process (serving plan). Sampling on: the defaults (reservoir of 200 rows per project per 5 s flush, written in one transaction; automatic checks turned off during the rounds); then one drift check of the sampled window is run alone (check: its time and the server family\'s CPU, the job worker included). At the defaults a check runs at most once an hour, so its cost is given as a share of one core over that hour. throughput_overhead_percent compares all requests; the median of the per-round ratios (off and on measured seconds apart) is less sensitive to the machine\'s load, which other engineers share. offer_ns_per_request: the sampler\'s cost per one-row request measured in this process (2 million calls, reservoir full), against server_cpu_ms_per_request without sampling.',
  };
} finally {
  client.disconnect();
  for (const s of Object.values(servers)) await s.stop();
}
if (result) writeResult('drift-overhead', result);
