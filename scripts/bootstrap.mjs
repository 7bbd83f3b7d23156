#!/usr/bin/env node
// Idempotent set-up for `npm start` and `npm test`: installs only what is missing or out of date
// (npm packages, the engine's Python .venv, the web build), so a second run costs a few stat calls.
// The npm side (packages, then the web build) and the Python side (.venv) run at the same time; each step says
// how long it took.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = new Set(process.argv.slice(2));
const say = (m) => console.log(`[setup] ${m}`);
const hashOf = (...files) => {
  const h = createHash('sha256');
  for (const f of files) if (fs.existsSync(f)) h.update(fs.readFileSync(f));
  return h.digest('hex');
};
/** Runs a step to its end; a failed step ends the set-up with its exit code. */
const run = (cmd, argv, opts = {}) =>
  new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
    p.on('error', (e) => {
      console.error(`[setup] failed: ${cmd} ${argv.join(' ')}: ${e.message}`);
      process.exit(1);
    });
    p.on('close', (code) => {
      if (code !== 0) {
        console.error(`[setup] failed: ${cmd} ${argv.join(' ')}`);
        process.exit(code ?? 1);
      }
      say(`done in ${Math.round((Date.now() - t0) / 1000)} s: ${path.basename(cmd)} ${argv.slice(0, 3).join(' ')}`);
      resolve();
    });
  });

// 1. Node
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[setup] Node 20.19 or newer is needed; this is ${process.version}.`);
  process.exit(1);
}

// 2. npm packages, then the web build (skipped when nothing under web/ changed since the last build)
const lock = path.join(root, 'package-lock.json');
const npmStamp = path.join(root, 'node_modules', '.mitate-stamp');
const npmHash = hashOf(lock, path.join(root, 'package.json'));
async function npmSide() {
  if (!fs.existsSync(npmStamp) || fs.readFileSync(npmStamp, 'utf8') !== npmHash) {
    say('installing npm packages (npm ci) ...');
    await run('npm', ['ci', '--no-audit', '--no-fund']);
    fs.writeFileSync(npmStamp, npmHash);
  }
  if (args.has('--no-build')) return;
  const web = path.join(root, 'web');
  const stamp = path.join(web, 'dist', '.mitate-stamp');
  const newest = (dir) => {
    let t = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!e.isFile()) continue;
      const p = path.join(e.parentPath, e.name);
      if (p.includes(`${path.sep}dist${path.sep}`) || p.includes('node_modules')) continue;
      t = Math.max(t, fs.statSync(p).mtimeMs);
    }
    return t;
  };
  const srcHash = String(newest(path.join(web, 'src'))) + ':' + hashOf(path.join(web, 'index.html'), path.join(web, 'vite.config.ts'), path.join(web, 'package.json'));
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== srcHash) {
    say('building the web app ...');
    await run('npm', ['run', '-w', 'web', 'build']);
    fs.writeFileSync(stamp, srcHash);
  }
}

// 3. Python engine (beside the npm side)
function findPython() {
  for (const cand of [process.env.MITATE_PYTHON_BIN, 'python3.11', 'python3']) {
    if (!cand) continue;
    try {
      const v = execFileSync(cand, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();
      if (v === '3.11') return cand;
    } catch {}
  }
  console.error('[setup] Python 3.11 is needed (python3.11 on the PATH, or MITATE_PYTHON_BIN).');
  process.exit(1);
}
const venv = path.join(root, '.venv');
const req = path.join(root, 'engine', 'requirements.txt');
const pyStamp = path.join(venv, '.mitate-stamp');
// Test tools (ruff, Schemathesis) are pinned apart from what the engine runs with.
const devReq = path.join(root, 'engine', 'requirements-dev.txt');
const pyHash = hashOf(req, devReq);
async function pythonSide() {
  if (!fs.existsSync(path.join(venv, 'bin', 'python'))) {
    say('creating the engine virtual environment (.venv) ...');
    await run(findPython(), ['-m', 'venv', venv]);
  }
  if (!fs.existsSync(pyStamp) || fs.readFileSync(pyStamp, 'utf8') !== pyHash) {
    say('installing the engine packages (engine/requirements.txt, requirements-dev.txt) ...');
    await run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', req, '-r', devReq]);
    fs.writeFileSync(pyStamp, pyHash);
  }
}

const t0 = Date.now();
await Promise.all([npmSide(), pythonSide()]);
say(`ready in ${Math.round((Date.now() - t0) / 1000)} s.`);
