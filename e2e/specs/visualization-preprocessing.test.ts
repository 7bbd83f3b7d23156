import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chartData as readChart, closeApp, openApp, shooter } from '../support/app.ts';
import { type RunningServer, SHARED_DATA } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

const CSV = path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv');

let server: RunningServer;
let browser: Browser;
let page: Page;
let email: string;
let token: string;
let datasetId: string;

const shot = shooter('', () => page);

const chartData = (testId: string) => readChart(page, testId);

/** The CSV read independently of the app (';'-separated SKAB file), for reference figures. */
function readCsv() {
  const [head, ...lines] = fs.readFileSync(CSV, 'utf8').trim().split(/\r?\n/);
  const names = head.split(';');
  const rows = lines.map((l) => l.split(';'));
  const col = (n: string) => rows.map((r) => Number(r[names.indexOf(n)]));
  return { names, rows, col };
}

function pearson(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

before(async () => {
  ({ server, browser, page } = await openApp());
  // An account and a time-series dataset through the API (the dataset pages have their own e2e).
  email = `vis.${Date.now()}@example.com`;
  ({ token } = await signUp(server, { email, first_name: 'Taro', last_name: 'Yamada', organisation_name: 'Valve Works' }));
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'Valve 1', data_type: 'training_data', type: 'unsupervised', training_type: 'regression', category: 'pump', comment: '', datetime_column: 'datetime' })) form.append(k, v);
  form.append('file', new Blob([fs.readFileSync(CSV)]), '0.csv');
  const up = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(up.status, 201, await up.clone().text());
  datasetId = (await up.json()).detail.response.id;
});

after(() => closeApp({ server, browser }));

