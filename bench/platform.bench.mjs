// Hosted model APIs (issue 13): single-row predictions through POST /serve/{key}/predict with a LightGBM and a
// linear model, p50/p99 latency and requests per second at concurrency 1 and 8 on loopback, beside the same
// model served by a one-worker FastAPI + uvicorn server in the same run. `--quick` measures 3 s per case;
// `--profile` runs the server under node --cpu-prof and writes where its time went per request (server_profile).
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, percentile, PYTHON, ROOT, startServer, writeResult, apiCall as call, accountToken as account, trainCcpp, verifyIdentity } from './lib.mjs';

const QUICK = process.argv.includes('--quick');
const SECONDS = QUICK ? 3 : 10;
const ADMIN = `bench.admin.${Date.now()}@example.com`;
const ROW = { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] };

const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;

/** CPU time (user + system, ms) of a process and its descendants: the cost of a request, whatever the load. */
function cpuMs(rootPid) {
  const stat = (pid) => {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on
      return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
    } catch {
      return null;
    }
  };
  const all = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => [Number(d), stat(d)]).filter(([, s]) => s);
  const family = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of all) if (!family.has(pid) && family.has(s.ppid)) family.add(pid), (grew = true);
  }
  const hz = 100; // USER_HZ on Linux
  return all.filter(([pid]) => family.has(pid)).reduce((a, [, s]) => a + s.ticks, 0) * (1000 / hz);
}

// The load generator runs in its own process (platform_client.mjs): its CPU is measured apart from the servers'.
const client = fork(path.join(ROOT, 'bench', 'platform_client.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
let asked = 0;
/** `concurrency` callers in a loop for `seconds` (or `count` requests in all) in the client process. */
function run(target, concurrency, { seconds, count }) {
  const id = ++asked;
  return new Promise((resolve) => {
    const on = (m) => m.id === id && (client.off('message', on), resolve(m));
    client.on('message', on);
    client.send({ id, ...target, concurrency, seconds, count });
  });
}
/** CLOCK_MONOTONIC windows (ns) in which Mitate was measured: the server's CPU profile is read in these only. */
const windows = [];

/** Mitate and the peer measured in alternating rounds (the machine's load changes by the second), SECONDS each in
 * all; the load average (1 min) is recorded before and after. */
async function compare(targets, concurrency, pids, { warm } = {}) {
  for (const t of Object.values(targets)) await run(t, concurrency, { count: 50 }); // warm-up: models loaded, connections open
  // with in-process plans on, measuring starts once the server answers in-process (the plan is fetched and checked
  // after the model's first request, which under load can take a serving process some seconds)
  if (warm) for (const until = performance.now() + 120_000; performance.now() < until; ) if ((await run(targets.mitate, 1, { count: 20 })).servedBy[warm] === 20) break;
  const ROUNDS = 4;
  const got = Object.fromEntries(Object.keys(targets).map((k) => [k, { lat: [], errors: 0, client_cpu_ms: 0, servedBy: {} }]));
  const loadBefore = load1();
  const cpu = Object.fromEntries(Object.keys(targets).map((k) => [k, 0]));
  const idle = Object.fromEntries(Object.keys(targets).map((k) => [k, 0])); // CPU ms while the other one is measured
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, target] of Object.entries(targets)) {
      const c0 = Object.fromEntries(Object.keys(targets).map((j) => [j, cpuMs(pids[j])]));
      const x = await run(target, concurrency, { seconds: SECONDS / ROUNDS });
      for (const j of Object.keys(targets)) (j === k ? cpu : idle)[j] += cpuMs(pids[j]) - c0[j];
      if (k === 'mitate') windows.push([BigInt(x.t0), BigInt(x.t1)]);
      got[k].lat.push(...x.lat);
      got[k].errors += x.errors;
      got[k].client_cpu_ms += x.cpu_ms;
      for (const [how, n] of Object.entries(x.servedBy)) got[k].servedBy[how] = (got[k].servedBy[how] ?? 0) + n;
    }
  }
  const r2 = (v) => Math.round(v * 100) / 100;
  const out = Object.fromEntries(
    Object.entries(got).map(([k, { lat, errors, client_cpu_ms }]) => [
      k,
      {
        requests: lat.length,
        errors,
        rps: r2(lat.length / SECONDS),
        p50_ms: r2(percentile(lat, 50)),
        p99_ms: r2(percentile(lat, 99)),
        p999_ms: r2(percentile(lat, 99.9)),
        max_ms: r2(Math.max(...lat)),
        server_cpu_ms_per_request: r2(cpu[k] / Math.max(1, lat.length)),
        server_idle_cpu_ms_per_s: r2(idle[k] / (SECONDS * (Object.keys(targets).length - 1))),
        client_cpu_ms_per_request: r2(client_cpu_ms / Math.max(1, lat.length)),
      },
    ]),
  );
  return { ...out, load_average_1min: { before: loadBefore, after: load1() }, mitate_answered_by: got.mitate.servedBy };
}

