#!/usr/bin/env node
// Area-level import cycles of the server (issue 32): which areas under server/src/features import each other,
// directly or round a loop. Every import counts, type-only ones too (they tie the areas' designs as much).
// Prints the pairs that import each other and the strongly connected groups of areas; `--json` prints them as JSON.
// Exits 1 when there is any (npm test runs it as `cycles`): an area's dependencies run one way.
// Usage: node scripts/area-cycles.mjs [root of a checkout, default this one]
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? path.join(import.meta.dirname, '..'));
const features = path.join(root, 'server', 'src', 'features');

function files(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** area → the areas its modules import, each with the files that do. */
export function areaGraph() {
  const graph = new Map();
  for (const area of fs.readdirSync(features)) {
    if (!fs.statSync(path.join(features, area)).isDirectory()) continue;
    const deps = new Map();
    for (const file of files(path.join(features, area))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\s+'([^']+)'/g)) {
        const spec = m[1] ?? m[2];
        if (!spec.startsWith('.')) continue;
        const target = path.relative(features, path.resolve(path.dirname(file), spec));
        const other = target.split(path.sep)[0];
        if (target.startsWith('..') || other === area) continue;
        const list = deps.get(other) ?? [];
        list.push(`${path.relative(path.join(features, area), file)} → ${target}`);
        deps.set(other, list);
      }
    }
    graph.set(area, deps);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one area: each one a knot of cycles. */
function knots(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const graph = areaGraph();
const pairs = [];
for (const [a, deps] of graph) for (const b of deps.keys()) if (a < b && graph.get(b)?.has(a)) pairs.push([a, b]);
const groups = knots(graph);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ pairs, groups }, null, 2));
} else {
  for (const [a, b] of pairs) {
    console.log(`${a} ↔ ${b}`);
    for (const [x, y] of [[a, b], [b, a]]) for (const line of graph.get(x).get(y).slice(0, 3)) console.log(`    ${x}/${line}`);
  }
  for (const g of groups) console.log(`knot: ${g.join(', ')}`);
  console.log(`${pairs.length} area pairs import each other; ${groups.length} knot(s) of ${groups.reduce((n, g) => n + g.length, 0)} areas`);
}
if (pairs.length || groups.length) process.exitCode = 1;
