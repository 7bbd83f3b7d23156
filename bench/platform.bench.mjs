// Hosted model APIs (issue 13): single-row predictions through POST /serve/{key}/predict with a LightGBM and a
// linear model, p50/p99 latency and requests per second at concurrency 1 and 8 on loopback, beside the same
// model served by a one-worker FastAPI + uvicorn server in the same run. `--quick` measures 3 s per case.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, percentile, PYTHON, ROOT, startServer, writeResult } from './lib.mjs';

const QUICK = process.argv.includes('--quick');
const SECONDS = QUICK ? 3 : 10;
const PASSWORD = 'Kx7!mQ2#vL9p';
const ADMIN = `bench.admin.${Date.now()}@example.com`;
const CCPP = fs.readFileSync(path.join(ROOT, '..', 'shared', 'data', 'uci_ccpp', 'ccpp.csv'), 'utf8');
const ROW = { rows: [{ AT: 8.34, V: 40.77, AP: 1010.84, RH: 90.01 }] };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function call(url, method, p, token, body) {
  const res = await fetch(`${url}${p}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text).detail.response;
}
async function account(url, email) {
  await fetch(`${url}/account/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD, first_name: 'Ben', last_name: 'Mark', organisation_name: 'Bench' }) });
  const r = await fetch(`${url}/account/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  return (await r.json()).detail.response.access_token;
}

/** `concurrency` callers in a loop for SECONDS; each request's latency in ms. */
async function load(send, concurrency) {
  for (let i = 0; i < 50; i++) await send(); // warm-up: models loaded, connections open
  const lat = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        if (!(await send())) errors++;
        lat.push(performance.now() - t0);
      }
    }),
  );
  const r = (v) => Math.round(v * 100) / 100;
  return { requests: lat.length, errors, rps: r(lat.length / SECONDS), p50_ms: r(percentile(lat, 50)), p99_ms: r(percentile(lat, 99)) };
}

const server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '2', MITATE_WORKERS: '1' });
const peers = [];
try {
  const token = await account(server.url, `bench.${Date.now()}@example.com`);
  const admin = await account(server.url, ADMIN);
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'ccpp', data_type: 'training_data', type: 'supervised', training_type: 'regression' })) form.append(k, v);
  form.append('file', new Blob([CCPP], { type: 'text/csv' }), 'ccpp.csv');
  const ds = (await (await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()).detail.response;
  const project = await call(server.url, 'POST', `/api/regress/register/${ds.id}`, token, { name: 'ccpp', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models: [{ algorithm: 'lightgbm' }, { algorithm: 'linear' }] });
  const pid = project.project_id ?? project.id;
  await call(server.url, 'POST', `/api/train/model/${pid}`, token, {});
  let models;
  for (;;) {
    models = (await call(server.url, 'GET', `/api/regress/project/${pid}`, token)).models;
    if (models.every((m) => m.state === 'done' || m.state === 'failed')) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const id = new FormData();
  id.append('front', new Blob([PNG], { type: 'image/png' }), 'front.png');
  id.append('back', new Blob([PNG], { type: 'image/png' }), 'back.png');
  await fetch(`${server.url}/account/api/identity`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: id });
  const pending = await call(server.url, 'GET', '/account/api/admin/identity', admin);
  await call(server.url, 'POST', `/account/api/admin/identity/${pending.items[0].id}/review`, admin, { decision: 'approve' });

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
    for (let i = 0; i < 120; i++) {
      try {
        if ((await fetch(peerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ROW) })).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 250));
    }
    const body = JSON.stringify(ROW);
    const mitate = async () => (await fetch(`${server.url}/serve/bench-${algorithm}/predict`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body }).then((r) => r.arrayBuffer().then(() => r.ok)));
    const fastapi = async () => (await fetch(peerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.arrayBuffer().then(() => r.ok)));
    cases[algorithm] = {};
    for (const c of [1, 8]) {
      cases[algorithm][`c${c}`] = { mitate: await load(mitate, c), fastapi_uvicorn_1_worker: await load(fastapi, c) };
      console.log(algorithm, `c=${c}`, JSON.stringify(cases[algorithm][`c${c}`]));
    }
    peer.kill('SIGTERM');
  }
  writeResult('platform', {
    quick: QUICK,
    seconds_per_case: SECONDS,
    note: 'Single-row JSON predictions on loopback; the load generator (Node fetch, keep-alive) runs on the same 2 cores. Mitate: Fastify + 2 persistent Python serving processes (requests for the same model batched while a process is busy); peer: FastAPI + uvicorn, 1 worker, the same frozen model and the same engine prediction path.',
    goal: 'at least the peer throughput, p99 < 10 ms at concurrency 8',
    cases,
  });
} finally {
  for (const p of peers) p.kill('SIGTERM');
  await server.stop();
}
