// Issue 34 benchmark: training that scales with the data. The 10 M-row bench table (benchCsv), defaults, one
// LightGBM, target `signal`, 7 inputs incl. the text columns `status` and `line`; through the product (real server and
// its engine workers: upload, project, Train → done with its report; then a prediction job on the same rows) against a
// hand-written pandas + LightGBM script (the peer) in the same run. Peak memory of the product is the engine workers'
// resident memory sampled every 200 ms while the job runs; the peer's is its own ru_maxrss. The engine's per-step
// profile (report.json "profile") is copied into the JSON.
// Arguments: --rows=1000000 (default 10,000,000) for a quicker run; results go to training_scale.json, or to
// training_scale-<rows>.json when --rows is given. --predict=no leaves out the prediction job (and the second upload);
// --peer=no leaves out the peer (the product alone, e.g. when the machine is too busy for both in the time there is).
// From 20 M rows the peer runs under an address-space limit of --peer-memory-gb (default 12) so that a table it cannot
// hold fails it with MemoryError (recorded: "the peer does not fit") instead of pushing a shared machine into swap.
// The machine's load average is recorded at the start and sampled during training: time figures on a loaded machine
// are inflated, memory figures are not.
// For a run that may not end in the time there is (100 M rows on a shared machine): --peer=alongside runs the peer at
// the same time as the product instead of before it (each inflates the other's time, not its memory);
// --predict-on=training predicts the training dataset's rows (the same rows) instead of uploading the file a second
// time. The result file is written after each stage with `stage_reached`, so a run stopped part-way leaves its figures.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PYTHON, arg, benchCsv, engineRss, fetchOnceMoreOnFailure, logIn, python, signUp, startServer, writeResult } from './lib.mjs';

fetchOnceMoreOnFailure();
const ROWS = Number(arg('rows', 10_000_000));
const PREDICT = arg('predict', 'yes') !== 'no';
const PREDICT_ON_TRAINING = arg('predict-on', 'upload') === 'training';
const PEER_MODE = arg('peer', 'yes'); // yes (before the product), alongside (at the same time) or no
const PEER_CAP_GB = ROWS >= 20_000_000 ? Number(arg('peer-memory-gb', 12)) : null;
const loadStart = os.loadavg();
const FEATURES = ['temperature', 'pressure', 'humidity', 'counter', 'vibration', 'status', 'line'];
const TARGET = 'signal';
let peer = { fits: null, skipped: 'not run in this run (--peer=no)' };
let alongside = null; // the peer's child process with --peer=alongside
const NAME = process.argv.some((a) => a.startsWith('--rows=')) ? `training_scale-${ROWS}` : 'training_scale';
const product = {}; // filled stage by stage
/** The result file as far as the run got (`stage_reached`); written again after each stage and at the end. */
const save = (stage) => {
  const ratio = (a, b) => (a && b && peer.fits ? a / b : null); // no ratio to a peer that did not fit or did not run
  writeResult(NAME, {
    rows: ROWS,
    stage_reached: stage,
    // the engine's settings this run changed (given to the bench, they reach the server and its engine workers)
    settings: Object.fromEntries(['MITATE_ML_STREAM_ROWS', 'MITATE_ML_THREADS', 'MITATE_WORKERS'].map((k) => [k, process.env[k] ?? 'default'])),
    options: { peer: PEER_MODE, predict: PREDICT ? (PREDICT_ON_TRAINING ? 'on the training dataset' : 'on a second upload') : 'no' },
    load_average_at_start: loadStart,
    load_average_at_end: os.loadavg(),
    features: FEATURES,
    target: TARGET,
    peer,
    product,
    ratios: {
      time: ratio(product.train_s, peer.seconds),
      memory: ratio(product.train_peak_engine_mb, peer.peak_rss_mb),
      predict: ratio(product.predict_s, peer.predict_all_s),
    },
    goals: ROWS >= 100_000_000 ? { memory: 'engine peak < 8 GB', time: 'reported beside the peer' } : { time: '≤ 2× peer', memory: '≤ 1.5× peer', predict: '≤ 1.5× peer predict' },
  });
};

let stage = 'generating the table (benchCsv)';
let server = null;
// stopped from outside (a deadline): the file says which stage was running, with the figures so far
process.once('SIGTERM', () => {
  alongside?.child.kill('SIGTERM');
  save(`stopped (SIGTERM) during: ${stage}`);
  // exit() would wait for a DuckDB COPY still writing the table (its .part file stays, never taken for the table)
  if (!server) process.kill(process.pid, 'SIGKILL');
  server.stop().finally(() => process.exit(143));
});
const csv = await benchCsv(ROWS);
stage = PEER_MODE === 'yes' ? 'the peer (before the product)' : 'starting the server';

