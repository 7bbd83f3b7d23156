import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp, shooter } from '../support/app.ts';
import { type RunningServer, SHARED_DATA } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

// SKAB valve1/0.csv: 1,147 rows at 1 s, its `anomaly` label 0 for the first 573 rows (to 2020-03-09 10:24:32)
const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8');

let server: RunningServer;
let browser: Browser;
let page: Page;
let token = '';
const shot = shooter('ts-normal', () => page);

before(async () => {
  ({ server, browser, page } = await openApp({ viewport: { width: 1400, height: 950 } }));
  const email = `tsn.${Date.now()}@example.com`;
  ({ token } = await signUp(server, { email, first_name: 'Aiko', last_name: 'Sato', organisation_name: 'Pump Rig' }));
  await signIn(page, server, email);
});

after(() => closeApp({ server, browser }));

async function upload(name: string, csv: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name, data_type: 'training_data', type: 'unsupervised', ...fields })) form.append(k, v);
  form.append('file', new Blob([csv], { type: 'text/csv' }), '0.csv');
  const res = await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).detail.response.id as string;
}

/** The band's left and right edges as shares of the plotting area's width. */
async function bandShare() {
  const chart = page.getByTestId('normal-period-chart');
  const band = chart.getByTestId('normal-period-band');
  await band.waitFor();
  const plot = chart.locator('rect').first();
  const [x, w] = [Number(await band.getAttribute('x')), Number(await band.getAttribute('width'))];
  const [px, pw] = [Number(await plot.getAttribute('x')), Number(await plot.getAttribute('width'))];
  return [(x - px) / pw, (x + w - px) / pw];
}

test('the default normal period comes from the label (the rows before its first anomaly), is said so and shaded on the chart before training, in English and Japanese', async () => {
  const id = await upload('SKAB valve1 0 labelled', SKAB, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
  await page.goto(`${server.url}/training/time_series_anomaly_detection_unsupervised/register/${id}`);
  await page.getByRole('combobox', { name: 'Date/time column' }).waitFor({ timeout: 120_000 });
  await page.getByRole('button', { name: 'Next' }).click();
  const rows = page.getByRole('textbox', { name: 'N rows' });
  await page.waitForFunction(() => (document.querySelector('input[inputmode="numeric"]') as HTMLInputElement | null)?.value === '573', undefined, { timeout: 120_000 });
  assert.equal(await rows.inputValue(), '573');
  const said = await page.getByTestId('normal-default-source').innerText();
  assert.match(said, /Suggested from the label “anomaly”: the first 573 rows, every row before its first anomaly/);
  await page.getByText(/learn from the first 70 % of the normal period and set their thresholds on the last 30 %/).waitFor();
  await page.getByTestId('normal-period-chart').locator('path').first().waitFor({ timeout: 120_000 });
  // shaded from the start of the series to its 573rd row: 573 of 1,147 rows at one a second, about half the width
  const [left, right] = await bandShare();
  assert.ok(Math.abs(left) < 0.01 && right > 0.45 && right < 0.55, `${left} .. ${right}`);
  await page.getByText('shaded: the normal period').waitFor();
  await shot('01-default-from-label');

  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  await page.getByRole('button', { name: '次へ' }).click({ timeout: 120_000 });
  await page.getByTestId('normal-default-source').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('normal-default-source').innerText(), /ラベル「anomaly」から提案: 最初の異常より前の573行/);
  await page.getByTestId('normal-period-chart').locator('path').first().waitFor({ timeout: 120_000 });
  await page.getByText('網掛け: 正常期間').waitFor();
  await bandShare();
  await shot('02-default-from-label-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));

  // no label: the first half is offered as a warning to confirm, and shaded the same way
  const unlabelled = await upload('SKAB valve1 0 no label', SKAB.split('\n').map((l) => l.split(';').slice(0, 9).join(';')).join('\n'), { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
  await page.goto(`${server.url}/training/time_series_anomaly_detection_unsupervised/register/${unlabelled}`);
  await page.getByRole('button', { name: 'Next' }).click({ timeout: 120_000 });
  await page.getByTestId('normal-default-source').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('normal-default-source').innerText(), /No label to go by: the first half \(573 of 1,147 rows\)/);
  assert.equal(await rows.inputValue(), '573');
  await page.getByTestId('normal-period-chart').locator('path').first().waitFor({ timeout: 120_000 });
  await bandShare();
  await shot('03-default-first-half');
});
