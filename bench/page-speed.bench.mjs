// Issue 33 "Speed a person notices": every page interactive within 1 s on this machine with the app's own data,
// measured in Chromium. A page counts as ready when its content has settled: no API request in flight, no progress
// bar or skeleton showing, and nothing new for 300 ms; the figure is the time from navigation to the last change.
// Each page is loaded once cold (empty cache) and RUNS times warm; the JSON keeps the median warm time, the cold
// one, the API calls made and any answered 4xx/5xx (a page asking for what does not exist costs a round trip).
// Peer: the goal (1,000 ms) and, for the two downloads, the same report's bytes written by the server alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { percentile, ROOT, signUp, startServer, writeResult } from './lib.mjs';

const RUNS = Number(process.env.BENCH_PAGE_RUNS) || 3;
const GOAL_MS = 1000;
const QUIET_MS = 300;
const SHARED = path.resolve(ROOT, '..', 'shared', 'data');
const median = (xs) => percentile(xs, 50);

const load0 = os.loadavg()[0];
const spawnAt = performance.now();
const server = await startServer({ MITATE_WORKERS: '1' });
const startup_ms = performance.now() - spawnAt;
const auth = await signUp(server.url);
const t1 = performance.now();
await fetch(`${server.url}/api/dataset`, { headers: auth });
const first_api_ms = performance.now() - t1;
const t2 = performance.now();
await fetch(`${server.url}/api/dataset`, { headers: auth });
const second_api_ms = performance.now() - t2;

