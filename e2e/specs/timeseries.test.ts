import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp, shooter } from '../support/app.ts';
import { type RunningServer, SHARED_DATA } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

const D00 = fs.readFileSync(path.join(SHARED_DATA, 'tep_braatz_subset', 'd00.csv'), 'utf8');
const D01 = fs.readFileSync(path.join(SHARED_DATA, 'tep_braatz_subset', 'd01_te.csv'), 'utf8');
const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8');

let server: RunningServer;
let browser: Browser;
let page: Page;
let token = '';

const shot = shooter('ts', () => page);

before(async () => {
  ({ server, browser, page } = await openApp({ viewport: { width: 1400, height: 950 }, acceptDownloads: true }));
  const email = `ts.${Date.now()}@example.com`;
  ({ token } = await signUp(server, { email, first_name: 'Kenji', last_name: 'Mori', organisation_name: 'Eastman Plant' }));
  await signIn(page, server, email);
});

after(() => closeApp({ server, browser }));

async function upload(name: string, fileName: string, csv: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name, data_type: 'training_data', type: 'unsupervised', training_type: 'regression', ...fields })) form.append(k, v);
  form.append('file', new Blob([csv], { type: 'text/csv' }), fileName);
  const res = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).detail.response.id as string;
}

async function newProject(dataset: RegExp, type: string) {
  await page.goto(`${server.url}/training`);
  await page.getByRole('button', { name: 'New project' }).click();
  await page.getByRole('combobox', { name: 'Dataset' }).click();
  await page.getByRole('option', { name: dataset }).click();
  await page.getByRole('combobox', { name: 'Training type' }).click();
  await page.getByRole('option', { name: type }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The wizard's one final action creates the project and starts its training; its page shows the detectors done. */
async function createAndWait() {
  await page.getByRole('button', { name: 'Create and start' }).click();
  await page.waitForURL(/\/training\/time-series\/details\//);
  await page.getByRole('table', { name: 'Detectors' }).getByText('Done', { exact: true }).first().waitFor({ timeout: 240_000 });
}

test('unsupervised PCA-MSPC on TEP ordered by its sample number: train on d00, drag the threshold, predict on d01_te, zoom, and see the alarm after sample 161 with its contributions', async () => {
  // TEP has no dates: the dataset is a time series ordered by its whole-number `sample` column
  const d00 = await upload('TEP normal d00', 'd00.csv', D00, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'sample' });
  // its time-series chart runs along the sample numbers 1..500 (not dates), in English and Japanese
  await page.goto(`${server.url}/visualization/details/${d00}?tab=timeseries`);
  const tsChart = page.getByTestId('timeseries-chart');
  await tsChart.waitFor({ timeout: 180_000 });
  const tsData = JSON.parse((await tsChart.getAttribute('data-chart'))!);
  assert.deepEqual([tsData.start, tsData.end, tsData.window_rows], [1, 500, 500]);
  await shot('00-visualization-by-sample');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByTestId('timeseries-chart').waitFor({ timeout: 180_000 });
  await shot('00a-visualization-by-sample-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();
  await page.getByTestId('timeseries-chart').waitFor({ timeout: 180_000 });
  await upload('TEP fault 1 test', 'd01_te.csv', D01, { data_type: 'inference_data' });

  await newProject(/TEP normal d00/, 'Time-series anomaly detection (unsupervised)');
  await page.waitForURL(/\/training\/time_series_anomaly_detection_unsupervised\/register\//);
  // ordered by a whole number: the field is named a row-order column, not a datetime column
  await page.getByRole('combobox', { name: 'Row-order column (row number)' }).waitFor();
  assert.match(await page.getByRole('combobox', { name: 'Row-order column (row number)' }).innerText(), /sample/);
  await shot('01-wizard-series');
  // the period the models learn from comes first, then the windowing
  await page.getByRole('button', { name: 'Next' }).click();
  // the normal period is picked on the series drawn against the sample numbers: From/To are sample numbers
  const chart = page.getByTestId('normal-period-chart');
  await chart.locator('path').first().waitFor();
  assert.match(await chart.locator('text').first().innerHTML(), /^\d+$/);
  const cb = (await chart.boundingBox())!;
  await page.mouse.move(cb.x + cb.width * 0.1, cb.y + cb.height / 2);
  await page.mouse.down();
  await page.mouse.move(cb.x + cb.width * 0.5, cb.y + cb.height / 2, { steps: 8 });
  await page.mouse.up();
  const from = Number(await page.getByRole('textbox', { name: 'From' }).inputValue());
  const to = Number(await page.getByRole('textbox', { name: 'To' }).inputValue());
  assert.ok(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to <= 500 && to - from > 100, `${from} .. ${to}`);
  await page.getByTestId('normal-period-band').waitFor();
  await shot('02a-wizard-normal-by-sample');
  await page.getByRole('radio', { name: 'The first N rows' }).check();
  await page.getByRole('textbox', { name: 'N rows' }).fill('500');
  await shot('02-wizard-normal');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByTestId('drift-suggestion').waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  const pca = "PCA-MSPC (Hotelling's T² and Q statistic / SPE)";
  await page.getByRole('checkbox', { name: pca }).waitFor();
  assert.ok(await page.getByRole('checkbox', { name: pca }).isChecked());
  // parameters by their catalogue labels, with help and range
  await page.getByRole('textbox', { name: 'Confidence of the control limits' }).waitFor();
  await shot('02b-wizard-detectors');
  await page.getByRole('checkbox', { name: 'Isolation Forest' }).check();
  await page.getByRole('button', { name: 'Next' }).click();
  await createAndWait();
  const details = page.url();
  await shot('03-details');

  // The threshold page: drag the line and the false-alarm rate and alarm count change at once.
  await page.getByRole('link', { name: 'Threshold', exact: true }).first().click();
  await page.waitForURL(/\/training\/result\/threshold\//);
  const far = page.getByTestId('metric-far');
  await far.waitFor();
  const before = await far.innerText();
  // the trained threshold was set on the held-back last 30 % of the normal period (not the textbook limit 1)
  const trained = Number((await page.getByText(/^Trained threshold [\d.]+/).innerText()).match(/Trained threshold ([\d.]+)/)![1]);
  assert.ok(trained > 0, String(trained));
  // the false alarms on those held-back normal rows lead the figures
  await page.getByTestId('metric-heldout_far').waitFor();
  await shot('04-threshold');
  const line = page.getByTestId('threshold-line');
  const box = (await line.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 120, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction((b) => document.querySelector('[data-testid="metric-far"]')?.textContent !== b, before, { timeout: 180_000 });
  const lower = Number((await page.getByRole('textbox', { name: 'Threshold' }).inputValue()).trim());
  assert.ok(lower < trained, `the dragged threshold ${lower} is below the trained one ${trained}`);
  await shot('05-threshold-dragged');
  // back to the trained threshold, saved: predictions use it
  await page.getByRole('button', { name: 'Trained threshold' }).click();
  await page.waitForFunction((v) => Number((document.querySelector('input[aria-label="Threshold"]') as HTMLInputElement)?.value) === v, trained);
  await page.getByRole('button', { name: 'Save threshold' }).click();
  await page.getByText('Threshold saved').waitFor();

  // Predict on d01_te: alarms start just after the fault onset at sample 161.
  await page.goto(details);
  await page.getByRole('link', { name: 'Predict', exact: true }).first().click();
  await page.waitForURL(/\/training\/prediction\/register\//);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('combobox', { name: 'Inference dataset' }).click();
  await page.getByRole('option', { name: /TEP fault 1 test/ }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Predict', exact: true }).click();
  await page.waitForURL(/\/prediction\/time-series\/report\//);
  const summary = page.getByTestId('prediction-summary');
  await summary.waitFor({ timeout: 180_000 });
  await page.getByRole('list', { name: 'contributions' }).waitFor();
  // TEP is ordered by its sample number: the first alarm is said by it (sample n is row n)
  const [, firstSample, first] = /First alarm at sample (\d+) \(row (\d+)\)/.exec(await page.getByTestId('first-alarm').innerText())!.map(Number);
  assert.equal(firstSample, first);
  // the first sustained alarm span is the one drawn: find it through the API the page uses
  const id = page.url().split('/').pop()!;
  const series = await (await fetch(`${server.url}/api/timeseries/prediction/series/${id}`, { headers: { authorization: `Bearer ${token}` } })).json();
  const sustained = series.detail.response.spans.find((s: { start: number; end: number }) => s.end - s.start >= 4);
  assert.ok(sustained.start + 1 >= 158 && sustained.start + 1 <= 180, `sustained alarm from sample ${sustained.start + 1}`);
  assert.ok(first >= 1);
  await shot('06-prediction');
  // zoom on the prediction report: drag across the score chart; the server sends that window downsampled again
  const window = page.getByTestId('prediction-window');
  assert.equal(await window.innerText(), 'sample 1 – 960: 960 of 960 rows');
  // the axis is labelled by the sample numbers
  const ticks = (await page.getByTestId('time-tick').allTextContents()).map(Number);
  assert.equal(ticks[0], 1);
  assert.ok(ticks.every((v, i) => Number.isInteger(v) && (i === 0 || v > ticks[i - 1])) && ticks.at(-1)! >= 950, ticks.join(','));
  const score = page.getByRole('img', { name: 'Anomaly score' });
  const sb = (await score.boundingBox())!;
  await page.mouse.move(sb.x + sb.width * 0.15, sb.y + sb.height / 2);
  await page.mouse.down();
  await page.mouse.move(sb.x + sb.width * 0.35, sb.y + sb.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(() => !/^sample 1 – 960:/.test(document.querySelector('[data-testid="prediction-window"]')?.textContent ?? ''), undefined, { timeout: 180_000 });
  const [, a, b] = /^sample (\d+) – (\d+): \d+ of 960 rows$/.exec(await window.innerText())!.map(Number);
  assert.ok(a > 1 && b < 960 && b - a < 400, `zoomed to rows ${a}–${b}`);
  await shot('06a-prediction-zoomed');
  await page.getByRole('button', { name: 'Reset zoom' }).click();
  await page.waitForFunction(() => /^sample 1 – 960:/.test(document.querySelector('[data-testid="prediction-window"]')?.textContent ?? ''), undefined, { timeout: 180_000 });
  // in Japanese
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByTestId('prediction-window').filter({ hasText: 'sample 1 – 960（全 960 行のうち 960 行）' }).waitFor();
  await page.getByRole('button', { name: '拡大を戻す' }).waitFor();
  await shot('06b-prediction-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();
  await page.getByTestId('prediction-window').waitFor();

  // The report in Japanese too.
  await page.goto(details);
  await page.getByRole('link', { name: 'Report', exact: true }).first().click();
  await page.waitForURL(/\/training\/time-series\/report\//);
  await page.getByRole('table', { name: 'Alarms' }).waitFor();
  await shot('07-report');
  // and in Japanese (the language switch saves the choice and reloads)
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('table', { name: 'アラーム' }).waitFor();
  await shot('08-report-ja');
  await page.goto(page.url().replace('/training/time-series/report/', '/training/result/threshold/'));
  await page.getByTestId('metric-far').waitFor();
  await page.getByText('誤報率（FAR）').waitFor();
  // no dates on a series ordered by sample number: alarms per 1,000 rows instead of per day
  await page.getByTestId('metric-alarms_per_1000_rows').getByText('1,000行あたりのアラーム').waitFor();
  assert.equal(await page.getByTestId('metric-alarms_per_day').count(), 0);
  await shot('09-threshold-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();
});

test('supervised on SKAB valve1 with its anomaly column, time-ordered split', async () => {
  await upload('SKAB valve1 0', '0.csv', SKAB, { training_type: 'time_series_anomaly_detection_supervised', type: 'supervised', datetime_column: 'datetime' });
  await newProject(/SKAB valve1 0/, 'Time-series anomaly detection (supervised)');
  await page.waitForURL(/\/training\/time_series_anomaly_detection_supervised\/register\//);
  await page.getByRole('combobox', { name: 'Date/time column' }).waitFor();
  assert.match(await page.getByRole('combobox', { name: /^Label column/ }).innerText(), /anomaly/);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('textbox', { name: /Share of rows/ }).fill('0.75');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('textbox', { name: /Rolling windows/ }).fill('5, 30s');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('checkbox', { name: 'Logistic regression' }).check();
  await page.getByRole('button', { name: 'Next' }).click();
  await createAndWait();
  await page.getByRole('link', { name: 'Threshold', exact: true }).first().click();
  await page.getByTestId('metric-f1').waitFor();
  const f1 = await page.getByTestId('metric-f1').innerText();
  await page.getByRole('textbox', { name: 'Threshold' }).fill('0.99');
  await page.getByRole('textbox', { name: 'Threshold' }).press('Enter');
  await page.waitForFunction((b) => document.querySelector('[data-testid="metric-f1"]')?.textContent !== b, f1, { timeout: 180_000 });
  await shot('10-skab-threshold');
});

test('unsupervised on SKAB: the normal period is chosen by dragging on the series chart', async () => {
  await upload('SKAB valve1 0 unlabelled', '0.csv', SKAB, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
  await newProject(/SKAB valve1 0 unlabelled/, 'Time-series anomaly detection (unsupervised)');
  await page.waitForURL(/\/training\/time_series_anomaly_detection_unsupervised\/register\//);
  await page.getByRole('combobox', { name: 'Date/time column' }).waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  const chart = page.getByTestId('normal-period-chart');
  await chart.locator('path').first().waitFor();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.05, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const from = await page.getByRole('textbox', { name: 'From' }).inputValue();
  const to = await page.getByRole('textbox', { name: 'To' }).inputValue();
  assert.match(from, /^2020-03-09 \d\d:\d\d:\d\d$/);
  assert.match(to, /^2020-03-09 \d\d:\d\d:\d\d$/);
  assert.ok(to > from, `${from} .. ${to}`);
  assert.ok(await page.getByRole('radio', { name: 'A range of the series' }).isChecked());
  await page.getByTestId('normal-period-band').waitFor();
  await shot('11-wizard-drag-normal-period');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('button', { name: '次へ' }).click();
  await page.getByTestId('normal-period-chart').locator('path').first().waitFor();
  await shot('12-wizard-drag-normal-period-ja');
  await page.getByRole('button', { name: '次へ' }).click();
  await page.getByRole('textbox', { name: /リサンプリング/ }).waitFor();
  await shot('12a-wizard-windows-resample-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();
  await page.getByRole('button', { name: 'Next' }).click();
  const chart2 = page.getByTestId('normal-period-chart');
  await chart2.locator('path').first().waitFor();
  const b2 = (await chart2.boundingBox())!;
  await page.mouse.move(b2.x + b2.width * 0.02, b2.y + b2.height / 2);
  await page.mouse.down();
  await page.mouse.move(b2.x + b2.width * 0.35, b2.y + b2.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('textbox', { name: /Resample to regular periods/ }).fill('1s');
  await shot('11a-wizard-windows-resample');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  // the last step says the choices in words: the dragged range as the normal period, resampled every second
  const preview = await page.getByTestId('wizard-summary').innerText();
  assert.match(preview, /Normal period\s+2020-03-09 \d\d:\d\d:\d\d – 2020-03-09 \d\d:\d\d:\d\d/);
  assert.match(preview, /Resampling\s+1s/);
  await shot('12b-skab-summary');
  await page.getByRole('button', { name: 'Create and start' }).click();
  await page.waitForURL(/\/training\/time-series\/details\//);
  // Done, or a failure message (the test then fails with what the page said)
  const table = page.getByRole('table', { name: 'Detectors' });
  await table.getByText(/^(Done|Train failed)$/).first().waitFor({ timeout: 240_000 });
  await shot('13-skab-unsupervised-trained');
  assert.equal(await table.getByText('Train failed', { exact: true }).count(), 0, await table.innerText());
  await page.getByText('Resampling').waitFor();
});
