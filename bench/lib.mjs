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

/** The processes (pid -> {ppid, ticks: user + system CPU}) now running. */
function processes() {
  const out = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** CPU time (ms) of a process and its descendants (serving processes, job workers). */
export function cpuMs(rootPid) {
  return Object.values(cpuMsByProcess(rootPid)).reduce((a, b) => a + b, 0);
}

/** CPU time (ms) of a process and of each of its descendants, by pid. */
export function cpuMsByProcess(rootPid) {
  const all = processes();
  const family = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of all) if (!family.has(pid) && family.has(s.ppid)) family.add(pid), (grew = true);
  }
  return Object.fromEntries([...family].filter((pid) => all.has(pid)).map((pid) => [pid, all.get(pid).ticks * 10]));
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
  // up to 3 minutes: tsx compiles the server on start, slowly on a busy machine
  for (let i = 0; i < 720; i++) {
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

/** The same 5 steps as the product's condition, for the benchmarks that apply it through the API. */
export const CONDITION_STEPS = [
  { process_type: 'missing', method: 'mean', columns: ['temperature'] },
  { process_type: 'outliers', method: 'iqr', columns: ['pressure'], params: { action: 'clip', k: 1.5 } },
  { process_type: 'scaling', method: 'standard', columns: ['humidity'] },
  { process_type: 'computed', method: 'expression', params: { name: 'load', expression: 'temperature * pressure / 100' } },
  { process_type: 'window', method: 'mean', columns: ['signal'], params: { window: 10 } },
];

export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** The value of the command-line argument `--<name>=<value>`, or `dflt` when it is not given. */
export const arg = (name, dflt) => {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
};

/** fetch tries once more on a failed connection: a keep-alive socket left idle during a long upload may have been closed. */
export function fetchOnceMoreOnFailure() {
  const plainFetch = globalThis.fetch;
  globalThis.fetch = (url, opts) => plainFetch(url, opts).catch(() => plainFetch(url, opts));
}

/** `run()`'s answer, with `server` stopped after it; when it fails, the server's last `logLines` log lines first. */
export async function whileServing(server, logLines, run) {
  try {
    return await run();
  } catch (e) {
    console.error(server.log().split('\n').slice(-logLines).join('\n'));
    throw e;
  } finally {
    await server.stop();
  }
}

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

/** The benchmark table: `rows` × 12 numeric and text columns (~97 bytes a row), generated once by DuckDB into bench/work/.
 * It is written to a .part file renamed when complete, so a generation stopped part-way is never taken for the table;
 * the next call keeps the rows already written and generates only the rest (a 100 M-row table takes an hour on a busy
 * machine). */
export async function benchCsv(rows) {
  fs.mkdirSync(WORK, { recursive: true });
  const csv = path.join(WORK, `ingest-${rows}.csv`);
  if (fs.existsSync(csv)) return csv;
  const part = `${csv}.part`;
  const rest = `${csv}.rest`;
  if (fs.existsSync(rest)) {
    // the rest of an earlier resumed generation, stopped part-way: its whole rows join the table first
    fs.truncateSync(rest, wholeLines(rest));
    await appendFile(rest, part);
  }
  const from = fs.existsSync(part) ? nextId(part) : 0;
  console.log(`generating ${csv}${from ? ` from row ${from.toLocaleString('en')} (the rows before are kept from an earlier run)` : ''} ...`);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (
    SELECT i AS id,
      round(random() * 1000, 3) AS temperature, round(random() * 50, 4) AS pressure, round(random() * 100, 2) AS humidity,
      (random() * 1e6)::BIGINT AS counter, round(sin(i / 1000.0) * 10 + random(), 5) AS signal,
      ['OK', 'NG', 'HOLD'][1 + (i % 3)::INT] AS status, 'line-' || (i % 17)::VARCHAR AS line,
      'lot-' || (i // 5000)::VARCHAR AS lot, TIMESTAMP '2024-01-01' + to_seconds(i) AS ts,
      md5(i::VARCHAR)[1:12] AS code, round(random() * 5, 2) AS vibration
    FROM range(${from}, ${rows}) t(i)) TO '${from ? rest : part}' (FORMAT csv, HEADER ${from ? 'false' : 'true'}, DELIMITER ',')`);
  c.closeSync();
  if (from) await appendFile(rest, part);
  fs.renameSync(part, csv);
  return csv;
}

/** Bytes of a file up to the end of its last whole line. */
function wholeLines(file) {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - (1 << 16));
      const buf = Buffer.alloc(end - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      const nl = buf.lastIndexOf(10);
      if (nl >= 0) return start + nl + 1;
      end = start;
    }
    return 0;
  } finally {
    fs.closeSync(fd);
  }
}

/** A table generated part-way: cut to its whole rows; the id the next row has (0 when only the header is there). */
function nextId(part) {
  const keep = wholeLines(part);
  fs.truncateSync(part, keep);
  if (!keep) return 0; // nothing whole written: start again (the empty file is written over)
  const fd = fs.openSync(part, 'r');
  const buf = Buffer.alloc(Math.min(keep, 4096));
  fs.readSync(fd, buf, 0, buf.length, keep - buf.length);
  fs.closeSync(fd);
  const lines = buf.toString('utf8').trimEnd().split('\n');
  const id = Number(lines[lines.length - 1].split(',')[0]);
  if (!Number.isInteger(id)) {
    fs.rmSync(part, { force: true }); // not even one row: start again
    return 0;
  }
  return id + 1;
}

async function appendFile(from, to) {
  const { pipeline } = await import('node:stream/promises');
  await pipeline(fs.createReadStream(from), fs.createWriteStream(to, { flags: 'a' }));
  fs.rmSync(from);
}

// ---- the hosted-API benchmarks' shared set-up (platform, drift-overhead, image-serving, tsad-serving) ----------

/** signUp's password, for benchmarks that make accounts by e-mail (an administrator named in the server's settings). */
export const BENCH_PASSWORD = 'Kx7!mQ2#vL9p';
/** A 1×1 PNG: the identity documents an organisation uploads before its APIs can be approved. */
export const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** The UCI combined-cycle power plant table (regression of EP on AT, V, AP, RH) as text. */
export const CCPP_CSV = fs.readFileSync(
  [path.join(ROOT, '..', 'shared'), path.join(ROOT, '..', '..', 'shared')].map((d) => path.join(d, 'data', 'uci_ccpp', 'ccpp.csv')).find((f) => fs.existsSync(f)) ?? 'ccpp.csv',
  'utf8',
);

/** One API call answering `detail.response`; a keep-alive socket the server closed while a peer ran fails before the
 * request is read, so that is tried once more. */
export async function apiCall(url, method, p, token, body, again = true) {
  const init = { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined };
  const res = await fetch(`${url}${p}`, init).catch((e) => {
    if (again && e?.cause?.code === 'UND_ERR_SOCKET') return null;
    throw e;
  });
  if (!res) return apiCall(url, method, p, token, body, false);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text).detail.response;
}

/** Registers `email` (if new) and answers an access token. */
export async function accountToken(url, email) {
  await fetch(`${url}/account/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: BENCH_PASSWORD, first_name: 'Ben', last_name: 'Mark', organisation_name: 'Bench' }) });
  const r = await fetch(`${url}/account/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: BENCH_PASSWORD }) });
  return (await r.json()).detail.response.access_token;
}

/** The CCPP table registered and a regression of EP trained with `models`; answers the project id and its models. */
export async function trainCcpp(url, token, models) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'ccpp', data_type: 'training_data', type: 'supervised', training_type: 'regression' })) form.append(k, v);
  form.append('file', new Blob([CCPP_CSV], { type: 'text/csv' }), 'ccpp.csv');
  const ds = (await (await fetch(`${url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()).detail.response;
  const project = await apiCall(url, 'POST', `/api/regress/register/${ds.id}`, token, { name: 'ccpp', target_variables: ['EP'], feature_variables: ['AT', 'V', 'AP', 'RH'], models });
  const pid = project.project_id ?? project.id;
  await apiCall(url, 'POST', `/api/train/model/${pid}`, token, {});
  for (;;) {
    const trained = (await apiCall(url, 'GET', `/api/regress/project/${pid}`, token)).models;
    if (trained.every((m) => m.state === 'done' || m.state === 'failed')) return { pid, models: trained };
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The caller's organisation verified: identity documents uploaded by `token`, approved by the platform administrator. */
export async function verifyIdentity(url, token, adminToken) {
  const id = new FormData();
  id.append('front', new Blob([PNG_1PX], { type: 'image/png' }), 'front.png');
  id.append('back', new Blob([PNG_1PX], { type: 'image/png' }), 'back.png');
  await fetch(`${url}/account/api/identity`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: id });
  const pending = await apiCall(url, 'GET', '/account/api/admin/identity', adminToken);
  await apiCall(url, 'POST', `/account/api/admin/identity/${pending.items[0].id}/review`, adminToken, { decision: 'approve' });
}

/** Resident memory (MB) of every engine (python) process under the server: its children and theirs. */
export function engineRss(serverPid) {
  const out = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' }).stdout;
  const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map(([pid, ppid, rss, ...a]) => ({ pid: +pid, ppid: +ppid, rss: +rss, args: a.join(' ') }));
  const tree = new Set([serverPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) if (tree.has(r.ppid) && !tree.has(r.pid)) (tree.add(r.pid), (grew = true));
  }
  return rows.filter((r) => tree.has(r.pid) && r.pid !== serverPid && r.args.includes('python')).map((r) => ({ pid: r.pid, mb: r.rss / 1024 }));
}
