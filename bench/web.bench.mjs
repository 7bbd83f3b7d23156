// Issue 19: how fast the web app arrives. Cold-cache first load of /dataset signed in (bytes of JavaScript
// transferred, first contentful paint, time until the dataset list shows) and a warm reload, on loopback and on
// a throttled 10 Mbit/s, 40 ms line — for this build and, in the same run, the build before issue 19 (its own
// server and web app, checked out from git), so the two are measured on the same machine at the same time.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { PYTHON, ROOT, WORK, signUp, startServer, writeResult } from './lib.mjs';

const BASELINE_REF = process.env.BENCH_WEB_BASELINE ?? 'a808a67';
const RUNS = Number(process.env.BENCH_WEB_RUNS) || 5;
const THROTTLED = { offline: false, latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8) };
const LOOPBACK = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };

/** The baseline checkout with its own web build; node_modules shared with this one (same lock but for issue 19's additions). */
function baselineCheckout() {
  const dir = path.join(WORK, `web-baseline-${BASELINE_REF}`);
  if (!fs.existsSync(path.join(dir, 'web', 'dist', 'index.html'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: ROOT });
    execFileSync('git', ['worktree', 'add', '--detach', dir, BASELINE_REF], { cwd: ROOT, stdio: 'inherit' });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: path.join(dir, 'web'), stdio: 'inherit' });
    if (r.status !== 0) throw new Error('baseline web build failed');
  }
  return dir;
}

async function measure(browser, url, session, network) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript((s) => localStorage.setItem('mitate.session', s), JSON.stringify(session));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', network);
  const load = async () => {
    const types = new Map();
    const bytes = { script: 0, css: 0, all: 0, requests: 0, scripts: 0 };
    const onResponse = (e) => types.set(e.requestId, e.type);
    const onFinished = (e) => {
      const type = types.get(e.requestId);
      bytes.all += e.encodedDataLength;
      bytes.requests++;
      if (type === 'Script') {
        bytes.script += e.encodedDataLength;
        bytes.scripts++;
      }
      if (type === 'Stylesheet') bytes.css += e.encodedDataLength;
    };
    cdp.on('Network.responseReceived', onResponse);
    cdp.on('Network.loadingFinished', onFinished);
    const t0 = Date.now();
    await page.goto(`${url}/dataset`);
    await page.getByRole('link', { name: 'Bench table' }).waitFor({ timeout: 120_000 });
    const listShownMs = Date.now() - t0;
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
    cdp.off('Network.responseReceived', onResponse);
    cdp.off('Network.loadingFinished', onFinished);
    return { list_shown_ms: listShownMs, fcp_ms: fcp === null ? null : Math.round(fcp), script_kb: Math.round(bytes.script / 102.4) / 10, scripts: bytes.scripts, css_kb: Math.round(bytes.css / 102.4) / 10, total_kb: Math.round(bytes.all / 102.4) / 10, requests: bytes.requests };
  };
  const cold = await load();
  const warm = await load(); // same context: the browser cache is warm
  await context.close();
  return { cold, warm };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summarise = (runs) => {
  const pick = (phase, key) => median(runs.map((r) => r[phase][key]));
  const out = {};
  for (const phase of ['cold', 'warm']) out[phase] = Object.fromEntries(Object.keys(runs[0][phase]).map((k) => [k, pick(phase, k)]));
  return out;
};

async function session(url) {
  const auth = await signUp(url);
  const token = auth.authorization.slice('Bearer '.length);
  // A dataset so the list has a row to wait for.
  const form = new FormData();
  form.set('name', 'Bench table');
  form.set('data_type', 'training_data');
  form.set('type', 'supervised');
  form.set('training_type', 'regression');
  form.set('category', 'bench');
  form.set('comment', '');
  form.set('file', new Blob([fs.readFileSync(path.resolve(ROOT, '..', 'shared', 'data', 'uci_concrete', 'concrete_data.csv'))]), 'concrete_data.csv');
  const r = await fetch(`${url}/api/dataset/register`, { method: 'POST', headers: auth, body: form });
  if (!r.ok) throw new Error(`register failed: ${await r.text()}`);
  // The refresh token is not needed: the access token outlives the run.
  return { access_token: token, refresh_token: 'unused', expires_at: Date.now() + 3600_000 };
}

const base = baselineCheckout();
const builds = {
  current: await startServer({ MITATE_WORKERS: '1' }),
  baseline: await startServer({ MITATE_WORKERS: '1', MITATE_WEB_DIST: path.join(base, 'web', 'dist'), MITATE_PYTHON: PYTHON }, path.join(base, 'server')),
};
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const result = { baseline_ref: BASELINE_REF, runs: RUNS, throttled: '10 Mbit/s down and up, 40 ms latency (Chromium network emulation)', goals: { throttled_cold_list_ms: 1500, warm_list_ms: 500, first_route_script_kb: 300 } };
try {
  for (const [name, server] of Object.entries(builds)) {
    const s = await session(server.url);
    result[name] = {};
    for (const [netName, net] of [['loopback', LOOPBACK], ['throttled', THROTTLED]]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, server.url, s, net));
      result[name][netName] = summarise(runs);
      console.log(name, netName, JSON.stringify(result[name][netName]));
    }
  }
  const c = result.current;
  result.met = {
    throttled_cold_under_1500_ms: c.throttled.cold.list_shown_ms < 1500,
    warm_under_500_ms: c.loopback.warm.list_shown_ms < 500 && c.throttled.warm.list_shown_ms < 500,
    first_route_script_under_300_kb: c.loopback.cold.script_kb < 300,
  };
} finally {
  await browser.close();
  for (const s of Object.values(builds)) await s.stop();
}
writeResult('web', result);
