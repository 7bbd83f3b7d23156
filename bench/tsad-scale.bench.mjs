// Issue 34, the other row-heavy jobs: on the 10 M-row bench table (benchCsv: `ts` a date-time, numeric signals),
// through the product's API (real server, its engine workers), beside a hand-written pandas/numpy/LightGBM script
// doing the same work in the same run:
//   (a) a time-series anomaly detector with the wizard's defaults (unsupervised; its time column, numeric signals,
//       the default normal period, the drift suggestion's default filled in, the catalogue's first detector) trained
//       to done;
//   (b) a preprocessing recipe the wizard offers (mean fill, IQR clip, standard scaling) applied and registered as a
//       new dataset, then one LightGBM (target `signal`, the 7 inputs of training-scale) trained on it to done.
// Recorded: time, the engine workers' peak resident memory (sampled every 200 ms), the engine's per-step profile,
// the progress messages seen, the 1-minute load average (time figures on a loaded machine are inflated, memory not).
// Arguments: --rows=1000000 (default 10,000,000): results go to tsad_scale.json, or tsad_scale-<rows>.json;
// --only=tsad|preprocess runs one of the two; --peer=no leaves the peers out; --windows=10 sets the detector's trailing
// windows (all four statistics of each) in place of the default; --drift=no leaves the drift suggestion out (the
// settings of the earlier 10 M runs, where it had failed; at 10 M rows it now suggests a change over more rows than
// the project's schema takes); --name=<suffix> is added to the result's name.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, benchCsv, engineRss, fetchOnceMoreOnFailure, logIn, peakRssMb, python, signUp, startServer, writeResult } from './lib.mjs';

fetchOnceMoreOnFailure();
const ROWS = Number(arg('rows', 10_000_000));
const ONLY = arg('only', 'both');
const PEERS = arg('peer', 'yes') !== 'no';
// --windows=10,60: trailing windows (all four statistics) in place of the wizard's default (none unless a signal drifts)
const WINDOWS = arg('windows', null)?.split(',').map(Number) ?? null;
const DRIFT = arg('drift', 'yes') !== 'no';
const loadStart = os.loadavg();
const csv = await benchCsv(ROWS);
const FEATURES = ['temperature', 'pressure', 'humidity', 'counter', 'vibration', 'status', 'line'];
const TARGET = 'signal';
const RECIPE = [
  { process_type: 'missing', method: 'mean', columns: ['temperature', 'pressure', 'humidity', 'vibration'] },
  { process_type: 'outliers', method: 'iqr', columns: ['pressure', 'vibration'], params: { action: 'clip', k: 1.5 } },
  { process_type: 'scaling', method: 'standard', columns: ['temperature', 'pressure', 'humidity', 'vibration'] },
];

// ---- the peers ------------------------------------------------------------------------------------------------

/** The detector by hand: read the time column and the signals, sort, the same features (the drifting signals'
 * change over L rows, the others' level and trailing windows), PCA (T² and Q, limits at 99 %) fitted on the normal
 * period's first 70 %, the threshold on its held-back rest, every row scored and the scores written to Parquet. */
