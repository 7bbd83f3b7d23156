#!/usr/bin/env node
// Size of the code (issue 32): source files over 600 lines and functions or components over 150 lines, in the
// server, the web app and the engine (TypeScript through its compiler's syntax tree, Python through `ast`).
// Generated files, message tables and tests are left out. Fails on anything not in the baseline
// (scripts/size-baseline.json: what was too long when the check came) and on a listed one that grew; entries fixed
// since are named so the baseline can shrink. `--update` rewrites the baseline (review its diff); `--report` lists all.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const baselineFile = path.join(root, 'scripts', 'size-baseline.json');
const python = path.join(root, '.venv', 'bin', 'python');
export const FILE_LINES = 600;
export const FUNCTION_LINES = 150;

const roots = ['server/src', 'web/src', 'packages/rules/src', 'engine/mitate_engine'];
/** Generated or tabular by nature: the OpenAPI types, message and catalogue tables. */
const skipped = (rel) => rel.endsWith('.d.ts') || /(^|\/)(messages|catalogue|i18n)[^/]*\.(ts|tsx|py)$/.test(rel) || rel.includes('/i18n/') || /\.test\.(ts|tsx)$/.test(rel) || rel.includes('/__tests__/');

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '__pycache__' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|tsx|py)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** A function's name for the report: its declaration's, or the variable, property or JSX component it is assigned to. */
function nameOf(node, sf) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p)) return p.name.getText(sf);
  if (p && ts.isCallExpression(p)) {
    const callee = p.expression.getText(sf).slice(0, 40);
    return `${callee}(…)`;
  }
  return '(anonymous)';
}

function tsFunctions(file, rel) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > FUNCTION_LINES) found.push({ key: `function ${rel}: ${nameOf(node, sf)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function pyFunctions(files) {
  if (!files.length || !fs.existsSync(python)) return [];
  const script = `
import ast, json, sys
out = []
for f in sys.argv[1:]:
    tree = ast.parse(open(f, encoding='utf-8').read())
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = n.end_lineno - n.lineno + 1
            if lines > ${FUNCTION_LINES}:
                out.append([f, n.name, lines])
print(json.dumps(out))
`;
  const r = spawnSync(python, ['-c', script, ...files], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`python ast failed:\n${r.stderr}`);
  return JSON.parse(r.stdout).map(([f, name, lines]) => ({ key: `function ${path.relative(root, f)}: ${name}`, lines }));
}

export function measure() {
  const found = [];
  const py = [];
  for (const base of roots) {
    for (const file of walk(path.join(root, base))) {
      const rel = path.relative(root, file);
      if (skipped(rel)) continue;
      const text = fs.readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > FILE_LINES) found.push({ key: `file ${rel}`, lines });
      if (file.endsWith('.py')) py.push(file);
      else found.push(...tsFunctions(file, rel));
    }
  }
  found.push(...pyFunctions(py));
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = measure();
  const files = found.filter((f) => f.key.startsWith('file ')).length;
  const fns = found.length - files;
  const summary = `${files} files over ${FILE_LINES} lines, ${fns} functions over ${FUNCTION_LINES} lines`;
  if (process.argv.includes('--report')) {
    for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.key}`);
    console.log(summary);
    process.exit(0);
  }
  if (process.argv.includes('--update')) {
    fs.writeFileSync(baselineFile, JSON.stringify(Object.fromEntries(found.map((f) => [f.key, f.lines])), null, 2) + '\n');
    console.log(`size: baseline written (${summary})`);
    process.exit(0);
  }
  const baseline = JSON.parse(fs.readFileSync(baselineFile, 'utf8'));
  const fresh = found.filter((f) => !(f.key in baseline));
  const grown = found.filter((f) => f.key in baseline && f.lines > baseline[f.key]);
  const gone = Object.keys(baseline).filter((k) => !found.some((f) => f.key === k));
  if (gone.length) console.log(`no longer too long (remove from scripts/size-baseline.json):\n  ${gone.join('\n  ')}`);
  if (fresh.length || grown.length) {
    if (fresh.length) console.log(`too long (split into cohesive modules or section components):\n  ${fresh.map((f) => `${f.key} (${f.lines} lines)`).join('\n  ')}`);
    if (grown.length) console.log(`grew past its baseline (make it shorter, not longer):\n  ${grown.map((f) => `${f.key} (${f.lines} > ${baseline[f.key]} lines)`).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`size: nothing new (${summary}, all in the baseline)`);
}
