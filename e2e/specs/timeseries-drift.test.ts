import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp, shooter } from '../support/app.ts';
import { type RunningServer, SHARED_DATA } from '../support/server.ts';
import { signIn, signUp, uploadDataset } from '../support/session.ts';

const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8');

let server: RunningServer;
let browser: Browser;
let page: Page;
let token = '';

const shot = shooter('tsdrift', () => page);

before(async () => {
  ({ server, browser, page } = await openApp({ viewport: { width: 1400, height: 1000 } }));
  const email = `tsdrift.${Date.now()}@example.com`;
  ({ token } = await signUp(server, { email, first_name: 'Aiko', last_name: 'Sato', organisation_name: 'Valve Rig' }));
  await signIn(page, server, email);
});

after(() => closeApp({ server, browser }));

test('SKAB with its thermal signals as slowly drifting: chosen in the wizard (en, ja), trained, shown on the details and report pages', async () => {
  const id = await uploadDataset(server, token, 'SKAB valve1 0 drift', '0.csv', SKAB, { type: 'unsupervised', training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
  const wizard = `${server.url}/training/time_series_anomaly_detection_unsupervised/register/${id}`;

  // in Japanese: the period first (the first 400 rows), then the windowing step with the engine's suggestion
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.goto(wizard);
  await page.getByRole('button', { name: '次へ' }).click();
  await page.getByRole('radio', { name: '先頭 N 行' }).check();
  await page.getByRole('textbox', { name: 'N 行' }).fill('400');
  await page.getByRole('button', { name: '次へ' }).click();
  const suggestionJa = page.getByTestId('drift-suggestion-drifting');
  await suggestionJa.waitFor({ timeout: 120_000 });
  assert.match(await suggestionJa.innerText(), /Temperature — 正常期間の中で、水準が短期的な変動の標準偏差の[\d.]+倍動いています。/);
  assert.match(await suggestionJa.innerText(), /Thermocouple — /);
  // the default for drifting signals is filled in by itself, and says so and why
  const defaultJa = page.getByTestId('drift-default');
  await defaultJa.getByText('既定で設定しました', { exact: false }).waitFor();
  assert.match(await defaultJa.innerText(), /Temperature, Thermocouple がドリフトしている.*\d+ 行の変化として使い、ほかの信号には 5 行の窓.*直近 5 行のうち 3 行/s);
  assert.equal(await page.getByRole('button', { name: '提案を使う' }).isDisabled(), true);
  for (const n of ['Temperature', 'Thermocouple']) await page.getByRole('button', { name: n }).waitFor();
  assert.match(await page.getByRole('textbox', { name: 'N行の変化を使う' }).inputValue(), /^\d+$/);
  assert.equal(await page.getByRole('textbox', { name: /移動ウィンドウ/ }).inputValue(), '5');
  await page.getByText('モデルは信号がどこにあるかではなく、どれだけ速く変わるかを見ます', { exact: false }).waitFor();
  await shot('01-wizard-windowing-ja');
  // the detectors step: the alarm rule the default filled in, said so
  await page.getByRole('button', { name: '次へ' }).click();
  const alarmJa = page.getByTestId('drift-default-alarm');
  await alarmJa.waitFor();
  assert.match(await alarmJa.innerText(), /警報ルール 直近 5 行のうち 3 行/);
  await shot('01b-wizard-detectors-ja');

  // in English: the whole way
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.goto(wizard);
  await page.getByRole('combobox', { name: 'Date/time column' }).waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('radio', { name: 'The first N rows' }).check();
  await page.getByRole('textbox', { name: 'N rows' }).fill('400');
  await page.getByRole('button', { name: 'Next' }).click();
  const rows = page.getByRole('textbox', { name: 'Use their change over N rows' });
  // the default fills in the suggestion with 5-row windows and the 3-of-5 alarm rule; the person may keep the levels
  const byDefault = page.getByTestId('drift-default');
  await byDefault.getByText('Filled in by default', { exact: false }).waitFor({ timeout: 120_000 });
  assert.match(await byDefault.innerText(), /Temperature, Thermocouple drift within the normal period: they enter as their change over \d+ rows, the other signals also through a 5-row window, and each detector alarms when 3 of the last 5 rows are over its threshold\./);
  assert.equal(await page.getByRole('textbox', { name: /Rolling windows/ }).inputValue(), '5');
  await shot('02b-wizard-default');
  await page.getByRole('button', { name: 'Keep the levels' }).click();
  await byDefault.getByText('the default for them is not in force', { exact: false }).waitFor();
  assert.equal(await rows.isDisabled(), true, 'kept the levels: no drifting signal');
  assert.equal(await page.getByRole('textbox', { name: /Rolling windows/ }).inputValue(), '');
  await page.getByRole('textbox', { name: /Rolling windows/ }).fill('5');
  for (const st of ['standard deviation', 'minimum', 'maximum']) await page.getByRole('checkbox', { name: st }).uncheck();
  // the engine's suggestion on the first 400 rows: the thermal signals, each with its reason; the fast ones on request
  const suggestion = page.getByTestId('drift-suggestion-drifting');
  await suggestion.waitFor({ timeout: 120_000 });
  assert.match(await suggestion.innerText(), /Temperature — Its level moves by [\d.]+ standard deviations of its short-term variation over the normal period, gradually and without coming back\./);
  await page.getByRole('button', { name: 'Why not the other 6 signals' }).click();
  assert.match(await page.getByTestId('drift-suggestion-others').innerText(), /Voltage — Its level moves by [\d.]+ standard deviations/);
  await shot('02a-wizard-suggestion');
  await page.getByRole('button', { name: 'Use the suggestion' }).click();
  for (const n of ['Temperature', 'Thermocouple']) await page.getByRole('button', { name: n }).waitFor();
  const suggested = Number(await rows.inputValue());
  assert.ok(Number.isInteger(suggested) && suggested >= 2 && suggested <= 100, String(suggested));
  await page.getByText('Filled in below; you can still change the signals and N.').waitFor();
  // still the user's to change: the design's 45 rows instead
  await rows.fill('');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText("Give the number of rows (1 or more) over which the drifting signals' change is taken.").waitFor();
  await rows.fill('45');
  await shot('02-wizard-windowing');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('textbox', { name: 'Confidence of the control limits' }).fill('0.995');
  await page.getByRole('textbox', { name: 'Alarm rule: rows over the threshold (k)' }).fill('10');
  await page.getByRole('textbox', { name: 'Alarm rule: last rows looked at (n)' }).fill('20');
  await page.getByRole('button', { name: 'Next' }).click();
  const summary = page.getByTestId('wizard-summary');
  await summary.getByText('Temperature, Thermocouple: change over 45 rows').waitFor();
  await summary.getByText('5 (mean)').waitFor();
  // created only, so the page is read before training starts; then Train on the project page
  await page.getByRole('button', { name: 'Create only' }).click();
  await page.waitForURL(/\/training\/time-series\/details\//);
  await page.getByText('Temperature, Thermocouple: change over 45 rows').waitFor();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.getByRole('table', { name: 'Detectors' }).getByText('Done', { exact: true }).first().waitFor({ timeout: 240_000 });
  const details = page.url();
  await shot('03-details');
  await page.getByRole('link', { name: 'Report', exact: true }).first().click();
  await page.waitForURL(/\/training\/time-series\/report\//);
  await page.getByRole('table', { name: 'Alarms' }).waitFor();
  assert.match(await page.getByTestId('report-drift').innerText(), /Slowly drifting signals: Temperature, Thermocouple: change over 45 rows/);
  await shot('04-report');

  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.goto(details);
  await page.getByText('Temperature, Thermocouple: 45行の変化').waitFor();
  await shot('05-details-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
});
