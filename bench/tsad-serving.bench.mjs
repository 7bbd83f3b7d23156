// Hosted time-series detectors (issue 31 §3): one-row stream requests through POST /serve/{key}/predict (a series id,
// the server keeping its recent rows), p50/p99 latency and rows per second, one series and 4 series at once; a
// whole block in one request; beside the same model scoring the same rows in a loop in Python directly
// (bench/tsad_serving_peer.py). SKAB valve1 (1,147 rows a second apart, 8 signals), PCA-MSPC with lags, a 5-row and
// a 20 s window and a 2-of-4 alarm rule, and LightGBM (supervised) on the same features. `--quick`: 300 rows.
// MITATE_TSAD_STREAM_EXACT_ROWS (default 1000) sets how many rows a series is kept whole: below the rows streamed,
// both phases (kept whole, history only) are measured.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { percentile, PYTHON, ROOT, startServer, writeResult, apiCall as call, accountToken as account, PNG_1PX as PNG } from './lib.mjs';

const QUICK = process.argv.includes('--quick');
const ADMIN = `bench.admin.${Date.now()}@example.com`;
const SKAB_PATH = [path.join(ROOT, '..', 'shared'), path.join(ROOT, '..', '..', 'shared')].map((d) => path.join(d, 'data', 'skab_subset', 'valve1', '0.csv')).find((f) => fs.existsSync(f));
const LINES = fs.readFileSync(SKAB_PATH, 'utf8').replace(/\r\n/g, '\n').trim().split('\n');
const HEADER = LINES[0].split(';');
const SIGNALS = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];
const ROWS = LINES.slice(1, QUICK ? 301 : undefined).map((l) => {
  const v = l.split(';');
  return Object.fromEntries([['datetime', v[0]], ...SIGNALS.map((s) => [s, Number(v[HEADER.indexOf(s)])])]);
});

const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;
const r3 = (v) => Math.round(v * 1000) / 1000;

/** One series streamed one row a request; latencies (ms) and the rows kept after each. */
async function streamSeries(url, secret, series, rows) {
  const lat = [];
  const kept = [];
  for (const row of rows) {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify({ series, rows: [row] }) });
    const text = await res.text();
    lat.push(performance.now() - t0);
    if (!res.ok) throw new Error(`${res.status} ${text}`);
    kept.push(JSON.parse(text).detail.response.time_series.kept_rows);
  }
  return { lat, kept };
}

function summary(lat, seconds, rows) {
  return { rows, rows_per_s: r3(rows / seconds), p50_ms: r3(percentile(lat, 50)), p99_ms: r3(percentile(lat, 99)) };
}

