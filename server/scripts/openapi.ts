// Writes the server's OpenAPI document and the web app's types generated from it (web/src/api/schema.d.ts).
// `--check` writes nothing and fails when the committed file is not what the server declares now.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/app.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const target = path.join(root, 'web', 'src', 'api', 'schema.d.ts');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-openapi-'));

const app = await buildApp({ config: { dataDir }, startJobs: false });
await app.ready();
const doc = app.swagger() as Record<string, unknown>;
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });

const header = '// Generated from the server\'s OpenAPI document by `npm run -w server openapi`. Do not edit.\n';
const text = header + astToString(await openapiTS(doc as never));

if (process.argv.includes('--check')) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (current !== text) {
    console.error(`${path.relative(root, target)} is stale: run \`npm run -w server openapi\` and commit it.`);
    process.exit(1);
  }
  console.log(`${path.relative(root, target)} is current.`);
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote ${path.relative(root, target)}`);
}