/** Where the server's time went while Mitate was measured, from its V8 CPU profile (`--profile`): each sample is
 * put in the first step its stack shows (leaf first), the steps' milliseconds divided by the requests measured. */
const STEPS = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['socket write (kernel, loopback TCP)', (f) => /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(f.functionName)],
  ['prediction (in-process serving plan)', (f) => f.url.endsWith('platform/plan.ts')],
  ['request statistics (record)', (f) => f.url.endsWith('platform/stats.ts') || f.url.endsWith('platform/useragent.ts')],
  ['key check (hash, compare)', (f) => /internal\/crypto\/hash|timingSafeEqual/.test(f.url + f.functionName)],
  ['database (cache refresh, statistics flush)', (f) => /better-sqlite3|kysely|node_modules\/pg/.test(f.url)],
  ['serving handler (gateway.ts)', (f) => f.url.endsWith('platform/gateway.ts')],
  ['security headers (helmet)', (f) => /node_modules\/(@fastify\/)?helmet\//.test(f.url)],
  ['compression hooks', (f) => f.url.includes('@fastify/compress')],
  ['request logging (pino)', (f) => f.url.includes('node_modules/pino')],
  ['metrics and audit hooks', (f) => /features\/audit\//.test(f.url)],
  ['error localisation hook', (f) => f.url.endsWith('i18n/engine-errors.ts')],
  ['body parsing (JSON)', (f) => /secure-json-parse|content-type-parser/.test(f.url)],
  ['params validation (zod)', (f) => /node_modules\/zod|fastify-type-provider-zod|fastify\/lib\/validation/.test(f.url)],
  ['routing (find-my-way)', (f) => f.url.includes('find-my-way')],
  ['response serialisation', (f) => /fast-json-stringify|JSONStringify|stringify/.test(f.url + ' ' + f.functionName)],
  ['request id and headers hook', (f) => f.url.endsWith('src/app.ts')],
  ['fastify request pipeline', (f) => f.url.includes('node_modules/fastify/') || f.url.includes('avvio')],
  ['node http (parse, write, sockets)', (f) => /^node:(_http|net|internal\/streams|internal\/stream_base|events|internal\/process\/task_queues)/.test(f.url)],
];
function profileSteps(file, requests) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ms = {};
  let t = BigInt(p.startTime) * 1000n; // µs -> ns (CLOCK_MONOTONIC, as the client's windows)
  let busy = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += BigInt(p.timeDeltas[i]) * 1000n;
    if (!windows.some(([a, b]) => t >= a && t <= b)) continue;
    const leaf = nodes.get(p.samples[i]).callFrame;
    if (leaf.functionName === '(idle)') continue;
    const d = (p.timeDeltas[i + 1] ?? p.timeDeltas[i]) / 1000;
    busy += d;
    let step = 'other';
    for (let id = p.samples[i]; id !== undefined && step === 'other'; id = parent.get(id)) step = STEPS.find(([, test]) => test(nodes.get(id).callFrame))?.[0] ?? 'other';
    ms[step] = (ms[step] ?? 0) + d;
  }
  const per = (v) => Math.round((v / Math.max(1, requests)) * 1000) / 1000;
  return {
    requests,
    busy_ms_per_request: per(busy),
    steps_ms_per_request: Object.fromEntries(Object.entries(ms).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)])),
  };
}