const post = (url, body) => fetch(`${server.url}${url}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }).then((r) => r.json());
const get = (url) => fetch(`${server.url}${url}`, { headers: auth }).then((r) => r.json());

async function register(name, file, fields) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name, category: 'bench', comment: '', ...fields })) form.set(k, v);
  form.set('file', new Blob([fs.readFileSync(file)]), path.basename(file));
  const r = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: auth, body: form });
  if (!r.ok) throw new Error(`register failed: ${await r.text()}`);
  return (await r.json()).detail.response;
}

const results = { pages: {}, downloads: {} };
try {
  // The app's own data: the concrete table, a regression project with two trained models, an inference dataset.
  const concrete = path.join(SHARED, 'uci_concrete', 'concrete_data.csv');
  const ds = await register('Concrete strength', concrete, { data_type: 'training_data', type: 'supervised', training_type: 'regression' });
  const cols = fs.readFileSync(concrete, 'utf8').split('\n')[0].trim().split(',');
  const target = cols[cols.length - 1];
  const project = (await post(`/api/regress/register/${ds.id}`, { name: 'Concrete', target_variables: [target], feature_variables: cols.slice(0, -1), cross_validation: 3, models: [{ algorithm: 'lightgbm' }, { algorithm: 'ridge' }] })).detail.response;
  const pid = project.project_id;
  await post(`/api/train/model/${pid}`);
  let models = [];
  for (let i = 0; i < 2400; i++) {
    const r = (await get(`/api/train/result/${pid}`)).detail.response;
    models = r.models ?? [];
    if (r.training_state !== 'training' && models.every((m) => m.state !== 'training' && m.state !== 'queued')) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const model = models.find((m) => m.state === 'done')?.model_key ?? models[0]?.model_key;
  if (!model) throw new Error('no trained model');
  await register('Concrete inference', concrete, { data_type: 'inference_data', type: 'supervised', training_type: 'regression' });

  // Downloads through the API: the regression report as HTML and PDF.
  for (const format of ['html', 'pdf']) {
    const times = [];
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const r = await fetch(`${server.url}/api/regress/report/${format === 'pdf' ? 'pdf' : 'download'}/${pid}/${model}?lang=en`, { headers: auth });
      bytes = (await r.arrayBuffer()).byteLength;
      times.push(performance.now() - t);
      if (!r.ok) throw new Error(`report ${format}: ${r.status}`);
    }
    results.downloads[format] = { median_ms: Math.round(median(times)), ms: times.map(Math.round), bytes };
  }

  const pages = {
    'dataset list': '/dataset',
    'dataset details': `/dataset/details/${ds.id}/training_data`,
    'visualization': `/visualization/details/${ds.id}`,
    'training list': '/training',
    'regression project': `/training/regress/details/${pid}`,
    'regression results': `/training/regression/result/${pid}`,
    'regression report': `/training/regress/result/report/${pid}/${model}`,
    'prediction wizard': `/training/prediction/register/${pid}/${model}`,
    'prediction list': '/prediction',
    'hosted APIs list': '/platform',
    'optimization list': '/optimization',
    'design of experiments list': '/optimal-design',
    'statistical analysis list': '/statistical-analysis',
    'members': '/users',
    'profile': '/profile',
    'audit log': '/audit',
  };

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const token = auth.authorization.slice('Bearer '.length);
  const session = JSON.stringify({ access_token: token, refresh_token: 'unused', expires_at: Date.now() + 3600_000 });

  async function visit(page, url) {
    let inflight = 0;
    let last = performance.now();
    const calls = [];
    const onRequest = (req) => {
      if (!['fetch', 'xhr'].includes(req.resourceType())) return;
      inflight++;
      last = performance.now();
    };
    const onDone = (req) => {
      if (!['fetch', 'xhr'].includes(req.resourceType())) return;
      inflight = Math.max(0, inflight - 1);
      last = performance.now();
    };
    const onResponse = (res) => {
      if (!['fetch', 'xhr'].includes(res.request().resourceType())) return;
      calls.push({ url: res.url().replace(server.url, ''), status: res.status() });
    };
    page.on('request', onRequest);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    page.on('response', onResponse);
    const t0 = performance.now();
    await page.goto(`${server.url}${url}`, { waitUntil: 'commit' });
    let busySince = null;
    for (;;) {
      const busy = inflight > 0 || (await page.locator('[role="progressbar"]:visible, .MuiSkeleton-root:visible').count()) > 0;
      const now = performance.now();
      if (busy) {
        busySince = now;
        last = now;
      } else if (now - last >= QUIET_MS && (await page.locator('main').innerText()).trim().length > 0) break;
      if (now - t0 > 60_000) throw new Error(`${url} did not settle`);
      await new Promise((r) => setTimeout(r, 20));
    }
    page.off('request', onRequest);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
    page.off('response', onResponse);
    return { ms: last - t0, calls, busySince };
  }

  for (const [name, url] of Object.entries(pages)) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript((s) => localStorage.setItem('mitate.session', s), session);
    const page = await context.newPage();
    const cold = await visit(page, url);
    const warm = [];
    let calls = cold.calls;
    for (let i = 0; i < RUNS; i++) {
      const v = await visit(page, url);
      warm.push(v.ms);
      calls = v.calls;
    }
    const errors = calls.filter((c) => c.status >= 400);
    results.pages[name] = {
      url: url.replace(ds.id, ':dataset').replace(pid, ':project'),
      warm_median_ms: Math.round(median(warm)),
      warm_ms: warm.map(Math.round),
      cold_ms: Math.round(cold.ms),
      api_calls: calls.length,
      failed_calls: errors.map((c) => `${c.status} ${c.url.replace(ds.id, ':dataset').replace(pid, ':project')}`),
      within_goal: median(warm) <= GOAL_MS,
    };
    console.log(`${name}: warm ${Math.round(median(warm))} ms, cold ${Math.round(cold.ms)} ms, ${calls.length} calls${errors.length ? `, failed: ${errors.length}` : ''}`);
    await context.close();
  }
  await browser.close();
} finally {
  await server.stop();
}

const slow = Object.entries(results.pages).filter(([, p]) => !p.within_goal).map(([n, p]) => `${n} ${p.warm_median_ms} ms`);
writeResult('page_speed', {
  goal_ms: GOAL_MS,
  settle_rule: `no API request in flight, no progress bar or skeleton, nothing new for ${QUIET_MS} ms (the quiet window is not counted)`,
  runs: RUNS,
  load_average_at_start: Number(load0.toFixed(2)),
  load_average_at_end: Number(os.loadavg()[0].toFixed(2)),
  server: { startup_ms: Math.round(startup_ms), first_api_ms: Math.round(first_api_ms), second_api_ms: Math.round(second_api_ms) },
  ...results,
  over_goal: slow,
});
