#!/usr/bin/env node
// Runs every suite (server, web, engine, end-to-end) and ends with one line CI reads: "N passed, N failed".
// Two lanes run side by side (a 2-core machine; most suites wait on a Python worker, a browser or a single-threaded
// compiler much of the time): the first lane streams its output, the other prints each suite's output whole when
// it ends. The queue is taken longest first (ESTIMATE_S below). Each summary line says how long its suite took, and
// a line per lane what it ran. MITATE_TEST_LANES=1 runs one suite at a time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-tests-'));
const lanes = process.env.MITATE_TEST_LANES === '1' ? 1 : 2;

/** Runs a command; `live` streams its output, otherwise the output is only collected (printed whole later). */
function exec(cmd, argv, cwd, live, env = {}) {
  return new Promise((resolve) => {
    let out = '';
    const p = spawn(cmd, argv, { cwd, env: { ...process.env, FORCE_COLOR: '0', CI: process.env.CI ?? 'true', ...env } });
    p.stdout.on('data', (d) => {
      out += d;
      if (live) process.stdout.write(d);
    });
    p.stderr.on('data', (d) => {
      out += d;
      if (live) process.stderr.write(d);
    });
    p.on('error', (e) => (out += `\n${e}\n`));
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

/** The first lines of a failure message: enough to see what broke when CI keeps only the end of the output. */
const firstLines = (text, n = 12) => String(text).split('\n').slice(0, n).map((l) => `      ${l}`).join('\n');

/** Each failed test of a vitest JSON report (file, full name, the start of its message), and files that failed to load. */
const vitestFailures = (file) => {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    const out = [];
    for (const t of j.testResults) {
      const name = path.relative(root, t.name);
      const failedTests = t.assertionResults.filter((a) => a.status === 'failed');
      for (const a of failedTests) out.push(`${name} > ${a.fullName}\n${firstLines(a.failureMessages.join('\n'))}`);
      if (!failedTests.length && t.status === 'failed') out.push(`${name}\n${firstLines(t.message)}`);
    }
    return out;
  } catch {
    return [];
  }
};

/** The slowest test files of a vitest JSON report, one line each (where CI time goes). */
const vitestSlowest = (file, n = 10) => {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    const files = j.testResults.map((t) => ({ name: path.relative(root, t.name), s: (t.endTime - t.startTime) / 1000 })).sort((a, b) => b.s - a.s);
    return `slowest files:\n${files.slice(0, n).map((f) => `  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`).join('\n')}\n`;
  } catch {
    return '';
  }
};

/** A workspace tool straight from node_modules/.bin (npx would start npm first for each one). */
const tool = (name, argv) => {
  const bin = path.join(root, 'node_modules', '.bin', name);
  return fs.existsSync(bin) ? [bin, argv] : ['npx', [name, ...argv]];
};

/** A check that passes or fails as a whole counts as one test. */
const check = (name, [cmd, argv], cwd) => ({
  name,
  async run(live) {
    const r = await exec(cmd, argv, path.join(root, cwd), live);
    return { ...r, counts: r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 } };
  },
});
const py = path.join(root, '.venv', 'bin', 'python');
const pyTargets = ['engine', 'bench', 'scripts'];

/** A vitest suite of the workspace `dir` (its name by default), optionally only some files, with extra environment. */
const vitest = (name, { dir = name, files = [], env = {} } = {}) => ({
  name,
  async run(live) {
    const json = path.join(tmp, `${name}.json`);
    const r = await exec(...tool('vitest', ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, ...files]), path.join(root, dir), live, env);
    const slowest = vitestSlowest(json);
    if (live) process.stdout.write(slowest);
    return { ...r, out: r.out + slowest, counts: vitestCounts(json), failures: vitestFailures(json) };
  },
});

/** Spec files of e2e/specs (sorted) that `pick(file, index among the non-walk files)` keeps, as one node:test run. */
const e2e = (name, pick) => ({
  name,
  async run(live) {
    const all = fs.readdirSync(path.join(root, 'e2e', 'specs')).filter((f) => f.endsWith('.test.ts')).sort();
    let i = 0;
    const specs = all.filter((f) => pick(f, f.startsWith('walk') ? -1 : i++)).map((f) => `specs/${f}`);
    if (!specs.length) return { code: 0, out: `${name}: no spec file\n`, counts: { passed: 0, failed: 0 } };
    const r = await exec('node', ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...specs], path.join(root, 'e2e'), live);
    const n = (w) => Number(new RegExp(`ℹ ${w} (\\d+)`).exec(r.out)?.[1] ?? NaN);
    const counts = Number.isNaN(n('pass')) ? null : { passed: n('pass'), failed: n('fail') + (n('cancelled') || 0) };
    // The spec reporter repeats each failure under "failing tests"; keep that part.
    const at = r.out.lastIndexOf('✖ failing tests');
    const failures = at >= 0 ? [firstLines(r.out.slice(at), 60)] : [];
    return { ...r, counts, failures };
  },
});