const tsadPeer = String.raw`
import json, resource, sys, time
import numpy as np, pandas as pd
from scipy import stats
cfg = json.loads(sys.argv[2])
t0 = time.perf_counter(); prof = {}
df = pd.read_csv(sys.argv[1], usecols=[cfg["time"], *cfg["signals"]], parse_dates=[cfg["time"]])
df = df.sort_values(cfg["time"], kind="stable").reset_index(drop=True)
prof["read_s"] = time.perf_counter() - t0; t = time.perf_counter()
cols = {}
for c in cfg["signals"]:
    s = df[c].astype("float64")
    if c in cfg["drift"]:
        cols[c + "_chg"] = s - s.shift(cfg["drift_rows"]); continue
    cols[c] = s
    for w in cfg["windows"]:
        r = s.rolling(w, min_periods=w)
        for st in ("mean", "std", "min", "max"):
            cols[f"{c}_{st}{w}"] = getattr(r, st)()
F = pd.DataFrame(cols).ffill().to_numpy()
warm = max([0, cfg["drift_rows"], *[w - 1 for w in cfg["windows"]]])
prof["features_s"] = time.perf_counter() - t; t = time.perf_counter()
normal = np.arange(warm, cfg["normal_rows"])
k = int(np.floor(len(normal) * 0.3 + 0.5))
fit, held = normal[: len(normal) - k], normal[len(normal) - k :]
X = F[fit]
mu, sd = X.mean(0), X.std(0, ddof=1); sd[sd == 0] = 1
Z = (X - mu) / sd
lam, vec = np.linalg.eigh(Z.T @ Z / (len(Z) - 1)); o = np.argsort(lam)[::-1]; lam, vec = np.clip(lam[o], 0, None), vec[:, o]
a = min(max(1, int((lam > 1).sum())), len(lam) - 1); P = vec[:, :a]; n = len(Z)  # Kaiser: eigenvalues over 1
t2lim = a * (n - 1) * (n + 1) / (n * (n - a)) * stats.f.ppf(0.99, a, n - a)
th = [float(np.sum(lam[a:] ** i)) for i in (1, 2, 3)]; h0 = 1 - 2 * th[0] * th[2] / (3 * th[1] ** 2) if th[1] > 0 else 1.0
qlim = th[0] * (stats.norm.ppf(0.99) * np.sqrt(2 * th[1] * h0 ** 2) / th[0] + 1 + th[1] * h0 * (h0 - 1) / th[0] ** 2) ** (1 / h0) if th[1] > 0 else np.inf
prof["fit_s"] = time.perf_counter() - t; t = time.perf_counter()
score = np.empty(len(F))
for i in range(0, len(F), 1_000_000):
    Zi = (F[i : i + 1_000_000] - mu) / sd; T = Zi @ P; E = Zi - T @ P.T
    score[i : i + 1_000_000] = np.maximum((T ** 2 / lam[:a]).sum(1) / t2lim, (E ** 2).sum(1) / qlim)
score[:warm] = np.nan
threshold = float(np.quantile(score[held], 0.99))
prof["score_s"] = time.perf_counter() - t; t = time.perf_counter()
pd.DataFrame({"time": df[cfg["time"]].to_numpy(), "score": score}).to_parquet(sys.argv[3])
prof["write_s"] = time.perf_counter() - t
print(json.dumps({"seconds": time.perf_counter() - t0, "profile": prof, "features": F.shape[1], "components": a, "threshold": threshold,
                  "alarm_share": float(np.nanmean(score > threshold)), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))`;

/** The recipe and the fit by hand: read the inputs and the target, the same three steps, the 85/15 split, LightGBM. */
const preprocessPeer = String.raw`
import json, resource, sys, time
import numpy as np, pandas as pd
from lightgbm import LGBMRegressor
from sklearn.model_selection import train_test_split
t0 = time.perf_counter(); prof = {}
feats, target = ${JSON.stringify(FEATURES)}, "${TARGET}"
df = pd.read_csv(sys.argv[1], usecols=[*feats, target], dtype={"status": "category", "line": "category"})
prof["read_s"] = time.perf_counter() - t0; t = time.perf_counter()
num = ["temperature", "pressure", "humidity", "vibration"]
df[num] = df[num].fillna(df[num].mean())
for c in ("pressure", "vibration"):
    q1, q3 = df[c].quantile([0.25, 0.75]); df[c] = df[c].clip(q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1))
df[num] = (df[num] - df[num].mean()) / df[num].std(ddof=0)
prof["steps_s"] = time.perf_counter() - t; t = time.perf_counter()
X, y = df[feats], df[target].to_numpy()
tr, te = train_test_split(np.arange(len(df)), train_size=0.85, random_state=0, shuffle=True)
m = LGBMRegressor(n_jobs=1, verbose=-1).fit(X.iloc[tr], y[tr])
p = m.predict(X.iloc[te])
prof["fit_s"] = time.perf_counter() - t
r2 = 1 - ((y[te] - p) ** 2).sum() / ((y[te] - y[te].mean()) ** 2).sum()
print(json.dumps({"seconds": time.perf_counter() - t0, "profile": prof, "r2": float(r2), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))`;