const PROFILE = process.argv.includes('--profile');
const profileDir = PROFILE ? fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-platform-prof-')) : null;
if (PROFILE) process.env.BENCH_SERVER_NODE_ARGS = `${process.env.BENCH_SERVER_NODE_ARGS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`;
const startLoad = os.loadavg().map((v) => Math.round(v * 100) / 100);
const IN_PROCESS = process.env.MITATE_SERVE_IN_PROCESS !== '0';
// One client on loopback sends thousands of calls a second, far above the per-address and per-key limits made for
// the open internet: they are raised so the limiter runs (and its cost is measured) but never refuses.
const server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '2', MITATE_WORKERS: '1', MITATE_SERVE_IP_RPS: '1000000', MITATE_SERVE_KEY_RPS: '1000000' });
const peers = [];
let result = null;
try {
  const token = await account(server.url, `bench.${Date.now()}@example.com`);
  const admin = await account(server.url, ADMIN);
  const { pid, models } = await trainCcpp(server.url, token, [{ algorithm: 'lightgbm' }, { algorithm: 'linear' }]);
  await verifyIdentity(server.url, token, admin);

  const cases = {};
  for (const algorithm of ['lightgbm', 'linear']) {
    const m = models.find((x) => x.algorithm === algorithm && x.state === 'done');
    const p = await call(server.url, 'POST', '/api/platform/projects', token, { name: algorithm, key: `bench-${algorithm}`, project_id: pid, model_key: m.model_key, content_language: 'en-gb' });
    await call(server.url, 'POST', `/api/platform/projects/${p.id}/submit`, token);
    await call(server.url, 'POST', `/api/platform/admin/projects/${p.id}/review`, admin, { decision: 'approve' });
    await call(server.url, 'POST', `/api/platform/projects/${p.id}/start`, token);
    const { secret } = await call(server.url, 'POST', `/api/platform/projects/${p.id}/credentials`, token, { name: 'bench' });
    const folder = path.join(server.dataDir, 'files', `org`);
    const modelDir = fs.readdirSync(folder).map((o) => path.join(folder, o, 'platform', p.id, 'model')).find((d) => fs.existsSync(d));
    const port = await freePort();
    const peer = spawn(PYTHON, [path.join(ROOT, 'bench', 'platform_peer.py'), modelDir, String(port)], { cwd: path.join(ROOT, 'engine'), env: { ...process.env, PYTHONPATH: path.join(ROOT, 'engine') }, stdio: ['ignore', 'ignore', 'inherit'] });
    peers.push(peer);
    const peerUrl = `http://127.0.0.1:${port}/predict`;
    // A loaded machine can take a minute to import FastAPI, pandas and scikit-learn.
    for (let i = 0; i < 720; i++) {
      try {
        if ((await fetch(peerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ROW) })).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 250));
    }
    const body = JSON.stringify(ROW);
    const targets = {
      mitate: { url: `${server.url}/serve/bench-${algorithm}/predict`, headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body },
      fastapi_uvicorn_1_worker: { url: peerUrl, headers: { 'content-type': 'application/json' }, body },
    };
    cases[algorithm] = {};
    for (const c of [1, 8]) {
      // how each answer was made: Server-Timing says in-process serving plan or a Python serving process
      const got = await compare(targets, c, { mitate: server.pid, fastapi_uvicorn_1_worker: peer.pid }, { warm: IN_PROCESS ? 'in-process' : null });
      cases[algorithm][`c${c}`] = got;
      console.log(algorithm, `c=${c}`, JSON.stringify(got));
    }
    peer.kill('SIGTERM');
  }
  result = {
    quick: QUICK,
    in_process_plans: IN_PROCESS,
    load_average_at_start: startLoad,
    load_average_at_end: os.loadavg().map((v) => Math.round(v * 100) / 100),
    seconds_per_case: SECONDS,
    note: 'Single-row JSON predictions on loopback; the load generator (bench/platform_client.mjs: node:http, keep-alive, one socket per caller) runs in its own process on the same 2 cores (client_cpu_ms_per_request: its CPU per request). Mitate: Fastify; JSON rows of models with a checked serving plan (LightGBM, linear, logistic) evaluated in the server process (server/src/features/platform/plan.ts; MITATE_SERVE_IN_PROCESS=0 turns it off), everything else by 2 persistent Python serving processes (requests for the same model batched while a process is busy, never waiting when one is idle), each model compiled at load into an array predictor (engine/mitate_engine/platform/fast.py); peer: FastAPI + uvicorn, 1 worker, the same frozen model through the same engine prediction code (so the peer gains the compiled predictor too). Mitate and the peer alternate in 4 rounds per case. The machine is shared by other engineers\' builds and tests: see load_average_1min per case (2 cores). server_cpu_ms_per_request: CPU time of the server and its child processes (serving processes, job worker) or of the peer process per request (server_idle_cpu_ms_per_s: the same family\'s CPU per second while the other one is measured), which the machine\'s load does not inflate the way it inflates latency; mitate_answered_by counts the Server-Timing answers.',
    goal: 'at least the peer throughput, p99 < 10 ms at concurrency 8',
    cases,
  };
} finally {
  // the server's own word on its serving processes and plans (a plan that did not check out says so)
  for (const line of server.log().split('\n')) if (/serving plan|serving process/.test(line)) console.error(line.slice(0, 400));
  for (const p of peers) p.kill('SIGTERM');
  client.disconnect();
  await server.stop(); // the CPU profile is written as the server exits
}
if (result) {
  if (PROFILE) {
    // the main thread's profile (tsx's loader thread writes one too): the biggest file
    const file = fs.readdirSync(profileDir).map((f) => path.join(profileDir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
    const requests = Object.values(result.cases).reduce((a, c) => a + Object.values(c).reduce((b, x) => b + x.mitate.requests, 0), 0);
    result.server_profile = {
      note: 'node --cpu-prof of the server, samples inside the windows in which Mitate was measured (all cases), each put in the first step its stack shows from the leaf up; milliseconds of one core per request (the profiler itself adds some). "other": samples no step claims.',
      ...profileSteps(file, requests),
    };
    console.log(JSON.stringify(result.server_profile));
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  writeResult(IN_PROCESS ? 'platform' : 'platform-engine-only', result);
}
