// Shared helpers for benchmarks: a real server process, its peak memory, timing and result files.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const PYTHON = path.join(ROOT, '.venv', 'bin', 'python');
export const WORK = path.join(ROOT, 'bench', 'work');

export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Peak resident memory (VmHWM) of a process, in MB. */
export function peakRssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** A real server on a free port; `serverDir` runs another checkout's server (e.g. a baseline build). */
export async function startServer(env = {}, serverDir = path.join(ROOT, 'server')) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-bench-'));
  // Run node directly (not through npx) so the pid we sample is the server's own.
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: { ...process.env, PORT: String(port), MITATE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', fs.openSync(path.join(dataDir, 'server.log'), 'a'), 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${url}/api/docs/json`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    pid: child.pid,
    dataDir,
    log: () => fs.readFileSync(path.join(dataDir, 'server.log'), 'utf8'),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function signUp(url, email = `bench${Date.now()}@example.com`) {
  const password = 'Kx7!mQ2#vL9p';
  await fetch(`${url}/account/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, first_name: 'Ben', last_name: 'Mark', organisation_name: 'Bench' }),
  });
  const r = await fetch(`${url}/account/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const { access_token } = (await r.json()).detail.response;
  return { authorization: `Bearer ${access_token}` };
}

/** A new access token for a user made by signUp (tokens last 15 minutes; a loaded machine outlasts them). */
export async function logIn(url, email) {
  const r = await fetch(`${url}/account/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'Kx7!mQ2#vL9p' }),
  });
  return `Bearer ${(await r.json()).detail.response.access_token}`;
}

/** The benchmarks' 5-step condition done by hand in pandas (the peer): `path` names the Parquet file; the result is
 * written beside it. Python source, spliced into each bench's peer script. */
export const PANDAS_CONDITION = `d=pd.read_parquet(path)
d["temperature"]=d["temperature"].fillna(d["temperature"].mean())
q1,q3=d["pressure"].quantile([.25,.75]); d["pressure"]=d["pressure"].clip(q1-1.5*(q3-q1), q3+1.5*(q3-q1))
d["humidity"]=(d["humidity"]-d["humidity"].mean())/d["humidity"].std(ddof=0)
d["load"]=d["temperature"]*d["pressure"]/100
d["signal_mean_10"]=d["signal"].rolling(10).mean()
d.to_parquet(path+".pandas.parquet")`;

export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

export function python(code, args = []) {
  const r = spawnSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export function writeResult(name, result) {
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, at: new Date().toISOString(), machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) }, ...result }, null, 2));
  console.log(JSON.stringify(result, null, 2));
  console.log(`written ${file}`);
}

/** The benchmark table: `rows` × 12 numeric and text columns (~97 bytes a row), generated once by DuckDB into bench/work/. */
export async function benchCsv(rows) {
  fs.mkdirSync(WORK, { recursive: true });
  const csv = path.join(WORK, `ingest-${rows}.csv`);
  if (fs.existsSync(csv)) return csv;
  console.log(`generating ${csv} ...`);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (
    SELECT i AS id,
      round(random() * 1000, 3) AS temperature, round(random() * 50, 4) AS pressure, round(random() * 100, 2) AS humidity,
      (random() * 1e6)::BIGINT AS counter, round(sin(i / 1000.0) * 10 + random(), 5) AS signal,
      ['OK', 'NG', 'HOLD'][1 + (i % 3)::INT] AS status, 'line-' || (i % 17)::VARCHAR AS line,
      'lot-' || (i // 5000)::VARCHAR AS lot, TIMESTAMP '2024-01-01' + to_seconds(i) AS ts,
      md5(i::VARCHAR)[1:12] AS code, round(random() * 5, 2) AS vibration
    FROM range(${rows}) t(i)) TO '${csv}' (HEADER, DELIMITER ',')`);
  c.closeSync();
  return csv;
}