const startLoad = os.loadavg().map((v) => Math.round(v * 100) / 100);
const server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '2', MITATE_WORKERS: '1', MITATE_SERVE_IP_RPS: '1000000', MITATE_SERVE_KEY_RPS: '1000000' });
let result = null;
try {
  const token = await account(server.url, `bench.${Date.now()}@example.com`);
  const admin = await account(server.url, ADMIN);
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'skab', data_type: 'training_data', training_type: 'time_series_anomaly_detection_supervised', datetime_column: 'datetime' })) form.append(k, v);
  form.append('file', new Blob([LINES.join('\n') + '\n'], { type: 'text/csv' }), 'skab.csv');
  const ds = (await (await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()).detail.response;
  const common = { feature_variables: SIGNALS, lags: [2], windows: [5, '20s'] };
  const specs = {
    pca_mspc: { ...common, name: 'SKAB unsupervised', project_type: 'time_series_anomaly_detection_unsupervised', target_variables: [], normal: { mode: 'rows', rows: 400 }, models: [{ algorithm: 'pca_mspc', params: { alarm_k: 2, alarm_n: 4 } }] },
    lightgbm: { ...common, name: 'SKAB supervised', project_type: 'time_series_anomaly_detection_supervised', target_variables: ['anomaly'], split_ratio: 0.7, models: [{ algorithm: 'lightgbm', params: { n_estimators: 100 } }] },
  };
  const id = new FormData();
  id.append('front', new Blob([PNG], { type: 'image/png' }), 'front.png');
  id.append('back', new Blob([PNG], { type: 'image/png' }), 'back.png');
  await fetch(`${server.url}/account/api/identity`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: id });
  const pending = await call(server.url, 'GET', '/account/api/admin/identity', admin);
  await call(server.url, 'POST', `/account/api/admin/identity/${pending.items[0].id}/review`, admin, { decision: 'approve' });
  const rowsFile = path.join(server.dataDir, 'rows.json');
  fs.writeFileSync(rowsFile, JSON.stringify(ROWS));

  const cases = {};
  for (const [name, spec] of Object.entries(specs)) {
    const p = await call(server.url, 'POST', `/api/timeseries/register/${ds.id}`, token, spec);
    await call(server.url, 'POST', `/api/timeseries/train/model/${p.project_id}`, token);
    let model;
    for (;;) {
      model = (await call(server.url, 'GET', `/api/timseseries/project/${p.project_id}`, token)).models[0];
      if (model.state === 'done' || model.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    if (model.state !== 'done') throw new Error(`${name} did not train`);
    const api = await call(server.url, 'POST', '/api/platform/projects', token, { name, key: `bench-ts-${name.replace('_', '-')}`, project_id: p.project_id, model_key: model.model_key, content_language: 'en-gb' });
    await call(server.url, 'POST', `/api/platform/projects/${api.id}/submit`, token);
    await call(server.url, 'POST', `/api/platform/admin/projects/${api.id}/review`, admin, { decision: 'approve' });
    await call(server.url, 'POST', `/api/platform/projects/${api.id}/start`, token);
    const { secret } = await call(server.url, 'POST', `/api/platform/projects/${api.id}/credentials`, token, { name: 'bench' });
    const iface = await call(server.url, 'GET', `/api/platform/projects/${api.id}/time-series`, token);
    const url = `${server.url}/serve/${api.key}/predict`;
    await streamSeries(url, secret, 'warm', ROWS.slice(0, 20)); // serving processes started, model loaded

    const load = [load1()];
    let t0 = performance.now();
    const one = await streamSeries(url, secret, 'line-1', ROWS);
    const oneS = (performance.now() - t0) / 1000;
    const exact = one.kept.findIndex((k, i) => k < i + 1); // the first row after which the series is no longer kept whole
    const split = exact < 0 ? ROWS.length : exact;
    t0 = performance.now();
    const four = await Promise.all([1, 2, 3, 4].map((i) => streamSeries(url, secret, `line-c${i}`, ROWS)));
    const fourS = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const block = await fetch(url, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify({ rows: ROWS }) });
    if (!block.ok) throw new Error(await block.text());
    await block.text();
    const blockS = (performance.now() - t0) / 1000;
    load.push(load1());

    const folder = path.join(server.dataDir, 'files', 'org');
    const modelDir = fs.readdirSync(folder).map((o) => path.join(folder, o, 'platform', api.id, 'model')).find((d) => fs.existsSync(d));
    const keep = iface.history_rows + 1 + 20; // the rows one score reads: the history and the 20 s window (a row a second)
    const peer = spawnSync(PYTHON, [path.join(ROOT, 'bench', 'tsad_serving_peer.py'), modelDir, rowsFile, String(keep)], { cwd: path.join(ROOT, 'engine'), env: { ...process.env, PYTHONPATH: path.join(ROOT, 'engine') }, encoding: 'utf8' });
    if (peer.status !== 0) throw new Error(peer.stderr);
    load.push(load1());
    cases[name] = {
      history_rows: iface.history_rows,
      stream_one_series: {
        ...summary(one.lat, oneS, ROWS.length),
        kept_whole: { rows: split, p50_ms: r3(percentile(one.lat.slice(0, split), 50)), p99_ms: r3(percentile(one.lat.slice(0, split), 99)) },
        ...(split < ROWS.length ? { history_only: { rows: ROWS.length - split, kept_rows: one.kept.at(-1), p50_ms: r3(percentile(one.lat.slice(split), 50)), p99_ms: r3(percentile(one.lat.slice(split), 99)) } } : {}),
      },
      stream_four_series_at_once: summary(four.flatMap((f) => f.lat), fourS, 4 * ROWS.length),
      block_one_request: { rows: ROWS.length, seconds: r3(blockS), rows_per_s: r3(ROWS.length / blockS) },
      peer_python_loop: JSON.parse(peer.stdout.trim().split('\n').pop()),
      load_average_1min: load,
    };
    console.log(name, JSON.stringify(cases[name]));
  }
  result = {
    quick: QUICK,
    exact_rows: Number(process.env.MITATE_TSAD_STREAM_EXACT_ROWS ?? 1000),
    load_average_at_start: startLoad,
    load_average_at_end: os.loadavg().map((v) => Math.round(v * 100) / 100),
    note: 'One-row JSON stream requests on loopback, sequential per series (a series\' rows must come in order), from this process; 2 Python serving processes. A stream request sends the series\' kept rows to a serving process with the new row and scores them all (engine/mitate_engine/platform/timeseries.py), so its cost grows with the rows kept: the series is kept whole up to MITATE_TSAD_STREAM_EXACT_ROWS (1000; answers then equal the whole block), then only the rows the next score needs (history_only). Peer: the same model.joblib in a Python loop, TsadModel.predict on the last history_rows + 1 + 20 rows per new row (keep), no HTTP; block_rows_per_s: the whole table in one predict call. The machine is shared (2 cores): see load_average_1min.',
    cases,
  };
} finally {
  for (const line of server.log().split('\n')) if (/serving process/.test(line)) console.error(line.slice(0, 400));
  await server.stop();
}
if (result) writeResult('tsad_serving', result);
