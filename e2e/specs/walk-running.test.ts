import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import yazl from 'yazl';
import { launchBrowser, type RunningServer, SHARED_DATA, startServer } from '../support/server.ts';
import { apiJson, BLANK_INSTALLATION, pageIn, signIn, signUp, trainRegression, uploadDataset } from '../support/session.ts';
import { checkPage, settle, until, watch } from '../support/walk.ts';

/**
 * Issue 33: the walk once more over the pages of running jobs, in Japanese — a tabular training project, a time-series
 * project, an image project and a prediction, each visited while its job runs. The engine's test hold
 * (MITATE_TEST_HOLD_FILE) stops each job at its first progress report, so the job is certainly running, and has said
 * its progress, when the page is looked at (nothing here depends on how fast the machine is). Each page passes the
 * walk's checks and shows the job's progress line in Japanese (no English UI word, no raw message code); then the job
 * is cancelled and the project page, read again, says so in Japanese.
 */
const SHOTS = process.env.E2E_SCREENSHOTS;
const HELD_KINDS = 'train tsad_train image_train predict';

let server: RunningServer;
let browser: Browser;
let page: Page;
let seen: ReturnType<typeof watch>;
let who: { email: string; token: string };
let holdDir: string;
const holdFile = () => path.join(holdDir, 'hold');

/** A JSON call as the Japanese reader makes it (Accept-Language: ja): the engine says the job's progress in Japanese. */
async function ja(method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${who.token}`, 'accept-language': 'ja-JP,ja;q=0.9', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text).detail.response;
}

function tilesZip(perClass: number): Promise<Buffer> {
  const z = new yazl.ZipFile();
  const dir = path.join(SHARED_DATA, 'magnetic_tile_okng');
  for (const cls of ['OK', 'NG']) for (const f of fs.readdirSync(path.join(dir, cls)).sort().slice(0, perClass)) z.addFile(path.join(dir, cls, f), `${cls}/${f}`);
  z.end();
  const parts: Buffer[] = [];
  return new Promise((resolve, reject) => z.outputStream.on('data', (d: Buffer) => parts.push(d)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject));
}

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
/** A message code of the engine or the server left unsaid (job_epoch, tsad_job_reading, ...). */
const CODE = /\b(?:tsad_)?job_[a-z_]+\b/;

/** Waits until the job (read by `read` as the page's own API call answers it) runs and has said its progress: with
 * the hold it stays at its first report until cancelled. */
interface JobState {
  id?: string;
  state: string;
  message?: string | null;
  error?: string | null;
}

async function heldJob(what: string, read: () => Promise<JobState>): Promise<JobState> {
  return until(`${what}: running with its progress said`, async () => {
    const j = await read();
    assert.ok(!['failed', 'cancelled', 'succeeded', 'done'].includes(j.state), `${what}: the job ended before it was looked at (${j.state}: ${j.error ?? ''})`);
    return j.state === 'running' && j.message ? j : false;
  });
}

/** Visits `url` in Japanese and runs the walk's checks; the page must show `message` (the job's progress line) and
 * that line must be Japanese, with no English UI word and no message code. */
async function visitRunning(name: string, url: string, message: string) {
  assert.match(message, JAPANESE, `${name}: the job's progress is not in Japanese: "${message}"`);
  assert.doesNotMatch(message, CODE, `${name}: a message code in the progress: "${message}"`);
  await page.goto(`${server.url}${url}`);
  await settle(page);
  await page.getByText(message).first().waitFor();
  const wrong = await checkPage(page, 'ja', seen.take());
  assert.ok(/ \| Mitate$/.test(await page.title()), `${url}: page title "${await page.title()}"`);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `walk-running-ja-${name}.png`), fullPage: true });
  assert.deepEqual(wrong, [], `${url} while its job runs`);
}

/** After the cancel: the page read again passes the same checks (a stopped run says so in Japanese). */
async function visitStopped(name: string, url: string) {
  await page.goto(`${server.url}${url}`);
  await settle(page);
  const wrong = await checkPage(page, 'ja', seen.take());
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `walk-running-ja-${name}-stopped.png`), fullPage: true });
  assert.deepEqual(wrong, [], `${url} after its job was stopped`);
}

async function cancelled(jobId: string) {
  await ja('POST', `/api/jobs/${jobId}/cancel`, {});
  await until(`job ${jobId} cancelled`, async () => (await ja('GET', `/api/jobs/${jobId}`)).state === 'cancelled');
}

const ids: Record<string, string> = {};

