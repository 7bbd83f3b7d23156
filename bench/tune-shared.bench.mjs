// Issue 16 benchmark: auto-tune trials per minute of one training job on 1 and 2 worker processes sharing the Optuna
// study through PostgreSQL (TEST_DATABASE_URL or DATABASE_URL; skipped without one). `--quick` runs fewer trials.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { PYTHON, ROOT, writeResult } from './lib.mjs';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const pg = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || '';
if (!/^postgres/.test(pg)) {
  console.log('tune-shared: no PostgreSQL URL (TEST_DATABASE_URL or DATABASE_URL); skipped');
  process.exit(0);
}
const workers = process.env.BENCH_TUNE_WORKERS || (os.cpus().length >= 4 ? '1,2,4' : '1,2');
const r = spawnSync(PYTHON, [path.join(ROOT, 'bench', 'tune_shared_bench.py'), path.join(ROOT, 'engine'), pg, quick ? '12' : '40', workers], {
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
const result = JSON.parse(r.stdout.trim().split('\n').pop());
const one = result.runs.find((x) => x.workers === 1);
for (const x of result.runs) x.speed_up = one ? Math.round((x.trials_per_minute / one.trials_per_minute) * 100) / 100 : null;
writeResult('tune-shared', { quick, cores: os.cpus().length, ...result });