const suites = {
  openapi: check('openapi', tool('tsx', ['scripts/openapi.ts', '--check']), 'server'),
  'tsc-server': check('tsc-server', tool('tsc', ['--noEmit']), 'server'),
  'tsc-web': check('tsc-web', tool('tsc', ['--noEmit']), 'web'),
  'tsc-e2e': check('tsc-e2e', tool('tsc', ['--noEmit']), 'e2e'),
  'tsc-rules': check('tsc-rules', tool('tsc', ['--noEmit']), 'packages/rules'),
  'eslint-web': check('eslint-web', tool('eslint', ['.']), 'web'),
  'eslint-server': check('eslint-server', tool('eslint', ['.']), 'server'),
  'eslint-e2e': check('eslint-e2e', tool('eslint', ['.']), 'e2e'),
  // Dead code (knip for TypeScript, vulture for the engine): nothing beyond scripts/dead-code-baseline.json.
  'dead-code': check('dead-code', ['node', ['scripts/dead-code.mjs']], '.'),
  // Size (issue 32): no file over 600 lines, no function over 150, beyond scripts/size-baseline.json.
  size: check('size', ['node', ['scripts/measure-size.mjs']], '.'),
  // Area-level import cycles of the server (issue 32): none.
  cycles: check('cycles', ['node', ['scripts/area-cycles.mjs']], '.'),
  ruff: check('ruff', [py, ['-m', 'ruff', 'check', ...pyTargets]], '.'),
  'ruff-format': check('ruff-format', [py, ['-m', 'ruff', 'format', '--check', ...pyTargets]], '.'),
  server: vitest('server'),
  // Issue 16: the storage-touching server files once more with object storage (moto's S3 server), on SQLite only
  // (the databases are covered above): upload, preprocessing, training and prediction, time series, images.
  'server-s3': vitest('server-s3', {
    dir: 'server',
    files: ['datasets', 'preprocessing', 'training', 'timeseries', 'images'].map((f) => `test/${f}.test.ts`),
    env: { MITATE_TEST_S3: '1', TEST_DATABASE_URL: '', TEST_REDIS_URL: '' },
  }),
  web: vitest('web'),
  // The rules the web app and the server share (packages/rules, the workspace @mitate/rules).
  rules: vitest('rules', { dir: 'packages/rules' }),
  engine: {
    name: 'engine',
    async run(live) {
      const r = await exec(py, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--durations=10'], path.join(root, 'engine'), live);
      const line = r.out.split('\n').reverse().find((l) => /\b(passed|failed|error)/.test(l) && /=|in \d/.test(l)) ?? '';
      const n = (w) => Number(new RegExp(`(\\d+) ${w}`).exec(line)?.[1] ?? 0);
      const failures = r.out.split('\n').filter((l) => /^(FAILED|ERROR) /.test(l));
      return { ...r, counts: line ? { passed: n('passed'), failed: n('failed') + n('error') } : null, failures };
    },
  },
  // The API against its own OpenAPI document (no 5xx, answers as declared).
  schemathesis: check('schemathesis', ['node', ['scripts/schemathesis.mjs']], '.'),
  bundle: {
    // The first-route bundle budget (issue 19), from the web build that set-up made.
    name: 'bundle',
    async run(live) {
      const r = await exec('node', [path.join(root, 'scripts', 'bundle-budget.mjs')], root, live);
      const m = /bundle: (\d+) passed, (\d+) failed/.exec(r.out);
      return { ...r, counts: m ? { passed: Number(m[1]), failed: Number(m[2]) } : null };
    },
  },
  // The end-to-end specs in three suites, so that the lanes can share them out: the walk (the longest spec file, and
  // the pages of running jobs), then the other specs split in two by name. Each suite runs its files one at a time.
  'e2e-walk': e2e('e2e-walk', (f, _i) => f.startsWith('walk')),
  'e2e-a': e2e('e2e-a', (f, i) => !f.startsWith('walk') && i % 2 === 0),
  'e2e-b': e2e('e2e-b', (f, i) => !f.startsWith('walk') && i % 2 === 1),
};

// What each suite took on a CI machine (two cores, beside the other lane), in seconds, rounded: only their order
// matters. The queue is taken longest first (LPT), so the short checks fill the lanes' ends and both lanes finish
// near the same time. Update them from the per-lane summary at the end of a run; an unlisted suite counts 30 s.
const ESTIMATE_S = {
  server: 560, 'e2e-walk': 300, 'e2e-a': 200, 'e2e-b': 200, 'server-s3': 150, engine: 120, web: 110, schemathesis: 70,
  'dead-code': 50, 'tsc-web': 45, 'tsc-server': 40, 'eslint-web': 40, 'eslint-server': 35, 'tsc-e2e': 15, 'eslint-e2e': 15,
  openapi: 15, rules: 10, 'tsc-rules': 10, size: 5, cycles: 5, ruff: 3, 'ruff-format': 3, bundle: 2,
};
const order = Object.keys(suites);
// `e2e` names the three end-to-end suites.
const asked = new Set(only.flatMap((name) => (name === 'e2e' ? ['e2e-walk', 'e2e-a', 'e2e-b'] : [name])));
const unknown = [...asked].filter((name) => !suites[name]);
if (unknown.length) {
  console.error(`unknown suite: ${unknown.join(', ')} (suites: ${order.join(', ')}, e2e)`);
  process.exit(1);
}
const queue = order.filter((name) => !asked.size || asked.has(name)).sort((a, b) => (ESTIMATE_S[b] ?? 30) - (ESTIMATE_S[a] ?? 30));

const started = Date.now();
const results = new Map();
const laneOf = new Map();
// The end-to-end suites never run at the same time: each starts its own servers and Chromium, and two of them beside
// each other on two cores made specs fail that pass alone. A lane skips to the next other suite, or waits.
const isE2e = (name) => name.startsWith('e2e-');
let e2eRunning = null;
let releaseE2e = () => {};
/** The next suite this lane may run, taken (and an end-to-end one locked) in the same step, so no other lane can
 * take a second end-to-end suite in between. */
async function next() {
  for (;;) {
    const i = queue.findIndex((name) => !isE2e(name) || !e2eRunning);
    if (i >= 0) {
      const name = queue.splice(i, 1)[0];
      if (isE2e(name)) e2eRunning = new Promise((resolve) => (releaseE2e = () => ((e2eRunning = null), resolve())));
      return name;
    }
    if (!queue.length) return undefined;
    await e2eRunning;
  }
}
async function lane(index) {
  const live = index === 0;
  for (let name = await next(); name; name = await next()) {
    const s = suites[name];
    const release = isE2e(name) ? releaseE2e : () => {};
    laneOf.set(name, index);
    if (live) console.log(`\n===== ${name} =====`);
    const t0 = Date.now();
    let r;
    try {
      r = await s.run(live);
    } catch (e) {
      r = { code: 1, out: String(e?.stack ?? e), counts: null };
    } finally {
      release();
    }
    const seconds = Math.round((Date.now() - t0) / 1000);
    if (!live) process.stdout.write(`\n===== ${name} (${seconds} s, beside the other lane) =====\n${r.out}${r.out.endsWith('\n') ? '' : '\n'}===== end of ${name} =====\n`);
    // A suite that crashed before reporting counts as one failure, never as a pass.
    const c = r.counts ?? { passed: 0, failed: 1 };
    if (r.code !== 0 && c.failed === 0) c.failed = 1;
    if (r.code !== 0 && !r.failures?.length) r.failures = [`exit code ${r.code}; the end of its output:\n${firstLines(r.out.trimEnd().split('\n').slice(-15).join('\n'), 15)}`];
    results.set(name, { ...c, seconds, end: Math.round((Date.now() - started) / 1000), failures: c.failed ? (r.failures ?? []) : [] });
  }
}
await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
fs.rmSync(tmp, { recursive: true, force: true });

let passed = 0;
let failed = 0;
const summary = [];
for (const name of order) {
  const c = results.get(name);
  if (!c) continue;
  passed += c.passed;
  failed += c.failed;
  summary.push(`${name}: ${c.passed} passed, ${c.failed} failed (${c.seconds} s)`);
}
// What failed, once more at the very end: CI may keep only the last part of a long output.
const failures = order.flatMap((name) => (results.get(name)?.failures ?? []).map((f) => `[${name}] ${f}`));
if (failures.length) console.log(`\nfailed:\n${failures.join('\n')}`);
console.log('\n' + summary.join('\n'));
// Where the time went: each lane's suites in the order it ran them, its busy time and when it finished.
for (let i = 0; i < lanes; i++) {
  const ran = [...laneOf].filter(([, l]) => l === i).map(([name]) => name);
  const busy = ran.reduce((t, name) => t + results.get(name).seconds, 0);
  const end = Math.max(0, ...ran.map((name) => results.get(name).end));
  console.log(`lane ${i + 1}: ${busy} s busy, done at ${end} s: ${ran.map((name) => `${name} ${results.get(name).seconds} s`).join(', ')}`);
}
const summed = [...results.values()].reduce((t, c) => t + c.seconds, 0);
const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`all suites: ${Math.round((Date.now() - started) / 1000)} s in ${lanes} lane${lanes > 1 ? 's' : ''} (${summed} s of suites; load average now ${load})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