// ---- the peer: pandas read_csv of the 8 columns, categories, the same 85/15 split, LGBMRegressor(n_jobs=1) ----------

const PEER_CODE = String.raw`
import json, resource, sys, time
cap = float(sys.argv[2]) if len(sys.argv) > 2 else 0
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (int(cap * 2**30), int(cap * 2**30)))
import numpy as np, pandas as pd
from lightgbm import LGBMRegressor
from sklearn.model_selection import train_test_split
t0 = time.perf_counter()
step = "read"
try:
    cols = ${JSON.stringify([...FEATURES, TARGET])}
    df = pd.read_csv(sys.argv[1], usecols=cols, dtype={"status": "category", "line": "category"})
    t_read = time.perf_counter() - t0
    step = "fit"
    X, y = df[${JSON.stringify(FEATURES)}], df["${TARGET}"].to_numpy()
    tr, te = train_test_split(np.arange(len(df)), train_size=0.85, random_state=0, shuffle=True)
    m = LGBMRegressor(n_jobs=1, verbose=-1).fit(X.iloc[tr], y[tr])
    p = m.predict(X.iloc[te])
    r2 = 1 - ((y[te] - p) ** 2).sum() / ((y[te] - y[te].mean()) ** 2).sum()
    seconds = time.perf_counter() - t0
    step = "predict"
    t1 = time.perf_counter()
    m.predict(X)
    predict_s = time.perf_counter() - t1
except (MemoryError, Exception) as exc:  # the table does not fit under the cap (LightGBM says std::bad_alloc)
    print(json.dumps({"fits": False, "cap_gb": cap or None, "failed_at": step, "error": f"{type(exc).__name__}: {exc}"[:300],
                      "seconds_until_failure": time.perf_counter() - t0,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    sys.exit(0)
print(json.dumps({"fits": True, "cap_gb": cap or None, "seconds": seconds, "read_s": t_read, "predict_all_s": predict_s, "r2": float(r2),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rows": len(df)}))`;
const peerArgs = PEER_CAP_GB ? [csv, String(PEER_CAP_GB)] : [csv];