test('visualization: histogram, scatter, correlation and time series receive the right data', async () => {
  const ref = readCsv();
  await signIn(page, server, email);

  await page.goto(`${server.url}/visualization`);
  await page.getByRole('cell', { name: 'Valve 1' }).click();
  await page.waitForURL(/\/visualization\/details\//);
  await page.getByRole('tab', { name: 'Column statistics' }).waitFor();
  await shot('v01-statistics');

  await page.getByRole('tab', { name: 'Distributions' }).click();
  const hist = await chartData('histogram-chart');
  assert.equal(hist.column, 'Accelerometer1RMS');
  assert.equal(hist.edges.length, 31);
  assert.equal(hist.counts.reduce((a: number, b: number) => a + b, 0), 1147);
  const acc = ref.col('Accelerometer1RMS');
  assert.ok(Math.abs(hist.edges[0] - Math.min(...acc)) < 1e-12 && Math.abs(hist.edges[30] - Math.max(...acc)) < 1e-12);
  // hand count of the first bin: values below the second edge
  assert.equal(hist.counts[0], acc.filter((v) => v < hist.edges[1]).length);
  await shot('v02-distributions');

  await page.getByRole('tab', { name: 'Scatter plot', exact: true }).click();
  const sc = await chartData('scatter-chart');
  assert.deepEqual([sc.x, sc.y, sc.sample, sc.total, sc.returned], ['Accelerometer1RMS', 'Accelerometer2RMS', false, 1147, 1147]);
  assert.deepEqual(sc.head[0], [Number(ref.rows[0][1]), Number(ref.rows[0][2])]);
  await page.getByText('All 1,147 points are shown.').waitFor();
  await shot('v03-scatter');

  await page.getByRole('tab', { name: 'Correlation' }).click();
  const corr = await chartData('correlation-chart');
  assert.equal(corr.method, 'pearson');
  const i = corr.columns.indexOf('Pressure');
  const j = corr.columns.indexOf('Temperature');
  assert.ok(i >= 0 && j >= 0);
  assert.ok(Math.abs(corr.matrix[i][j] - pearson(ref.col('Pressure'), ref.col('Temperature'))) < 1e-9);
  assert.equal(corr.matrix[i][i], 1);
  await shot('v04-correlation');

  await page.getByRole('tab', { name: 'Time series' }).click();
  const ts = await chartData('timeseries-chart');
  assert.equal(ts.window_rows, 1147);
  assert.equal(ts.columns.length, 3);
  await shot('v05-timeseries');
});

test('pre-processing: a 3-step condition, previewed, run, registered, with its history', async () => {
  await page.goto(`${server.url}/pre-processing/details/${datasetId}`);
  await page.getByRole('button', { name: 'Next' }).click();

  const addStep = async (type: string, method: string | null, fill: () => Promise<void>) => {
    await page.getByRole('button', { name: 'Add step' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Process type' }).click();
    await page.getByRole('option', { name: type, exact: true }).click();
    if (method) {
      await dialog.getByRole('combobox', { name: 'Method' }).click();
      await page.getByRole('option', { name: method, exact: true }).click();
    }
    await fill();
    await dialog.getByRole('button', { name: 'Add step' }).click();
    await dialog.waitFor({ state: 'detached' });
  };
  const pickColumn = async (label: string, name: string) => {
    const box = page.getByRole('dialog').getByRole('combobox', { name: label });
    await box.fill(name);
    await page.getByRole('option', { name, exact: true }).click();
    await page.keyboard.press('Escape');
  };

  await addStep('Outliers', 'Z-score', async () => {
    await pickColumn('Columns (optional)', 'Pressure');
    await page.getByRole('dialog').getByRole('textbox', { name: 'Threshold' }).fill('2');
  });
  await addStep('Scaling', null, async () => pickColumn('Columns (optional)', 'Temperature'));
  await addStep('Computed column', null, async () => {
    await page.getByRole('dialog').getByRole('textbox', { name: 'New column name' }).fill('power');
    await page.getByRole('dialog').getByRole('textbox', { name: 'Expression' }).fill('Current * Voltage');
  });
  await shot('p01-steps');

  // Preview the first step: the clipped Pressure values and before/after histograms.
  await page.getByRole('button', { name: 'Preview' }).first().click();
  const summary = page.getByTestId('preview-summary');
  await summary.waitFor();
  const pv = JSON.parse((await summary.getAttribute('data-preview'))!);
  assert.equal(pv.rows_before, 1147);
  assert.equal(pv.rows_after, 1147);
  assert.ok(pv.rows_changed > 0);
  assert.deepEqual(Object.keys(pv.cells_changed), ['Pressure']);
  const ph = await chartData('preview-histogram');
  assert.equal(ph.column, 'Pressure');
  assert.equal(ph.before.reduce((a: number, b: number) => a + b, 0), 1147);
  await page.getByRole('table', { name: 'Affected rows' }).waitFor();
  await shot('p02-preview');

  // Preview the computed column too.
  await page.getByRole('button', { name: 'Preview' }).nth(2).click();
  await page.getByText('Added: power').waitFor();

  await page.getByRole('textbox', { name: 'Condition name' }).fill('valve e2e');
  await page.getByRole('button', { name: 'Save condition' }).click();
  await page.getByText('Condition "valve e2e" saved.').waitFor();
  // Saving again under the same name asks before overwriting (SPEC §5).
  await page.getByRole('button', { name: 'Save condition' }).click();
  await page.getByRole('dialog', { name: 'Overwrite the condition?' }).waitFor();
  await shot('p03-duplicate');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Run condition' }).click();
  await page.getByRole('dialog', { name: 'Overwrite the condition?' }).waitFor();
  await page.getByRole('button', { name: 'Overwrite' }).click();
  await page.getByTestId('run-result').waitFor({ timeout: 180_000 });
  await page.getByText('1,147 rows × 11 columns into 1,147 rows × 12 columns').waitFor();
  await shot('p04-result');
  await page.getByRole('textbox', { name: 'New dataset name' }).fill('Valve 1 cleaned');
  await page.getByRole('button', { name: 'Register as a new dataset' }).click();
  await page.getByTestId('registered').waitFor();
  await page.getByRole('link', { name: 'Valve 1 cleaned' }).click();
  await page.waitForURL(/\/dataset\/details\//);
  for (const cell of ['outliers', 'scaling', 'computed']) await page.getByRole('cell', { name: cell, exact: true }).first().waitFor();
  await page.getByText('Valve 1', { exact: true }).first().waitFor(); // the parent dataset name
  await shot('p05-history');

  // The saved condition is listed with its fitted parameters and can be downloaded as condition_setting_file.csv.
  await page.goto(`${server.url}/pre-processing`);
  const row = page.getByRole('row').filter({ hasText: 'valve e2e' });
  await row.getByRole('cell', { name: 'Yes', exact: true }).waitFor();
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download valve e2e' }).click();
  assert.equal((await download).suggestedFilename(), 'condition_setting_file.csv');
  await shot('p06-conditions');
});
