// Issue 10 benchmark: on magnetic_tile_okng with a fixed split, image AUROC and F1 of PatchCore (OK images only), the
// fine-tuned EfficientNet-Lite0 classifier and the compact CNN, beside a scikit-learn baseline (logistic regression on
// 32×32 pixels) in the same run; training images per second and single-image prediction latency on CPU.
// Goals: PatchCore AUROC ≥ 0.95; prediction < 200 ms per image on 2 cores.  `--quick`: smaller images, fewer epochs.
// Issue 30: each model's miss and over-detection rates at the product's default threshold (metrics.default_threshold),
// beside the rule it replaced (best F1 on the lowest tied validation score) in the same run.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { PYTHON, writeResult } from './lib.mjs';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const t0 = Date.now();
// The models run one after another (one process each, same fixed split), so each one's latency and images/s are its
// own on the 2 cores. `--parallel` runs them side by side instead (quicker on a machine others are using, but then
// every figure of speed is measured while the peers also run).
const parallel = process.argv.includes('--parallel');
// --minutes N: a part still running after N minutes is stopped and recorded as unfinished (the others are kept).
const mi = process.argv.indexOf('--minutes');
const limitMs = mi > 0 ? Number(process.argv[mi + 1]) * 60_000 : 0;
const run = (part) =>
  new Promise((resolve, reject) => {
    const p = spawn(PYTHON, [path.join(import.meta.dirname, 'images_bench.py'), '--part', part, ...(quick ? ['--quick'] : [])]);
    let out = '';
    let err = '';
    const timer = limitMs ? setTimeout(() => p.kill('SIGTERM'), limitMs) : null;
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()));
      else reject(new Error(signal ? `not finished within ${limitMs / 60_000} min` : err.trim().split('\n').slice(-3).join(' ')));
    });
  });
const names = ['patchcore', 'finetune', 'compact_cnn', 'logreg_pixels'];
const settled = [];
if (parallel) settled.push(...(await Promise.allSettled(names.map(run))));
else for (const n of names) settled.push(...(await Promise.allSettled([run(n)])));
const parts = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
const res = {
  ...parts[0],
  load_average_start: parts.map((p) => p.load_average_start),
  load_average_end: parts.map((p) => p.load_average_end),
  models: Object.assign({}, ...parts.map((p) => p.models)),
  unfinished: Object.fromEntries(settled.flatMap((s, i) => (s.status === 'rejected' ? [[names[i], s.reason.message]] : []))),
};
const pc = res.models.patchcore ?? { auroc: NaN, latency: { median_ms: NaN, p95_ms: NaN } };
writeResult(quick ? 'images-quick' : 'images', {
  ...res,
  seconds: (Date.now() - t0) / 1000,
  parallel,
  note: parallel
    ? 'Models trained side by side: latencies and images/s were measured while the other models also ran (see load_average_start/end).'
    : 'Models trained one after another: each latency and images/s is measured with the machine to itself (see load_average_start/end).',
  default_threshold: Object.fromEntries(
    Object.entries(res.models)
      .filter(([, m]) => m.default_threshold)
      .map(([k, m]) => [k, { rule: m.default_threshold.rule, miss_rate: m.miss_rate, over_detection_rate: m.over_detection_rate, previous_rule: m.previous_rule, unseen_ng: m.unseen_ng ?? null }]),
  ),
  goals: {
    patchcore_auroc_ge_0_95: pc.auroc >= 0.95,
    patchcore_latency_median_lt_200ms: pc.latency.median_ms < 200,
    patchcore_latency_p95_lt_200ms: pc.latency.p95_ms < 200,
  },
});