// ---- the product ----------------------------------------------------------------------------------------------

const server = await startServer({ MITATE_MAX_UPLOAD_MB: String(Math.max(4096, Math.ceil((ROWS * 110) / 1e6))) });
const out = { rows: ROWS, load_average_at_start: loadStart };
try {
  const email = `bench${Date.now()}@example.com`;
  const auth = await signUp(server.url, email);
  // tokens last 15 minutes and a 10 M-row run outlasts them: a new one every 10 minutes
  let tokenAt = Date.now();
  const call = async (method, url, body) => {
    if (Date.now() - tokenAt > 600_000) (auth.authorization = await logIn(server.url, email)), (tokenAt = Date.now());
    const r = await fetch(`${server.url}${url}`, { method, headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const b = await r.json();
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(b).slice(0, 2000)}`);
    return b.detail.response;
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const waitJob = async (id) => {
    for (;;) {
      const j = await call('GET', `/api/jobs/${id}`);
      if (!['queued', 'running'].includes(j.state)) return j;
      await sleep(250);
    }
  };
  /** Runs `until` while sampling the engine workers' memory (200 ms) and the load average (10 s). */
  const watch = async (until) => {
    let peak = 0;
    const loads = [os.loadavg()[0]];
    const timer = setInterval(() => {
      for (const r of engineRss(server.pid)) peak = Math.max(peak, r.mb);
    }, 200);
    const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
    const t0 = performance.now();
    try {
      const v = await until();
      return { ...v, seconds: (performance.now() - t0) / 1000, peak_engine_mb: peak, load_1min: { min: Math.min(...loads), max: Math.max(...loads) } };
    } finally {
      clearInterval(timer);
      clearInterval(loadTimer);
    }
  };
  // the dataset's statistics job is not what is measured and must not share the machine with it: stopped
  const stopStatistics = async (ds) => {
    const id = ds.statistics?.job_id;
    if (!id) return;
    await call('POST', `/api/jobs/${id}/cancel`).catch(() => null);
    await waitJob(id);
  };
  const reportOf = (dir) => {
    const files = fs.readdirSync(server.dataDir, { recursive: true }).map(String).filter((f) => f.endsWith('report.json') && f.includes(dir));
    return files.length ? JSON.parse(fs.readFileSync(path.join(server.dataDir, files[0]), 'utf8')) : {};
  };
  console.log('uploading ...');
  const t_up = performance.now();
  const upload = execFileSync('curl', ['-sS', '-X', 'POST', `${server.url}/api/dataset/register`, '-H', `authorization: ${auth.authorization}`, '-F', 'name=bench ts', '-F', 'data_type=training_data',
    '-F', 'type=supervised', '-F', 'training_type=regression', '-F', 'datetime_column=ts', '-F', `file=@${csv};type=text/csv`], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const ds = JSON.parse(upload).detail.response;
  if (!ds?.id) throw new Error(upload);
  out.upload_s = (performance.now() - t_up) / 1000;
  await stopStatistics(ds);

  if (ONLY !== 'preprocess') {
    console.log('time-series detector ...');
    // the wizard: time column = the dataset's date-time column, signals = its numeric columns, the default normal
    // period, the drift suggestion's default (when a signal drifts), the catalogue's first detector ticked
    const t_w = performance.now();
    const detail = await call('GET', `/api/dataset/${ds.id}/true`);
    const time = detail.datetime_column ?? 'ts';
    const signals = detail.columns.filter((c) => ['integer', 'float'].includes(c.type) && c.name !== time && !/^(anomaly|label|fault|changepoint)$/i.test(c.name)).map((c) => c.name);
    const normal = await call('GET', `/api/timeseries/normal/default/${ds.id}?time_column=${time}`);
    const t_s = performance.now();
    const type = 'time_series_anomaly_detection_unsupervised';
    // the wizard asks for it and goes on without it when it fails (e.g. 504 when it outlasts its time limit)
    const suggestion = await call('POST', `/api/timeseries/drift/suggest/${ds.id}`, { project_type: type, time_column: time, feature_variables: signals, resample: null, normal: { mode: 'rows', rows: normal.rows }, split_ratio: 0.7 }).catch(
      (e) => ({ failed: String(e).slice(0, 300), drift_signals: [], defaults: null }),
    );
    const suggestS = (performance.now() - t_s) / 1000;
    const algorithm = (await call('GET', '/api/timeseries/catalogue')).unsupervised[0].key;
    const d = DRIFT && suggestion.defaults && suggestion.drift_signals.length ? suggestion : null;
    const settings = {
      time, signals, normal_rows: normal.rows, algorithm,
      drift: d ? suggestion.drift_signals : [], drift_rows: d ? suggestion.drift_rows : 0, windows: WINDOWS ?? (d ? d.defaults.windows : []),
      alarm: d ? { alarm_k: d.defaults.alarm_k, alarm_n: d.defaults.alarm_n } : {},
    };
    const project = await call('POST', `/api/timeseries/register/${ds.id}`, {
      name: 'bench ts', project_type: type, time_column: time, feature_variables: signals, target_variables: [], lags: [], windows: settings.windows, resample: null,
      window_stats: ['mean', 'std', 'min', 'max'], drift_signals: settings.drift, drift_rows: d ? settings.drift_rows : null, normal: { mode: 'rows', rows: normal.rows }, split_ratio: 0.7,
      models: [{ algorithm, params: settings.alarm }],
    });
    const pid = project.project_id ?? project.id;
    const wizardS = (performance.now() - t_w) / 1000;
    console.log('settings', settings);
    const train = await watch(async () => {
      await call('POST', `/api/timeseries/train/model/${pid}`, {});
      const messages = [];
      let r;
      for (;;) {
        r = await call('GET', `/api/timeseries/train/result/${pid}`);
        const m = r.job?.message ?? r.progress?.message;
        if (m && messages[messages.length - 1] !== m) messages.push(m);
        if (r.training_state !== 'training' && !(r.models ?? []).some((x) => x.pending || x.state === 'running' || x.state === 'queued')) break;
        await sleep(250);
      }
      return { state: r.training_state, model: r.models?.[0], messages };
    });
    console.log(`tsad: ${train.state} in ${train.seconds.toFixed(1)} s, engine peak ${train.peak_engine_mb.toFixed(0)} MB`);
    const report = reportOf(pid);
    // the report page's first calls (the score over time, the metrics at the threshold in force), timed one after
    // the other as the page makes them, with the server's own peak memory (it reads series.parquet for them)
    const key = train.model?.model_key ?? train.model?.key;
    const pageCalls = {};
    for (const [name, url] of [['series', `/api/timeseries/series/${pid}/${key}?points=1000`], ['threshold', `/api/timeseries/threshold/${pid}/${key}`], ['report', `/api/timeseries/report/${pid}`]]) {
      const t = performance.now();
      const ok = await (name === 'report' ? call('POST', url, { model_key: key }) : call('GET', url)).then(() => true, (e) => String(e).slice(0, 300));
      pageCalls[name] = { ms: performance.now() - t, ok };
    }
    // the server may not have survived them (a 10 M-row series read into JS values ran it out of heap before)
    try {
      pageCalls.server_peak_rss_mb = peakRssMb(server.pid);
    } catch {
      pageCalls.server_peak_rss_mb = null;
      pageCalls.server_exited = true;
    }
    out.tsad = {
      report_page_calls: pageCalls,
      settings,
      wizard_s: wizardS,
      drift_suggest_s: suggestS,
      drift_suggest_failed: suggestion.failed ?? null,
      drift_suggestion: { signals: suggestion.drift_signals, rows: suggestion.drift_rows ?? null, applied: !!d },
      train_s: train.seconds,
      state: train.state,
      model_state: train.model?.state,
      error: train.model?.error ?? null,
      peak_engine_mb: train.peak_engine_mb,
      load_1min: train.load_1min,
      metrics: train.model?.metrics ?? null,
      profile: report.profile ?? null,
      sampling: report.sampling ?? null,
      progress_messages: train.messages.slice(0, 60),
    };
    if (PEERS) {
      const cfg = { time, signals, normal_rows: normal.rows, drift: settings.drift, drift_rows: settings.drift_rows, windows: settings.windows };
      out.tsad.peer = python(tsadPeer, [csv, JSON.stringify(cfg), path.join(server.dataDir, 'peer-scores.parquet')]);
      console.log('tsad peer', out.tsad.peer);
      out.tsad.ratios = { time: out.tsad.train_s / out.tsad.peer.seconds, memory: out.tsad.peak_engine_mb / out.tsad.peer.peak_rss_mb };
    }
  }

  if (ONLY !== 'tsad') {
    console.log('preprocessing ...');
    const pre = await watch(async () => {
      const run = await call('POST', `/api/preprocess/dataset/${ds.id}`, { steps: RECIPE });
      let s;
      for (;;) {
        s = await call('GET', `/api/preprocess/result/${run.temp_id}`);
        if (!['queued', 'running'].includes(s.state)) break;
        await sleep(250);
      }
      if (s.state !== 'succeeded') throw new Error(`preprocessing ${s.state}: ${s.error}`);
      const registered = await call('POST', `/api/new_dataset/register/${run.temp_id}`, { name: 'bench preprocessed' });
      return { state: s.state, timings: s.result?.timings ?? null, dataset: registered };
    });
    await stopStatistics(pre.dataset);
    console.log(`preprocess: ${pre.state} in ${pre.seconds.toFixed(1)} s, engine peak ${pre.peak_engine_mb.toFixed(0)} MB`);
    const p = await call('POST', `/api/regress/register/${pre.dataset.id}`, { name: 'bench preprocessed', target_variables: [TARGET], feature_variables: FEATURES, models: [{ algorithm: 'lightgbm' }] });
    const train = await watch(async () => {
      await call('POST', `/api/train/model/${p.project_id}`, {});
      const messages = [];
      let r;
      for (;;) {
        r = await call('GET', `/api/train/result/${p.project_id}`);
        const m = r.job?.message;
        if (m && messages[messages.length - 1] !== m) messages.push(m);
        if (r.training_state !== 'training' && !(r.models ?? []).some((x) => x.pending)) break;
        await sleep(250);
      }
      return { state: r.training_state, model: r.models?.[0], messages };
    });
    console.log(`preprocessed training: ${train.state} in ${train.seconds.toFixed(1)} s, engine peak ${train.peak_engine_mb.toFixed(0)} MB`);
    const report = reportOf(p.project_id);
    out.preprocess_then_train = {
      recipe: RECIPE,
      preprocess_s: pre.seconds,
      preprocess_peak_engine_mb: pre.peak_engine_mb,
      preprocess_profile: pre.timings,
      train_s: train.seconds,
      train_state: train.state,
      train_peak_engine_mb: train.peak_engine_mb,
      total_s: pre.seconds + train.seconds,
      peak_engine_mb: Math.max(pre.peak_engine_mb, train.peak_engine_mb),
      load_1min: { preprocess: pre.load_1min, train: train.load_1min },
      r2_test: train.model?.metrics?.r2 ?? report.metrics?.r2 ?? null,
      train_profile: report.profile ?? null,
      sampling: report.sampling ?? null,
      progress_messages: train.messages.slice(0, 60),
    };
    if (PEERS) {
      const peer = python(preprocessPeer, [csv]);
      console.log('preprocess peer', peer);
      out.preprocess_then_train.peer = peer;
      out.preprocess_then_train.ratios = { time: out.preprocess_then_train.total_s / peer.seconds, memory: out.preprocess_then_train.peak_engine_mb / peer.peak_rss_mb };
    }
  }
} finally {
  await server.stop();
}
out.load_average_at_end = os.loadavg();
out.goals = { time: '≤ 2× peer (the tabular training yardstick)', memory: '≤ 1.5× peer' };
const suffix = arg('name', '');
writeResult(`${process.argv.some((a) => a.startsWith('--rows=')) ? `tsad_scale-${ROWS}` : 'tsad_scale'}${suffix ? `-${suffix}` : ''}`, out);
