#!/usr/bin/env node
// Dead code (issue 32): knip over the TypeScript workspaces (knip.json), vulture over the engine's Python
// (engine/vulture_whitelist.py names what only frameworks call). Fails on anything not in the baseline
// (scripts/dead-code-baseline.json: what was found when the check came, in areas then being changed by others);
// entries fixed since are named so the baseline can shrink. `--update` rewrites the baseline (review its diff).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const baselineFile = path.join(root, 'scripts', 'dead-code-baseline.json');
const knip = path.join(root, 'node_modules', '.bin', 'knip');
const python = path.join(root, '.venv', 'bin', 'python');

/** Each finding of knip's JSON report as one line: "kind file: name". */
function knipFindings() {
  if (!fs.existsSync(knip)) throw new Error('knip is not installed (npm install at the repository root)');
  const r = spawnSync(knip, ['--no-progress', '--no-exit-code', '--reporter', 'json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`knip failed:\n${r.stderr || r.stdout}`);
  const out = [];
  for (const issue of JSON.parse(r.stdout).issues) {
    for (const [kind, list] of Object.entries(issue)) {
      if (!Array.isArray(list)) continue;
      for (const item of list) {
        // duplicates are lists of names; the rest are {name}
        const name = Array.isArray(item) ? item.map((x) => x.name).join(', ') : item.name;
        out.push(`${kind} ${issue.file}: ${name}`);
      }
    }
  }
  return out;
}

/** Each finding of vulture as one line: "python file: message" (line numbers left out: they move). */
function vultureFindings() {
  const argv = ['-m', 'vulture', 'engine/mitate_engine', 'engine/tests', 'bench', 'engine/vulture_whitelist.py', '--min-confidence', '60'];
  const r = spawnSync(python, argv, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 3) throw new Error(`vulture failed:\n${r.stderr || r.stdout}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/^([^:]+):\d+: (.*) \(\d+% confidence\)$/, 'python $1: $2'));
}

const found = [...knipFindings(), ...vultureFindings()].sort();
if (process.argv.includes('--update')) {
  fs.writeFileSync(baselineFile, JSON.stringify(found, null, 2) + '\n');
  console.log(`dead code: baseline written (${found.length} entries)`);
  process.exit(0);
}
const baseline = new Set(JSON.parse(fs.readFileSync(baselineFile, 'utf8')));
const fresh = found.filter((f) => !baseline.has(f));
const gone = [...baseline].filter((b) => !found.includes(b));
if (gone.length) console.log(`no longer found (remove from scripts/dead-code-baseline.json):\n  ${gone.join('\n  ')}`);
if (fresh.length) {
  console.log(`new dead code (delete it; or, if a framework uses it, say so in knip.json or engine/vulture_whitelist.py):\n  ${fresh.join('\n  ')}`);
  process.exit(1);
}
console.log(`dead code: nothing new (${found.length} known in the baseline)`);
