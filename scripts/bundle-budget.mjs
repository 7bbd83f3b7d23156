#!/usr/bin/env node
// The first-route bundle budget (issue 19): the compressed bytes of JavaScript and CSS a cold browser must fetch
// before the sign-in page and the dataset list can show, followed through the Vite manifest's static imports.
// Prints one line per route and the closing 'N passed, N failed' line; exits 1 over budget.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'web', 'dist');
export const BUDGET_KB = Number(process.env.MITATE_BUNDLE_BUDGET_KB) || 300;
/** The routes a person reaches first: the area modules their lazy route loads beside the entry. */
export const FIRST_ROUTES = { '/login': 'src/features/account/index.tsx', '/dataset': 'src/features/datasets/index.tsx' };

function brotliSize(file) {
  const br = `${file}.br`;
  if (fs.existsSync(br)) return fs.statSync(br).size;
  return zlib.brotliCompressSync(fs.readFileSync(file)).length;
}

/** Every file (JS and CSS) the given manifest keys load before running, deduplicated. */
export function routeFiles(manifest, keys) {
  const seen = new Set();
  const files = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`manifest has no ${key}`);
    files.add(chunk.file);
    for (const c of chunk.css ?? []) files.add(c);
    for (const i of chunk.imports ?? []) visit(i);
  };
  keys.forEach(visit);
  return [...files];
}

export function measure(distDir = dist) {
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite', 'manifest.json'), 'utf8'));
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  return Object.entries(FIRST_ROUTES).map(([route, area]) => {
    const files = routeFiles(manifest, [entry, area]);
    const bytes = files.reduce((s, f) => s + brotliSize(path.join(distDir, f)), 0);
    return { route, files: files.length, kb: Math.round(bytes / 102.4) / 10 };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!fs.existsSync(path.join(dist, '.vite', 'manifest.json'))) {
    console.error('bundle budget: no web/dist/.vite/manifest.json — build the web app first (npm run setup).');
    process.exit(1);
  }
  let failed = 0;
  for (const r of measure()) {
    const ok = r.kb <= BUDGET_KB;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${r.route}: ${r.kb} KB brotli in ${r.files} files (budget ${BUDGET_KB} KB)`);
  }
  console.log(`bundle: ${Object.keys(FIRST_ROUTES).length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
