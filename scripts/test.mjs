#!/usr/bin/env node
// Runs every suite (server, web, engine, end-to-end) and ends with one line CI reads: "N passed, N failed".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-tests-'));

function exec(cmd, argv, cwd, env = {}) {
  return new Promise((resolve) => {
    let out = '';
    const p = spawn(cmd, argv, { cwd, env: { ...process.env, FORCE_COLOR: '0', CI: process.env.CI ?? 'true', ...env } });
    p.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    p.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    p.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

const vitestCounts = (file) => {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    return { passed: j.numPassedTests, failed: j.numFailedTests + (j.success || j.numFailedTests ? 0 : 1) };
  } catch {
    return null;
  }
};

/** A check that passes or fails as a whole counts as one test. */
const check = (name, cmd, argv, cwd) => ({
  name,
  async run() {
    const r = await exec(cmd, argv, path.join(root, cwd));
    return { ...r, counts: r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 } };
  },
});
const py = path.join(root, '.venv', 'bin', 'python');
const pyTargets = ['engine', 'bench', 'scripts'];

const suites = [
  check('openapi', 'npx', ['tsx', 'scripts/openapi.ts', '--check'], 'server'),
  check('tsc-server', 'npx', ['tsc', '--noEmit'], 'server'),
  check('tsc-web', 'npx', ['tsc', '--noEmit'], 'web'),
  check('tsc-e2e', 'npx', ['tsc', '--noEmit'], 'e2e'),
  check('eslint-web', 'npx', ['eslint', '.'], 'web'),
  check('ruff', py, ['-m', 'ruff', 'check', ...pyTargets], '.'),
  check('ruff-format', py, ['-m', 'ruff', 'format', '--check', ...pyTargets], '.'),
  {
    name: 'server',
    async run() {
      const json = path.join(tmp, 'server.json');
      const r = await exec('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], path.join(root, 'server'));
      return { ...r, counts: vitestCounts(json) };
    },
  },
  {
    // Issue 16: the storage-touching server files once more with object storage (moto's S3 server), on SQLite only
    // (the databases are covered above): upload, preprocessing, training and prediction, time series, images.
    name: 'server-s3',
    async run() {
      const json = path.join(tmp, 'server-s3.json');
      const files = ['datasets', 'preprocessing', 'training', 'timeseries', 'images'].map((f) => `test/${f}.test.ts`);
      const r = await exec('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, ...files], path.join(root, 'server'), {
        MITATE_TEST_S3: '1',
        TEST_DATABASE_URL: '',
        TEST_REDIS_URL: '',
      });
      return { ...r, counts: vitestCounts(json) };
    },
  },
  {
    name: 'web',
    async run() {
      const json = path.join(tmp, 'web.json');
      const r = await exec('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], path.join(root, 'web'));
      return { ...r, counts: vitestCounts(json) };
    },
  },
  {
    name: 'engine',
    async run() {
      const r = await exec(path.join(root, '.venv', 'bin', 'python'), ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], path.join(root, 'engine'));
      const line = r.out.split('\n').reverse().find((l) => /\b(passed|failed|error)/.test(l) && /=|in \d/.test(l)) ?? '';
      const n = (w) => Number(new RegExp(`(\\d+) ${w}`).exec(line)?.[1] ?? 0);
      return { ...r, counts: line ? { passed: n('passed'), failed: n('failed') + n('error') } : null };
    },
  },
  // The API against its own OpenAPI document (no 5xx, answers as declared).
  check('schemathesis', 'node', ['scripts/schemathesis.mjs'], '.'),
  {
    // The first-route bundle budget (issue 19), from the web build that set-up made.
    name: 'bundle',
    async run() {
      const r = await exec('node', [path.join(root, 'scripts', 'bundle-budget.mjs')], root);
      const m = /bundle: (\d+) passed, (\d+) failed/.exec(r.out);
      return { ...r, counts: m ? { passed: Number(m[1]), failed: Number(m[2]) } : null };
    },
  },
  {
    name: 'e2e',
    async run() {
      const specs = fs.readdirSync(path.join(root, 'e2e', 'specs')).filter((f) => f.endsWith('.test.ts')).map((f) => `specs/${f}`);
      const r = await exec('node', ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...specs], path.join(root, 'e2e'));
      const n = (w) => Number(new RegExp(`ℹ ${w} (\\d+)`).exec(r.out)?.[1] ?? NaN);
      const counts = Number.isNaN(n('pass')) ? null : { passed: n('pass'), failed: n('fail') + (n('cancelled') || 0) };
      return { ...r, counts };
    },
  },
];

let passed = 0;
let failed = 0;
const summary = [];
for (const s of suites) {
  if (only.length && !only.includes(s.name)) continue;
  console.log(`\n===== ${s.name} =====`);
  const r = await s.run();
  // A suite that crashed before reporting counts as one failure, never as a pass.
  const c = r.counts ?? { passed: 0, failed: 1 };
  if (r.code !== 0 && c.failed === 0) c.failed = 1;
  passed += c.passed;
  failed += c.failed;
  summary.push(`${s.name}: ${c.passed} passed, ${c.failed} failed`);
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log('\n' + summary.join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
