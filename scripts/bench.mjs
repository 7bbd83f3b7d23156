#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.mjs, or those given as arguments); each writes JSON under bench/results/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'bench');
fs.mkdirSync(path.join(dir, 'results'), { recursive: true });
// Peers the benchmarks compare against (FLAML, ...) live in the engine's .venv but only benchmarks need them.
const benchReq = path.join(dir, 'requirements.txt');
if (fs.existsSync(benchReq)) {
  const r = spawnSync(path.join(root, '.venv', 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', benchReq], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// Arguments: names (a part of a file name) choose benchmarks; flags (--quick, --users=50 ...) go to each chosen one.
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.mjs') && (!wanted.length || wanted.some((w) => f.includes(w))));
let failed = 0;
for (const f of files.sort()) {
  console.log(`\n===== bench: ${f} =====`);
  const r = spawnSync('node', ['--import', 'tsx', path.join(dir, f), ...flags], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
console.log(`\n${files.length - failed} benchmarks ran, ${failed} failed; results in bench/results/`);
process.exit(failed ? 1 : 0);