/** The peer as a child process running beside the product: its result line when it ends. */
function peerAlongside() {
  const child = spawn(PYTHON, ['-c', PEER_CODE, ...peerArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const done = new Promise((resolve) =>
    child.on('close', (code) => {
      try {
        resolve({ ...JSON.parse(out.trim().split('\n').pop()), ran: 'alongside the product' });
      } catch {
        resolve({ fits: null, error: `the peer ended with ${code}: ${err.slice(-300)}`, ran: 'alongside the product' });
      }
    }),
  );
  return { child, done };
}

alongside = PEER_MODE === 'alongside' ? peerAlongside() : null;
if (alongside) {
  peer = { fits: null, running: 'alongside the product; not ended when this file was written' };
  alongside.done.then((r) => ((peer = r), console.log('peer', r)));
} else if (PEER_MODE !== 'no') {
  peer = python(PEER_CODE, peerArgs);
  console.log('peer', peer);
}

// ---- the product ---------------------------------------------------------------------------------------------

server = await startServer({ MITATE_MAX_UPLOAD_MB: String(Math.max(4096, Math.ceil((ROWS * 110) / 1e6))) });
stage = 'upload and ingest of the training dataset';
try {
  const email = `bench${Date.now()}@example.com`;
  const auth = await signUp(server.url, email);
  // tokens last 15 minutes and a 100 M-row upload outlasts them: a new one every 10 minutes
  let tokenAt = Date.now();
  const fresh = async () => {
    if (Date.now() - tokenAt > 600_000) (auth.authorization = await logIn(server.url, email)), (tokenAt = Date.now());
    return auth;
  };
  const post = async (url, body) =>
    fetch(`${server.url}${url}`, { method: 'POST', headers: { ...(await fresh()), 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }).then((r) => r.json());
  const get = async (url) => fetch(`${server.url}${url}`, { headers: await fresh() }).then((r) => r.json());
  const upload = async (name, dataType) => {
    await fresh(); // a token that lasts the upload (curl sends it once, at the start)
    const out = execFileSync('curl', ['-sS', '-X', 'POST', `${server.url}/api/dataset/register`, '-H', `authorization: ${auth.authorization}`, '-F', `name=${name}`,
      '-F', `data_type=${dataType}`, '-F', 'type=supervised', '-F', 'training_type=regression', '-F', `file=@${csv};type=text/csv`], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const ds = JSON.parse(out).detail?.response;
    if (!ds?.id) throw new Error(out);
    return ds;
  };
  // the server's own account of a registration (upload, CSV to Parquet, statistics), the last one logged
  const ingestLog = () => server.log().split('\n').filter((l) => l.includes(' registered: ')).pop() ?? null;
  const t_up = performance.now();
  const ds = await upload('bench scale', 'training_data');
  product.upload_s = (performance.now() - t_up) / 1000;
  product.ingest_server_log = ingestLog();
  save('uploaded');
  stage = 'statistics of the training dataset';
  // let a dataset's statistics job end before timing (it runs on an engine worker)
  const statistics = async (id) => {
    const t = performance.now();
    for (let i = 0; i < 4800; i++) {
      const j = (await post(`/api/statistics/result/${id}`)).detail.response;
      if (!['queued', 'running'].includes(j.state)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    return (performance.now() - t) / 1000;
  };
  product.statistics_wait_s = await statistics(ds.id);
  const p = (await post(`/api/regress/register/${ds.id}`, { name: 'scale', target_variables: [TARGET], feature_variables: FEATURES, models: [{ algorithm: 'lightgbm' }] })).detail.response;

  const watch = (until) => {
    let peak = 0;
    const loads = [];
    const base = new Map(engineRss(server.pid).map((r) => [r.pid, r.mb]));
    const timer = setInterval(() => {
      for (const r of engineRss(server.pid)) peak = Math.max(peak, r.mb);
    }, 200);
    const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
    return until()
      .finally(() => (clearInterval(timer), clearInterval(loadTimer)))
      .then((v) => ({ ...v, peak_mb: peak, idle_mb: Math.max(0, ...base.values()), load_1min: loads.length ? { min: Math.min(...loads), max: Math.max(...loads) } : null }));
  };

  stage = 'training';
  const t0 = performance.now();
  const train = await watch(async () => {
    await post(`/api/train/model/${p.project_id}`);
    const messages = [];
    product.progress_messages = messages; // so far, should the run be stopped
    let r;
    for (;;) {
      r = (await get(`/api/train/result/${p.project_id}`)).detail.response;
      const m = r.job?.message;
      if (m && messages[messages.length - 1] !== m) messages.push(m);
      if (r.training_state !== 'training' && !(r.models ?? []).some((x) => x.pending)) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    return { seconds: (performance.now() - t0) / 1000, state: r.training_state, model: r.models?.[0], messages };
  });
  if (!train.model) console.log('train: no model in the answer', JSON.stringify(train).slice(0, 2000));
  console.log(`train: ${train.state} in ${train.seconds.toFixed(1)} s, engine peak ${train.peak_mb.toFixed(0)} MB`);
  const reports = fs.readdirSync(server.dataDir, { recursive: true }).filter((f) => String(f).endsWith('report.json'));
  const report = reports.length ? JSON.parse(fs.readFileSync(path.join(server.dataDir, String(reports[0])), 'utf8')) : {};
  Object.assign(product, {
    train_s: train.seconds,
    train_state: train.state,
    train_peak_engine_mb: train.peak_mb,
    engine_idle_mb_before: train.idle_mb,
    load_1min_during_train: train.load_1min,
    r2_test: train.model?.metrics?.r2 ?? report.metrics?.r2 ?? null,
    profile: report.profile ?? null,
    sampling: report.sampling ?? null,
    progress_messages: train.messages.slice(0, 60),
  });
  save('trained');
  stage = 'prediction';

  const inf = !PREDICT ? null : PREDICT_ON_TRAINING ? ds : await upload('bench scale inference', 'inference_data');
  if (inf && inf !== ds) await statistics(inf.id);
  product.predict_data = !inf ? null : inf === ds ? 'the training dataset (--predict-on=training)' : 'a second upload of the file as inference data';
  const t1 = performance.now();
  const pred = !inf ? { seconds: null, state: 'not run (--predict=no)', error: null, peak_mb: null } : await watch(async () => {
    const job = (await post(`/api/inference/execute/${p.project_id}/${train.model?.model_key}`, { dataset_id: inf.id, name: 'scale' })).detail.response;
    let r;
    for (;;) {
      r = (await get(`/api/inference/${job.id}`)).detail.response;
      if (!['queued', 'running'].includes(r.state)) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    return { seconds: (performance.now() - t1) / 1000, state: r.state, error: r.error ?? null };
  });
  console.log(`predict: ${pred.state} in ${pred.seconds?.toFixed(1)} s, engine peak ${pred.peak_mb?.toFixed(0)} MB`);
  Object.assign(product, { predict_s: pred.seconds, predict_state: pred.state, predict_error: pred.error, predict_peak_engine_mb: pred.peak_mb, load_1min_during_predict: pred.load_1min ?? null });
  save('predicted');
} finally {
  await server.stop();
}
if (alongside) {
  save('product done; the peer still running');
  await alongside.done;
}
save('done');