before(async () => {
  holdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-hold-'));
  fs.writeFileSync(holdFile(), '');
  server = await startServer({ ...BLANK_INSTALLATION, MITATE_WORKERS: '2', MITATE_TORCH_THREADS: '1', MITATE_TEST_HOLD_FILE: holdFile() });
  browser = await launchBrowser();
  who = await signUp(server, { prefix: 'running', first_name: 'Rin', last_name: 'Running', organisation_name: 'Long Jobs' });
  const concrete = fs.readFileSync(path.join(SHARED_DATA, 'uci_concrete/concrete_data.csv'), 'utf8').trim().split('\n');
  const cols = concrete[0].split(',');
  ids.cols = JSON.stringify(cols);
  ids.concrete = await uploadDataset(server, who.token, 'Concrete', 'concrete.csv', concrete.slice(0, 301).join('\n') + '\n');
  const features = cols.slice(0, -1);
  const rows = concrete.slice(1, 21).map((l) => l.split(',').slice(0, -1).join(','));
  ids.mixes = await uploadDataset(server, who.token, 'New mixes', 'mixes.csv', `${features.join(',')}\n${rows.join('\n')}\n`, { data_type: 'inference_data' });
  const series = { training_type: 'time_series_anomaly_detection_unsupervised', type: 'unsupervised', datetime_column: 'datetime' };
  ids.valve = await uploadDataset(server, who.token, 'Valve 1', 'valve1_0.csv', fs.readFileSync(path.join(SHARED_DATA, 'skab_subset/valve1/0.csv')), series);
  ids.tiles = await uploadDataset(server, who.token, 'Tiles', 'tiles.zip', new Uint8Array(await tilesZip(10)), { training_type: 'analysis' });
  // the model the prediction uses, trained before any job is held
  const model = await trainRegression(server, who.token, ids.concrete, { name: 'Concrete, quick', target_variables: [cols.at(-1)], feature_variables: features, models: [{ algorithm: 'linear' }] });
  Object.assign(ids, { model: model.pid, modelKey: model.modelKey });
  // from here on every training and prediction job stops at its first progress report until cancelled
  fs.writeFileSync(holdFile(), HELD_KINDS);
  page = await pageIn(browser, server, 'ja');
  seen = watch(page);
  await signIn(page, server, who.email, 'ja');
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (holdDir) fs.rmSync(holdDir, { recursive: true, force: true });
});

test('a tabular training project page while its job runs, in Japanese', async () => {
  const cols = JSON.parse(ids.cols) as string[];
  // a long job: a thousand slow boosting rounds (held at its first report anyway)
  const lightgbm = { algorithm: 'lightgbm', params: { n_estimators: 1000, learning_rate: 0.005, num_leaves: 256, min_child_samples: 2 } };
  const p = await ja('POST', `/api/regress/register/${ids.concrete}`, { name: 'Concrete, long', target_variables: [cols.at(-1)], feature_variables: cols.slice(0, -1), cross_validation: 5, models: [lightgbm] });
  const pid = (p.project_id ?? p.id) as string;
  await ja('POST', `/api/train/model/${pid}`, {});
  const job = await heldJob('training', async () => (await ja('GET', `/api/train/result/${pid}`)).job ?? { state: 'queued' });
  await visitRunning('training', `/training/regress/details/${pid}`, job.message!);
  await cancelled(job.id!);
  await visitStopped('training', `/training/regress/details/${pid}`);
});

test('a time-series project page while its job runs, in Japanese', async () => {
  const signals = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];
  const detectors = [{ algorithm: 'sequence_autoencoder', params: { epochs: 1000, patience: 100 } }, { algorithm: 'isolation_forest', params: { n_estimators: 2000 } }];
  const p = await ja('POST', `/api/timeseries/register/${ids.valve}`, { name: 'Valve 1, long', project_type: 'time_series_anomaly_detection_unsupervised', time_column: 'datetime', feature_variables: signals, target_variables: ['anomaly'], normal: { mode: 'rows', rows: 400 }, models: detectors });
  const pid = p.project_id as string;
  await ja('POST', `/api/timeseries/train/model/${pid}`);
  const job = await heldJob('time-series training', async () => (await ja('GET', `/api/timeseries/train/model/${pid}`)).job ?? { state: 'queued' });
  await visitRunning('time-series', `/training/time-series/details/${pid}`, job.message!);
  await cancelled(job.id!);
  await visitStopped('time-series', `/training/time-series/details/${pid}`);
});

test('an image project page while its job runs, in Japanese', async () => {
  const p = await ja('POST', `/api/project/register/${ids.tiles}`, { project_type: 'analysis', name: 'Tiles, long', settings: { image_size: 64, epochs: 500, batch_size: 4 }, models: [{ algorithm: 'compact_cnn', params: { width: 8 } }] });
  const pid = p.project_id as string;
  await ja('POST', `/api/train/${pid}`, {});
  const job = await heldJob('image training', async () => (await ja('GET', `/api/image/train/result/${pid}`)).job ?? { state: 'queued' });
  await visitRunning('image', `/training/details/${pid}`, job.message!);
  await cancelled(job.id!);
  await visitStopped('image', `/training/details/${pid}`);
});

test('a prediction page while its job runs, in Japanese', async () => {
  const p = await ja('POST', `/api/prediction/${ids.model}`, { model_key: ids.modelKey, dataset_id: ids.mixes });
  const id = p.id as string;
  const running = await heldJob('prediction', async () => {
    const v = await ja('GET', `/api/prediction/${id}`);
    return { state: v.state, message: v.message, error: v.error };
  });
  await visitRunning('prediction', `/prediction/regression/report/${id}`, running.message!);
  // a prediction is stopped by deleting it (its running job is cancelled); the list then no longer has it. The report
  // is left first: it polls the prediction, which is gone once deleted.
  await page.goto('about:blank');
  seen.take();
  await ja('DELETE', `/api/inference/delete/${id}`);
  const list = await apiJson(server, 'GET', '/api/inference/list/', who.token);
  assert.ok(!JSON.stringify(list).includes(id), 'the deleted prediction is still listed');
  const gone = await fetch(`${server.url}/api/prediction/${id}`, { headers: { authorization: `Bearer ${who.token}` } });
  assert.equal(gone.status, 404);
  await visitStopped('prediction-list', '/prediction');
});
