// A stand-in for the Mitate API with in-memory data, to look at the web app without the real server:
//   node dev/mock-api.mjs 18080 & MITATE_API_URL=http://127.0.0.1:18080 npx vite
// Answers with the contract's shapes ({detail: {response}}); any e-mail and password sign in.
import http from 'node:http';

const port = Number(process.argv[2] ?? 18080);
const ok = (res, body, status = 200) => send(res, status, { detail: { response: body } });
const send = (res, status, body) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};
const ja = (req) => /^ja/.test(req.headers['accept-language'] ?? '');

const me = {
  id: 'u1', email: 'hanako.yamada@acme.example', first_name: 'Hanako', last_name: 'Yamada', name: 'Hanako Yamada',
  role: 'admin', status: 'active', language: 'en-gb', department: 'Process Engineering', office_location: 'Kawasaki Works',
  organisation: { id: 'o1', name: 'Acme Chemicals' },
  links: { visualizer_url: 'https://visualizer.example.com', test_site_url: 'https://test.example.com', show_test_site: true },
};
const members = [
  ['Hanako', 'Yamada', 'owner', 'active'], ['Taro', 'Suzuki', 'admin', 'active'], ['Aiko', 'Tanaka', 'member', 'active'],
  ['James', 'Miller', 'member', 'invited'], ['Kenji', 'Sato', 'viewer', 'disabled'],
].map(([f, l, role, status], i) => ({ id: `m${i + 1}`, email: `${f.toLowerCase()}.${l.toLowerCase()}@acme.example`, first_name: f, last_name: l, role, status, created_at: new Date(Date.UTC(2025, 3, 1 + i * 9, 1)).toISOString() }));

