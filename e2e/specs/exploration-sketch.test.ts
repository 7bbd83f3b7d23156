import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chartData as readChart, closeApp, openApp, shooter } from '../support/app.ts';
import type { RunningServer } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

// Issue 17: once the statistics job has written the exploration sketch, the visualization page answers from it —
// Spearman on all rows (no sampling note above 200,000 rows), box plots saying how many outliers are drawn, the
// sampled scatter saying it shows the stored stratified sample, the density from the stored grid.
const ROWS = 250_000;

let server: RunningServer;
let browser: Browser;
let page: Page;
let email: string;
let token: string;
let datasetId: string;

const shot = shooter('', () => page);

const chartData = (testId: string) => readChart(page, testId);

const api = async (url: string, body?: unknown) => {
  const r = await fetch(`${server.url}${url}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()).detail.response;
};

before(async () => {
  ({ server, browser, page } = await openApp());
  email = `sketch.${Date.now()}@example.com`;
  ({ token } = await signUp(server, { email, first_name: 'Hana', last_name: 'Sato', organisation_name: 'Sketch Works' }));
  // A heavy-tailed column (thousands of Tukey outliers) and two correlated ones, generated reproducibly.
  let seed = 17;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines = ['heavy,a,b'];
  for (let i = 0; i < ROWS; i++) {
    const a = Math.round(rnd() * 1e6) / 1e3;
    lines.push(`${Math.round((rnd() - 0.5) ** 5 * 1e7) / 100},${a},${Math.round((a + rnd() * 300) * 1000) / 1000}`);
  }
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'Heavy tails', data_type: 'training_data', type: 'supervised', training_type: 'regression', category: '', comment: '' })) form.append(k, v);
  form.append('file', new Blob([lines.join('\n') + '\n']), 'heavy.csv');
  const up = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(up.status, 201, await up.clone().text());
  datasetId = (await up.json()).detail.response.id;
  // The statistics job starts on registration and writes the sketch in the same pass.
  for (let i = 0; i < 600; i++) {
    const s = await api(`/api/statistics/result/${datasetId}`);
    if (s.state === 'succeeded') break;
    assert.ok(['queued', 'running'].includes(s.state), JSON.stringify(s));
    await new Promise((r) => setTimeout(r, 500));
  }
});

after(() => closeApp({ server, browser }));

test('exploration from the sketch: outliers note and Spearman on all rows, in English and Japanese', async () => {
  const box = await api(`/api/visualization/boxplot/${datasetId}`, { columns: ['heavy'] });
  const heavy = box.columns[0];
  assert.ok(heavy.outlier_count > 1000, `outliers: ${heavy.outlier_count}`);
  assert.equal(heavy.outliers.length, 200);

  await signIn(page, server, email);
  await page.goto(`${server.url}/visualization/details/${datasetId}`);
  await page.getByRole('tab', { name: 'Distributions' }).click();
  await chartData('boxplot-chart');
  const count = heavy.outlier_count.toLocaleString('en-GB');
  await page.getByText(`heavy: 200 of ${count} outliers are drawn; the quartiles, whiskers and the count use every row.`).waitFor();
  await shot('s01-boxplot-outliers-note');

  await page.getByRole('tab', { name: 'Correlation' }).click();
  await page.getByRole('button', { name: 'Spearman' }).click();
  await page.waitForFunction(() => JSON.parse(document.querySelector('[data-testid="correlation-chart"]')?.getAttribute('data-chart') ?? '{}').method === 'spearman');
  const corr = await chartData('correlation-chart');
  assert.deepEqual(corr.columns, ['heavy', 'a', 'b']);
  const answer = await api(`/api/visualization/correlation/${datasetId}`, { method: 'spearman' });
  assert.deepEqual([answer.sample, answer.sample_rows, answer.rows], [false, ROWS, ROWS]);
  assert.deepEqual(corr.matrix, answer.matrix);
  assert.equal(await page.getByText(/Spearman ranks computed on a random sample/).count(), 0);
  await shot('s02-spearman-all-rows');

  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('tab', { name: '分布' }).click();
  await page.getByText(`heavy: 外れ値 ${heavy.outlier_count.toLocaleString('ja-JP')} 点のうち 200 点を描画しています。`, { exact: false }).waitFor();
  await shot('s03-boxplot-outliers-note-ja');
  await page.getByRole('tab', { name: '相関' }).click();
  await page.getByRole('button', { name: 'スピアマン' }).click();
  await page.waitForFunction(() => JSON.parse(document.querySelector('[data-testid="correlation-chart"]')?.getAttribute('data-chart') ?? '{}').method === 'spearman');
  await shot('s04-spearman-all-rows-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
});

test('scatter from the sketch: the stratified sample says what it is, the density counts every row, in English and Japanese', async () => {
  await page.goto(`${server.url}/visualization/details/${datasetId}`);
  await page.getByRole('tab', { name: 'Scatter plot', exact: true }).click();
  const note = page.getByTestId('scatter-sample-note');
  await note.waitFor();
  assert.equal(
    (await note.textContent())?.trim(),
    `Showing a sample of 50,000 of ${ROWS.toLocaleString('en-GB')} points: rows drawn at random, evenly from every part of the data (a stratified sample, the same for every pair of columns).`,
  );
  const sample = await chartData('scatter-chart');
  assert.deepEqual([sample.mode, sample.sample, sample.returned], ['sample', true, 50_000]);
  // The page reads the packed answer (thousandths: integers of three bytes); its points are the JSON arrays' own.
  const arrays = await api(`/api/visualization/scatter/${datasetId}`, { x: sample.x, y: sample.y, color: sample.color, mode: 'sample', bins: 100 });
  assert.deepEqual(sample.head, arrays.points.slice(0, 5));
  await shot('s05-scatter-stratified-sample');
  await page.getByRole('button', { name: 'Density' }).click();
  await page.getByText(`All ${ROWS.toLocaleString('en-GB')} points, counted in a grid of cells.`).waitFor();
  const density = await chartData('scatter-chart');
  assert.deepEqual([density.mode, density.sample, density.total], ['bin', false, ROWS]);
  await shot('s06-scatter-density');

  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('tab', { name: '散布図', exact: true }).click();
  await page.getByText('層別抽出', { exact: false }).waitFor();
  await shot('s07-scatter-stratified-sample-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
});
