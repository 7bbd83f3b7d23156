// Issue 16, load: 200 simulated users (HTTP clients, not browsers) against one server and two engine workers on
// loopback. Users belong to organisations of 10 (an owner who signed up and members who accepted an invitation);
// each one browses (dataset lists, dataset pages and rows, statistics, charts, project lists and pages) with a think
// time between requests, and now and then uploads a small CSV (which queues its statistics) or trains a small
// regression (two models, 2-fold CV) and polls it as the web app does. Jobs run on BullMQ when TEST_REDIS_URL or
// REDIS_URL is set (the server starts its two workers itself), else on the local pool of two.
//
// Measured: error rate (any answer ≥ 400 or failed request), p50/p95/p99 latency per request kind and over all API
// requests, jobs queued/done/failed (within the run, and after the queue drained), the server's RSS sampled every 5 s
// (first and last third compared). Goals: error rate 0, p95 < 300 ms, memory stable.
// Under a loaded machine the latencies say more about the machine than the server; two figures help to read them:
// the server's CPU time per request (from /proc, whatever the load) and a probe, one light request twice a second
// measured beside the users (the peer in the same run).
//
//   npm run bench -- load [--quick] [--duration=SECONDS] [--users=N]   (or BENCH_QUICK=1)
//   (default 300 s, --quick 30 s; 200 users). Result: bench/results/load.json (load-quick.json with --quick).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { arg, percentile, startServer, writeResult } from './lib.mjs';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DURATION_S = Number(arg('duration') ?? process.env.BENCH_LOAD_SECONDS ?? (QUICK ? 30 : 300));
const USERS = Number(arg('users') ?? process.env.BENCH_LOAD_USERS ?? 200);
const ORG_SIZE = 10;
const THINK_MS = [1000, 5000]; // uniform: a user reads a page for 1–5 s before the next request
const P_UPLOAD = 0.01; // per action: about 0.6 uploads and 0.3 trainings a second across 200 users
const P_TRAIN = 0.005;
const DRAIN_S = 180; // after the run, how long the queue may take to finish what was started
const PASSWORD = 'Kx7!mQ2#vL9p';
const redisUrl = process.env.TEST_REDIS_URL || process.env.REDIS_URL || '';

// ---- a seeded random source, so two runs make the same choices -----------------------------------------------
let seed = 20261124;
const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A small regression table: y = 3·x1 − 2·x2 + noise, a category and a date. */
function csv(rows, s) {
  let t = s;
  const r = () => ((t = (t * 48271) % 2147483647) / 2147483647);
  const lines = ['x1,x2,x3,line,y'];
  for (let i = 0; i < rows; i++) {
    const x1 = r() * 10;
    const x2 = r() * 5;
    lines.push(`${x1.toFixed(3)},${x2.toFixed(3)},${(r() * 2).toFixed(3)},L${i % 4},${(3 * x1 - 2 * x2 + r()).toFixed(3)}`);
  }
  return lines.join('\n') + '\n';
}

// ---- measured requests -------------------------------------------------------------------------------------
const samples = new Map(); // kind → latencies (ms)
const errors = new Map(); // `${kind} ${status}` → count
const errorExamples = [];
let measuring = false;

async function request(server, kind, auth, method, url, body) {
  const headers = { ...(auth ? { authorization: auth.token } : {}) };
  let payload = body;
  if (body !== undefined && !(body instanceof FormData)) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const t0 = performance.now();
  let status = 0;
  let text = '';
  try {
    const res = await fetch(`${server.url}${url}`, { method, headers, body: payload });
    status = res.status;
    text = await res.text();
  } catch (e) {
    text = String(e?.cause?.code ?? e?.message ?? e);
  }
  const ms = performance.now() - t0;
  if (measuring) {
    if (!samples.has(kind)) samples.set(kind, []);
    samples.get(kind).push(ms);
    if (!(status >= 200 && status < 400)) {
      const key = `${kind} ${status || 'network'}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
      if (errorExamples.length < 10) errorExamples.push({ kind, status, url, answer: text.slice(0, 300) });
    }
  }
  if (!(status >= 200 && status < 400)) return null;
  try {
    return JSON.parse(text).detail?.response ?? null;
  } catch {
    return null;
  }
}

/** Setup calls (not measured) must succeed. */
async function must(server, auth, method, url, body) {
  const headers = { ...(auth ? { authorization: auth.token } : {}) };
  let payload = body;
  if (body !== undefined && !(body instanceof FormData)) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${server.url}${url}`, { method, headers, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text).detail?.response;
}

function uploadForm(name, content) {
  const form = new FormData();
  form.set('name', name);
  form.set('data_type', 'training_data');
  form.set('type', 'supervised');
  form.set('training_type', 'regression');
  form.set('comment', '');
  form.set('file', new Blob([content], { type: 'text/csv' }), name);
  return form;
}

/** The newest accept-invitation token mailed to `to` (the server writes mails to <data>/outbox). */
function invitationToken(dataDir, to) {
  const dir = path.join(dataDir, 'outbox');
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).sort().reverse() : []) {
    const raw = fs.readFileSync(path.join(dir, f), 'utf8');
    if (!raw.includes(`To: ${to}`)) continue;
    const m = /accept-invitation\?token=([A-Za-z0-9_%-]+)/.exec(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
    if (m) return decodeURIComponent(m[1]);
  }
  return undefined;
}

/** Runs `fn` over `items`, `n` at a time. */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

// ---- the run -----------------------------------------------------------------------------------------------
const loadAt = (when) => ({ when, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim() });
const loads = [loadAt('start')];
const tag = crypto.randomBytes(3).toString('hex');
const env = { MITATE_WORKERS: '2', MITATE_ACCESS_TOKEN_TTL_S: String(4 * 3600) };
if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, MITATE_QUEUE_NAME: `mitate-load-${tag}` });
const server = await startServer(env);
console.log(`server ${server.url} (pid ${server.pid}), jobs on ${redisUrl ? `BullMQ (${redisUrl})` : 'the local pool'}; ${USERS} users for ${DURATION_S} s`);