const cols = [
  ['datetime', 'datetime', 'TIMESTAMP'], ['temperature', 'float', 'DOUBLE'], ['pressure', 'float', 'DOUBLE'],
  ['flow_rate', 'float', 'DOUBLE'], ['valve_state', 'string', 'VARCHAR'], ['alarm', 'boolean', 'BOOLEAN'], ['batch', 'integer', 'BIGINT'],
];
const N = 1234;
const rand = (i, k) => { const x = Math.sin(i * 12.9898 + k * 78.233) * 43758.5453; return x - Math.floor(x); };
const rowOf = (i) => [
  new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().replace('T', ' ').slice(0, 19),
  +(70 + 8 * rand(i, 1) + 3 * Math.sin(i / 50)).toFixed(3), +(1.2 + 0.3 * rand(i, 2)).toFixed(4),
  i % 97 === 0 ? null : +(35 + 10 * rand(i, 3)).toFixed(2), ['open', 'closed', 'half'][Math.floor(rand(i, 4) * 3)], rand(i, 5) > 0.93, 100 + Math.floor(i / 100),
];
const names = ['Reactor 3 sensors 2024', 'Concrete compressive strength', 'Power plant (CCPP)', 'Steel plate faults', 'Sleep t-test', 'Tennessee Eastman fault 1', 'Mixture DoE results', 'SKAB valve anomalies'];
const trainingTypes = ['time_series_anomaly_detection_unsupervised', 'regression', 'regression', 'classification', 'statistical_analysis', 'soft_sensor', 'regression', 'time_series_anomaly_detection_supervised'];
let datasets = names.map((name, i) => ({
  id: `ds${i + 1}`, name, category: ['plant', 'materials', 'energy', 'quality', 'study', 'plant', 'doe', 'plant'][i], training_type: trainingTypes[i],
  data_type: i === 6 ? 'inference_data' : 'training_data', type: trainingTypes[i] === 'soft_sensor' ? 'softsensor' : i === 0 ? 'unsupervised' : 'supervised',
  comment: i === 0 ? 'Minute data from reactor 3, January 2024. Flow meter failed on some rows.' : '', file_name: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}.csv`,
  file_size: 180_000 + i * 91_000, encoding: i === 5 ? 'cp932' : 'utf-8', delimiter: i === 2 ? ';' : ',', row_count: N, column_count: cols.length,
  datetime_column: i === 0 || i === 7 ? 'datetime' : null, preprocessed: i === 5, parent_dataset_name: i === 5 ? 'Tennessee Eastman raw' : null,
  preprocess_history: i === 5 ? [{ process_type: 'missing_values', action_name: 'Fill with mean', changes: { columns: ['flow_rate'], rows: 12 }, modified_at: '2025-05-02T03:10:00Z' }, { process_type: 'outliers', action_name: 'Remove 3σ', changes: 'rows removed: 8', modified_at: '2025-05-02T03:12:00Z' }] : [],
  created_at: new Date(Date.UTC(2025, 4, 20 - i, 2 + i)).toISOString(), updated_at: new Date(Date.UTC(2025, 4, 21 - i)).toISOString(),
  files: { original: `datasets/ds${i + 1}/original.csv`, parquet: `datasets/ds${i + 1}/data.parquet` }, statistics: { state: i === 0 ? 'succeeded' : 'none', job_id: null },
}));
const jobs = new Map();

function columnsOf() {
  return cols.map(([name, type, dtype], k) => {
    const vals = Array.from({ length: N }, (_, i) => rowOf(i)[k]).filter((v) => v !== null);
    const nums = vals.filter((v) => typeof v === 'number');
    const mean = nums.length ? nums.reduce((a, b) => a + b, 0) / nums.length : null;
    const std = nums.length ? Math.sqrt(nums.reduce((a, b) => a + (b - mean) ** 2, 0) / nums.length) : null;
    return { name, type, dtype, count: vals.length, missing: N - vals.length, unique: new Set(vals.map(String)).size,
      min: nums.length ? Math.min(...nums) : type === 'datetime' ? vals[0] : null, max: nums.length ? Math.max(...nums) : type === 'datetime' ? vals[vals.length - 1] : null, mean, std };
  });
}
function fullStats() {
  return {
    row_count: N, column_count: cols.length, generated_at: new Date().toISOString(),
    columns: columnsOf().map((c, k) => {
      const vals = Array.from({ length: N }, (_, i) => rowOf(i)[k]).filter((v) => v !== null);
      const numeric = c.type === 'float' || c.type === 'integer';
      const base = { name: c.name, dtype: c.dtype, kind: numeric ? 'numeric' : c.type === 'boolean' ? 'boolean' : c.type === 'datetime' ? 'datetime' : 'categorical', count: c.count, missing: c.missing, unique: c.unique, mean: null, std: null, min: c.min, q1: null, median: null, q3: null, max: c.max, skewness: null, kurtosis: null, zeros: null, top: null, histogram: null };
      if (numeric) {
        const s = [...vals].sort((a, b) => a - b); const q = (p) => s[Math.floor(p * (s.length - 1))];
        const lo = s[0], hi = s[s.length - 1], bins = 20, w = (hi - lo) / bins || 1;
        const counts = Array(bins).fill(0); s.forEach((v) => counts[Math.min(bins - 1, Math.floor((v - lo) / w))]++);
        return { ...base, mean: c.mean, std: c.std, q1: q(0.25), median: q(0.5), q3: q(0.75), skewness: 0.12 * k - 0.2, kurtosis: -1.1 + 0.3 * k, zeros: 0, histogram: { edges: Array.from({ length: bins + 1 }, (_, i) => lo + i * w), counts } };
      }
      const freq = new Map(); vals.forEach((v) => freq.set(v, (freq.get(v) ?? 0) + 1));
      return { ...base, top: [...freq.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([value, count]) => ({ value, count })) };
    }),
  };
}

const body = (req) => new Promise((resolve) => { const chunks = []; req.on('data', (c) => chunks.push(c)); req.on('end', () => resolve(Buffer.concat(chunks))); });
const tokens = () => ({ access_token: `a${Date.now()}`, refresh_token: `r${Date.now()}`, expires_in: 3600 });

http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const p = url.pathname;
  const m = (re) => re.exec(p);
  const raw = await body(req);
  const json = () => { try { return JSON.parse(raw.toString() || '{}'); } catch { return {}; } };
  if (p.startsWith('/api/') && !req.headers.authorization) return send(res, 401, { detail: { response: 'Please sign in.', error: 'unauthenticated' } });
  if (p === '/account/api/auth/login' || p === '/account/api/auth/refresh') return ok(res, tokens());
  if (p === '/account/api/auth/register') return ok(res, { id: 'u9', email: json().email }, 201);
  if (p === '/account/api/auth/logout') return ok(res, true);
  if (p === '/account/api/members') return ok(res, { items: members, total: members.length });
  if (m(/^\/account\/api\/members\/([^/]+)$/)) return ok(res, members.find((x) => x.id === m(/^\/account\/api\/members\/([^/]+)$/)[1]) ?? null);
  if (p === '/api/users/me') return ok(res, me);
  if (p === '/api/services/status') return ok(res, { mode: 'local', running: process.env.MOCK_STOPPED ? false : true, workers: 2, busy: 0, queued: 0, active: 0, max_upload_mb: 1024 });
  if (p === '/api/datasets/list/') {
    const q = (url.searchParams.get('query') ?? '').toLowerCase(); const dt = url.searchParams.get('data_type'); const ty = url.searchParams.get('type');
    let items = datasets.filter((d) => (!q || d.name.toLowerCase().includes(q)) && (!dt || d.data_type === dt) && (!ty || d.type === ty));
    const sort = url.searchParams.get('sort') ?? 'created_at_desc'; const [f, dir] = sort.startsWith('name') ? ['name', sort.endsWith('asc') ? 1 : -1] : ['created_at', sort.endsWith('asc') ? 1 : -1];
    items = [...items].sort((a, b) => (a[f] < b[f] ? -dir : dir));
    const page = Number(url.searchParams.get('page') ?? 1), size = Number(url.searchParams.get('page_size') ?? 20);
    return ok(res, { items: items.slice((page - 1) * size, page * size), total: items.length });
  }
  if (p === '/api/dataset' && req.method === 'GET') return ok(res, datasets);
  if (p === '/api/dataset/register') {
    const text = raw.toString('latin1'); const field = (n) => (new RegExp(`name="${n}"\\r\\n\\r\\n([^\\r]*)`).exec(text)?.[1] ?? '');
    const d = { ...datasets[1], id: `ds${Date.now()}`, name: Buffer.from(field('name'), 'latin1').toString('utf8'), category: field('category'), training_type: field('training_type'), data_type: field('data_type'), type: field('type'), datetime_column: field('datetime_column') || null, file_name: /filename="([^"]*)"/.exec(text)?.[1] ?? 'file.csv', file_size: raw.length, created_at: new Date().toISOString(), statistics: { state: 'none', job_id: null } };
    datasets = [d, ...datasets];
    return setTimeout(() => ok(res, d, 201), 1500);
  }
  let g;
  if ((g = m(/^\/api\/dataset\/upload\/([^/]+)$/))) {
    const page = Number(url.searchParams.get('page') ?? 1), size = Number(url.searchParams.get('page_size') ?? 100);
    const rows = []; for (let i = (page - 1) * size; i < Math.min(N, page * size); i++) rows.push(rowOf(i));
    return ok(res, { columns: cols.map((c) => c[0]), rows, total: N, page, page_size: size });
  }
  if ((g = m(/^\/api\/dataset\/download\/([^/]+)$/))) {
    res.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="original.csv"' });
    return res.end(cols.map((c) => c[0]).join(',') + '\n');
  }
  if ((g = m(/^\/api\/dataset\/delete\/([^/]+)$/))) { datasets = datasets.filter((d) => d.id !== g[1]); return ok(res, { id: g[1] }); }
  if ((g = m(/^\/api\/dataset\/([^/]+)\/(true|false)$/))) {
    const d = datasets.find((x) => x.id === g[1]);
    if (!d) return send(res, 404, { detail: { response: ja(req) ? 'データセットが存在しません。' : 'The dataset does not exist.', error: 'dataset_not_found' } });
    return ok(res, { ...d, columns: columnsOf() });
  }
  if ((g = m(/^\/api\/dataset\/([^/]+)$/)) && req.method === 'PUT') {
    const i = datasets.findIndex((x) => x.id === g[1]); datasets[i] = { ...datasets[i], ...json(), updated_at: new Date().toISOString() }; return ok(res, datasets[i]);
  }
  if ((g = m(/^\/api\/statistics\/result\/([^/]+)$/))) {
    const d = datasets.find((x) => x.id === g[1]); const j = jobs.get(g[1]);
    if (j) {
      const progress = Math.min(1, (Date.now() - j.at) / 5000);
      if (progress < 1) return ok(res, { job_id: 'j1', state: progress < 0.15 ? 'queued' : 'running', progress, message: `Column ${Math.ceil(progress * cols.length)} of ${cols.length}`, error: null, result: null });
      if (d.name.includes('Steel')) return ok(res, { job_id: 'j1', state: 'failed', progress: 1, message: null, error: 'Worker exited: out of memory while reading column "pressure".', result: null });
      jobs.delete(g[1]); d.statistics = { state: 'succeeded', job_id: 'j1' };
    }
    if (d?.statistics.state === 'succeeded') return ok(res, { job_id: 'j1', state: 'succeeded', progress: 1, message: null, error: null, result: fullStats() });
    return ok(res, { job_id: null, state: 'none', progress: 0, message: null, error: null, result: null });
  }
  if ((g = m(/^\/api\/statistics\/([^/]+)$/))) { jobs.set(g[1], { at: Date.now() }); return ok(res, { job_id: 'j1', state: 'queued' }); }
  if (p === '/api/boom') return send(res, 500, { detail: { response: 'x' } });
  send(res, 404, { detail: { response: 'Requested URL not exist', error: 'not_found' } });
}).listen(port, '127.0.0.1', () => console.log(`mock API on http://127.0.0.1:${port}`));
