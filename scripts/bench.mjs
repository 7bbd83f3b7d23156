#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.mjs, or those given as arguments); each writes JSON under bench/results/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'bench');
fs.mkdirSync(path.join(dir, 'results'), { recursive: true });
const wanted = process.argv.slice(2);
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.mjs') && (!wanted.length || wanted.some((w) => f.includes(w))));
let failed = 0;
for (const f of files.sort()) {
  console.log(`\n===== bench: ${f} =====`);
  const r = spawnSync('node', ['--import', 'tsx', path.join(dir, f)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
console.log(`\n${files.length - failed} benchmarks ran, ${failed} failed; results in bench/results/`);
process.exit(failed ? 1 : 0);
