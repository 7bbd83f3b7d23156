// Issue 2 benchmark: ingest of a ~1 GB CSV (10 M rows × 12 numeric and text columns), upload to Parquet plus
// statistics, against pandas read_csv + describe on the same file in the same run; then the first preview page
// with its column statistics (p95 of 20 requests).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchCsv, fetchOnceMoreOnFailure, percentile, python, peakRssMb, signUp, startServer, writeResult } from './lib.mjs';

/** User + system CPU seconds a process has used so far (/proc, clock ticks of 1/100 s). */
const cpuSeconds = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

fetchOnceMoreOnFailure();

const ROWS = Number(process.env.BENCH_ROWS || 10_000_000);
const csv = await benchCsv(ROWS);

const sizeMb = fs.statSync(csv).size / 2 ** 20;
console.log(`file: ${sizeMb.toFixed(0)} MB`);

// Peer: pandas, in its own process, with its own peak memory.
const pandas = process.env.BENCH_SKIP_PEER ? { seconds: NaN, peak_rss_mb: NaN } : python(
  `import sys, time, json, resource, pandas as pd
t=time.perf_counter(); df=pd.read_csv(sys.argv[1]); d=df.describe(include='all'); s=time.perf_counter()-t
r=resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": s, "cpu_seconds": r.ru_utime + r.ru_stime, "peak_rss_mb": r.ru_maxrss/1024, "rows": len(df)}))`,
  [csv],
);
console.log('pandas', pandas);

const loadBefore = os.loadavg()[0];
// BENCH_SERVER_DIR: another checkout's server (a baseline), timed in the same conditions
const server = await startServer({ MITATE_MAX_UPLOAD_MB: '4096' }, process.env.BENCH_SERVER_DIR || undefined);
try {
  const auth = await signUp(server.url);
  // curl streams the file from disk as a browser would; the Node client would add its own cost to the figure.
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  const out = execFileSync('curl', ['-sS', '-X', 'POST', `${server.url}/api/dataset/register`, '-H', `authorization: ${auth.authorization}`,
    '-F', 'name=bench', '-F', 'data_type=training_data', '-F', 'type=supervised', '-F', 'training_type=regression', '-F', `file=@${csv};type=text/csv`], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  const body = JSON.parse(out);
  if (!body.detail?.response?.id) throw new Error(out);
  const ds = body.detail.response;
  const peak = peakRssMb(server.pid);
  const serverCpu = cpuSeconds(server.pid) - cpu0;
  const ingestMs = Number(/registered: .*? in (\d+) ms/.exec(server.log())?.[1] ?? NaN);
  const steps = /re-encoding (\d+) ms, CSV to Parquet (\d+) ms, statistics (\d+) ms/.exec(server.log());
  // issue 17: the conversion that ran while the upload streamed in (absent: the file was converted after the upload)
  const beside = /converted while receiving: (\d+) ms, (\d+) ms of it after the upload/.exec(server.log());
  const received = /upload received in (\d+) ms/.exec(server.log());
  const loadAfter = os.loadavg()[0];
  // The full statistics job (and the exploration sketch written in its pass) runs after the dataset is listed.
  const tListed = performance.now();
  let job;
  for (;;) {
    job = (await (await fetch(`${server.url}/api/statistics/result/${ds.id}`, { method: 'POST', headers: auth })).json()).detail.response;
    if (!['queued', 'running'].includes(job.state)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const statisticsJobS = (performance.now() - tListed) / 1000;
  const peakAfterJob = peakRssMb(server.pid);

  const times = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    const [a, b] = await Promise.all([
      fetch(`${server.url}/api/dataset/upload/${ds.id}?page=1&page_size=100`, { headers: auth }),
      fetch(`${server.url}/api/dataset/${ds.id}/false`, { headers: auth }),
    ]);
    await a.json();
    await b.json();
    times.push(performance.now() - t);
  }
  const p95 = percentile(times, 95);
  const speedup = pandas.seconds / seconds;
  // BENCH_RESULT_NAME: another result file, e.g. for a run with MITATE_STREAM_INGEST_MIN_MB=1000000 (conversion after the upload)
  writeResult(process.env.BENCH_RESULT_NAME || 'ingest', {
    stream_ingest_min_mb: process.env.MITATE_STREAM_INGEST_MIN_MB ?? 'default (16)',
    load_average_1min: { before: loadBefore, after_upload: loadAfter, cpus: os.cpus().length },
    file_mb: Math.round(sizeMb),
    rows: ds.row_count,
    columns: ds.column_count,
    mitate: {
      seconds_upload_to_parquet_and_statistics: seconds,
      of_which_parquet_and_statistics_s: ingestMs / 1000,
      server_cpu_seconds: serverCpu,
      peak_server_rss_mb: peak,
    },
    breakdown_s: {
      upload_received_and_request_overhead: seconds - ingestMs / 1000,
      // from the file part's first byte to its last one on disk (the conversion beside it slows it to its pace)
      upload_received_file_part: received ? Number(received[1]) / 1000 : null,
      converted_while_receiving: !!beside,
      csv_to_parquet_in_all: beside ? Number(beside[1]) / 1000 : steps ? Number(steps[2]) / 1000 : null,
      // after the upload: the wait for the conversion beside it (or the whole conversion) and the check of its types
      csv_to_parquet_after_upload: steps ? Number(steps[2]) / 1000 : null,
      quick_statistics_scan: steps ? Number(steps[3]) / 1000 : null,
    },
    after_listing: { statistics_job_with_exploration_sketch_s: statisticsJobS, state: job.state, peak_server_rss_mb_including_it: peakAfterJob },
    pandas: { seconds_read_csv_and_describe: pandas.seconds, cpu_seconds: pandas.cpu_seconds, peak_rss_mb: pandas.peak_rss_mb },
    // CPU time is what a loaded machine does not inflate: the work each side needs (ours runs on 2 threads).
    cpu_seconds_ratio_pandas_to_server: pandas.cpu_seconds / serverCpu,
    speedup_vs_pandas: speedup,
    first_preview_page_with_statistics_ms: { p50: percentile(times, 50), p95 },
    goals: { speedup_at_least_3: speedup >= 3, peak_server_memory_under_1536_mb: peak < 1536, preview_p95_under_300_ms: p95 < 300 },
  });
} finally {
  await server.stop();
}
