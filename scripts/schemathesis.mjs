#!/usr/bin/env node
// Fuzzes the API against its own OpenAPI document: a real server (strict response schemas), a signed-in
// owner's bearer token, Schemathesis with the checks not_a_server_error and response_schema_conformance.
// Deterministic generation and a fixed number of examples per operation keep the run bounded (about 3 minutes).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const examples = process.env.MITATE_FUZZ_EXAMPLES || '8';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-fuzz-'));

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  cwd: path.join(root, 'server'),
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MITATE_DATA_DIR: dataDir, MITATE_STRICT_RESPONSES: '1', MITATE_WORKERS: '1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stop = () => {
  if (server.exitCode === null) server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
};
process.on('exit', stop);

async function waitUp() {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error('the server exited before it answered');
    try {
      if ((await fetch(`${base}/api/docs/json`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not answer within 150 s');
}

const post = async (p, body) => {
  const r = await fetch(`${base}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
  return r.json();
};

let code = 1;
try {
  await waitUp();
  const account = { email: 'fuzz@example.com', password: 'Quartz-Meadow-7319', first_name: 'Ada', last_name: 'Lovelace', organisation_name: 'Contract Org' };
  await post('/account/api/auth/register', account);
  const { access_token } = (await post('/account/api/auth/login', { email: account.email, password: account.password })).detail.response;
  const args = [
    'run', `${base}/api/docs/json`,
    '--url', base,
    '--checks', 'not_a_server_error,response_schema_conformance',
    '-H', `Authorization: Bearer ${access_token}`,
    '--max-examples', examples,
    '--generation-deterministic',
    '--workers', '1',
    '--phases', 'examples,coverage,fuzzing',
    // Sign-out and password calls would end the fuzzing session itself.
    '--exclude-path-regex', '/auth/(logout|change-password)',
    '--suppress-health-check', 'all',
  ];
  const st = spawn(path.join(root, '.venv', 'bin', 'schemathesis'), args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
  code = await new Promise((r) => st.on('close', (c) => r(c ?? 1)));
} catch (e) {
  console.error(String(e));
} finally {
  stop();
}
process.exit(code);