const rss = [];
/** CPU seconds the server process has used (user + system), from /proc/<pid>/stat (clock ticks of 1/100 s). */
const cpuOf = () => {
  const fields = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssOf = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
const jobs = []; // { id, kind, at }
let result;
try {
  // organisations of ORG_SIZE users: the owner signs up, then invites the others, who accept
  const setupStarted = Date.now();
  const orgCount = Math.ceil(USERS / ORG_SIZE);
  const orgs = await pool(Array.from({ length: orgCount }, (_, i) => i), 4, async (i) => {
    const email = `load${tag}.owner${i}@example.com`;
    await must(server, null, 'POST', '/account/api/auth/register', { email, password: PASSWORD, first_name: 'Owner', last_name: `Org${i}`, organisation_name: `Load ${i}` });
    const tokens = await must(server, null, 'POST', '/account/api/auth/login', { email, password: PASSWORD });
    const owner = { token: `Bearer ${tokens.access_token}` };
    const ds = await must(server, owner, 'POST', '/api/dataset/register', uploadForm(`seed-${i}.csv`, csv(400, 1 + i)));
    return { owner, users: [owner], datasets: [ds.id], projects: [] };
  });
  await pool(orgs.flatMap((org, i) => Array.from({ length: Math.min(ORG_SIZE, USERS - i * ORG_SIZE) - 1 }, (_, k) => ({ org, i, k }))), 4, async ({ org, i, k }) => {
    const email = `load${tag}.m${i}-${k}@example.com`;
    await must(server, org.owner, 'POST', '/account/api/members', { email, role: 'member', first_name: 'Member', last_name: `Number${k}` });
    const token = invitationToken(server.dataDir, email);
    if (!token) throw new Error(`no invitation mail for ${email}`);
    const tokens = await must(server, null, 'POST', '/account/api/auth/accept-invitation', { token, password: PASSWORD, confirm_password: PASSWORD });
    org.users.push({ token: `Bearer ${tokens.access_token}` });
  });
  // the seed datasets' statistics are done, and each organisation has one trained project to look at
  for (const org of orgs) {
    const p = await must(server, org.owner, 'POST', `/api/regress/register/${org.datasets[0]}`, { name: 'seed model', target_variables: ['y'], feature_variables: ['x1', 'x2', 'x3'], cross_validation: 2, models: [{ algorithm: 'ridge' }] });
    await must(server, org.owner, 'POST', `/api/train/model/${p.project_id}`, {});
    org.projects.push(p.project_id);
  }
  for (const org of orgs) {
    for (let i = 0; ; i++) {
      const s = await must(server, org.owner, 'POST', `/api/statistics/result/${org.datasets[0]}`);
      const t = await must(server, org.owner, 'GET', `/api/train/result/${org.projects[0]}`);
      if (s.state === 'succeeded' && t.training_state === 'done') break;
      if (s.state === 'failed' || t.training_state === 'failed' || i > 1200) throw new Error(`seed jobs did not succeed: ${s.state} ${t.training_state}`);
      await sleep(250);
    }
  }
  const users = orgs.flatMap((org) => org.users.map((auth) => ({ auth, org, training: null })));
  const setupSeconds = (Date.now() - setupStarted) / 1000;
  console.log(`setup: ${orgs.length} organisations, ${users.length} users, ${orgs.length} datasets and trained projects in ${setupSeconds.toFixed(1)} s`);
  loads.push(loadAt('after setup'));

  // ---- users at work ----
  const ops = {
    list_datasets: (u) => request(server, 'list_datasets', u.auth, 'GET', '/api/datasets/list/?page=1&page_size=20'),
    dataset_page: (u) => request(server, 'dataset_page', u.auth, 'GET', `/api/dataset/${pick(u.org.datasets)}/false`),
    dataset_rows: (u) => request(server, 'dataset_rows', u.auth, 'GET', `/api/dataset/upload/${pick(u.org.datasets)}?page=1&page_size=50`),
    statistics: (u) => request(server, 'statistics', u.auth, 'POST', `/api/statistics/result/${pick(u.org.datasets)}`),
    chart_histogram: (u) => request(server, 'chart_histogram', u.auth, 'POST', `/api/visualization/histogram/${pick(u.org.datasets)}`, { columns: ['x1', 'line', 'y'] }),
    chart_boxplot: (u) => request(server, 'chart_boxplot', u.auth, 'POST', `/api/visualization/boxplot/${pick(u.org.datasets)}`, { columns: ['x1', 'x2', 'y'] }),
    chart_scatter: (u) => request(server, 'chart_scatter', u.auth, 'POST', `/api/visualization/scatter/${pick(u.org.datasets)}`, { x: 'x1', y: 'y', color: 'line' }),
    chart_correlation: (u) => request(server, 'chart_correlation', u.auth, 'POST', `/api/visualization/correlation/${pick(u.org.datasets)}`, {}),
    list_projects: (u) => request(server, 'list_projects', u.auth, 'GET', '/api/project/list/?page=1&page_size=20'),
    project_page: (u) => request(server, 'project_page', u.auth, 'GET', `/api/regress/project/${pick(u.org.projects)}`),
  };
  const browse = Object.keys(ops);

  async function upload(u) {
    const name = `upload-${crypto.randomBytes(3).toString('hex')}.csv`;
    const d = await request(server, 'upload', u.auth, 'POST', '/api/dataset/register', uploadForm(name, csv(150 + Math.floor(rnd() * 200), Math.floor(rnd() * 1e9))));
    if (!d) return;
    const s = await request(server, 'statistics', u.auth, 'POST', `/api/statistics/result/${d.id}`);
    if (s?.job_id) jobs.push({ id: s.job_id, kind: 'statistics', auth: u.auth, at: Date.now() });
    u.org.datasets.push(d.id); // the others see it in their list from now on
  }

  async function train(u) {
    const p = await request(server, 'train_register', u.auth, 'POST', `/api/regress/register/${pick(u.org.datasets)}`, {
      name: `load ${crypto.randomBytes(2).toString('hex')}`, target_variables: ['y'], feature_variables: ['x1', 'x2', 'x3'], cross_validation: 2, models: [{ algorithm: 'ridge' }, { algorithm: 'linear' }],
    });
    if (!p) return;
    const s = await request(server, 'train_start', u.auth, 'POST', `/api/train/model/${p.project_id}`, {});
    if (s?.job?.id) jobs.push({ id: s.job.id, kind: 'train', auth: u.auth, at: Date.now() });
    u.training = p.project_id;
    u.org.projects.push(p.project_id);
  }

  const stopAt = Date.now() + DURATION_S * 1000;
  const cpuStart = cpuOf();
  const clientCpuStart = process.cpuUsage();
  measuring = true;
  const sampler = setInterval(() => rss.push({ s: Math.round((Date.now() - (stopAt - DURATION_S * 1000)) / 1000), mb: Math.round(rssOf()) }), 5000);
  rss.push({ s: 0, mb: Math.round(rssOf()) });
  const loadSampler = setInterval(() => loads.push(loadAt(`${Math.round((Date.now() - (stopAt - DURATION_S * 1000)) / 1000)} s`)), 30_000);
  let actions = 0;
  // the peer in the same run: one light request (who am I) twice a second, apart from the users — how slow the
  // machine itself answers at this moment; its figures are not part of latency_all
  const probe = (async () => {
    while (Date.now() < stopAt) {
      await request(server, 'probe_users_me', orgs[0].owner, 'GET', '/api/users/me');
      await sleep(500);
    }
  })();
  await Promise.all(
    users.map(async (u, i) => {
      await sleep((i / users.length) * THINK_MS[1]); // users arrive over the first think time, not all at once
      while (Date.now() < stopAt) {
        actions++;
        if (u.training) {
          // the training page polls until the run ends
          const t = await request(server, 'train_result', u.auth, 'GET', `/api/train/result/${u.training}`);
          if (!t || t.training_state !== 'training') u.training = null;
        } else {
          const r = rnd();
          if (r < P_UPLOAD) await upload(u);
          else if (r < P_UPLOAD + P_TRAIN) await train(u);
          else await ops[pick(browse)](u);
        }
        await sleep(THINK_MS[0] + rnd() * (THINK_MS[1] - THINK_MS[0]));
      }
    }),
  );
  await probe;
  measuring = false;
  const serverCpuS = cpuOf() - cpuStart;
  const clientCpu = process.cpuUsage(clientCpuStart);
  clearInterval(sampler);
  clearInterval(loadSampler);
  rss.push({ s: DURATION_S, mb: Math.round(rssOf()) });
  loads.push(loadAt('end of run'));

  // ---- jobs: how many finished within the run, and after the queue drained ----
  const jobState = async (j) => (await must(server, j.auth, 'GET', `/api/jobs/${j.id}`)).state;
  const count = async () => {
    const states = await pool(jobs, 8, jobState);
    return Object.fromEntries(['queued', 'running', 'succeeded', 'failed', 'cancelled'].map((s) => [s, states.filter((x) => x === s).length]));
  };
  const atEnd = await count();
  const drainStart = Date.now();
  let drained = atEnd;
  while ((drained.queued || drained.running) && Date.now() - drainStart < DRAIN_S * 1000) {
    await sleep(2000);
    drained = await count();
  }
  const drainSeconds = (Date.now() - drainStart) / 1000;

  // ---- figures ----
  const round = (x) => Math.round(x * 10) / 10;
  const stats = (xs) => ({ count: xs.length, p50_ms: round(percentile(xs, 50)), p95_ms: round(percentile(xs, 95)), p99_ms: round(percentile(xs, 99)), max_ms: round(Math.max(...xs)) });
  const probeMs = samples.get('probe_users_me') ?? [];
  samples.delete('probe_users_me');
  const all = [...samples.values()].flat();
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const third = Math.max(1, Math.floor(rss.length / 3));
  const mean = (xs) => xs.reduce((a, b) => a + b.mb, 0) / xs.length;
  const rssFirst = mean(rss.slice(0, third));
  const rssLast = mean(rss.slice(-third));
  const overall = stats(all);
  result = {
    mode: QUICK ? 'quick' : 'full',
    duration_s: DURATION_S,
    users: users.length,
    organisations: orgs.length,
    think_ms: THINK_MS,
    per_action: { upload: P_UPLOAD, train: P_TRAIN },
    jobs_backend: redisUrl ? 'bullmq' : 'local',
    workers: 2,
    database: 'sqlite',
    setup_s: round(setupSeconds),
    requests: all.length,
    requests_per_s: round(all.length / DURATION_S),
    actions,
    errors: errorCount,
    error_rate: all.length ? errorCount / all.length : 0,
    errors_by_kind: Object.fromEntries(errors),
    error_examples: errorExamples,
    latency_all: overall,
    // what the requests cost the server, whatever the machine's load: its CPU time over the run per request
    server_cpu: { seconds: round(serverCpuS), ms_per_request: round((serverCpuS * 1000) / Math.max(1, all.length)), share_of_one_core: round(serverCpuS / DURATION_S) },
    client_cpu_s: round((clientCpu.user + clientCpu.system) / 1e6),
    latency_probe: probeMs.length ? stats(probeMs) : null,
    latency_by_kind: Object.fromEntries([...samples.entries()].sort().map(([k, xs]) => [k, stats(xs)])),
    jobs: { started: jobs.length, by_kind: { statistics: jobs.filter((j) => j.kind === 'statistics').length, train: jobs.filter((j) => j.kind === 'train').length }, at_end_of_run: atEnd, after_drain: drained, drain_s: round(drainSeconds) },
    server_rss_mb: { samples: rss, first_third_mean: round(rssFirst), last_third_mean: round(rssLast), max: Math.max(...rss.map((r) => r.mb)), growth_pct: round(((rssLast - rssFirst) / rssFirst) * 100) },
    load: loads,
    goals: { error_rate: 0, p95_ms: 300, memory: 'stable (last third within 20% of the first)' },
    met: {
      error_rate_0: errorCount === 0,
      p95_under_300_ms: overall.p95_ms < 300,
      memory_stable: rssLast <= rssFirst * 1.2,
      jobs_all_done: drained.succeeded === jobs.length,
    },
    note: 'Measured on a machine shared with other work: compare with the load figures beside it.',
  };
} finally {
  await server.stop();
  if (redisUrl) {
    // the run's queue goes with it (keys of finished jobs would otherwise stay in Redis for a week)
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(env.MITATE_QUEUE_NAME, { connection });
    await queue.obliterate({ force: true }).catch((e) => console.warn(`queue not removed: ${e.message}`));
    await queue.close();
    connection.disconnect();
  }
}
writeResult(QUICK ? 'load-quick' : 'load', result);
