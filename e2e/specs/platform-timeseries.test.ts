import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, SHARED_DATA, startServer } from '../support/server.ts';
import { apiJson, signIn, signUp, uploadDataset, verifyIdentity } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS; // a folder: save a screenshot of each step to look at
const ADMIN = `platform.admin.${Date.now()}@example.com`;
const SKAB = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'), 'utf8').replace(/\r\n/g, '\n');
const SIGNALS = ['Accelerometer1RMS', 'Accelerometer2RMS', 'Current', 'Pressure', 'Temperature', 'Thermocouple', 'Voltage', 'Volume Flow RateRMS'];

let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer({ MITATE_PLATFORM_ADMINS: ADMIN, MITATE_SERVE_WORKERS: '1', ...(process.env.MITATE_WEB_DIST ? { MITATE_WEB_DIST: process.env.MITATE_WEB_DIST } : {}) });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a hosted time-series detector: its page describes the time column, history, alarm rule and answer (en, ja)', async () => {
  const email = `plant.${Date.now()}@example.com`;
  const token = (await signUp(server, { email, first_name: 'Aiko', last_name: 'Sato', organisation_name: 'Kobe Valves' })).token;
  const adminToken = (await signUp(server, { email: ADMIN, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Mitate Platform' })).token;
  const ds = await uploadDataset(server, token, 'SKAB valve', 'skab.csv', SKAB, { training_type: 'time_series_anomaly_detection_unsupervised', datetime_column: 'datetime' });
  const p = await apiJson(server, 'POST', `/api/timeseries/register/${ds}`, token, {
    name: 'Valve 1',
    project_type: 'time_series_anomaly_detection_unsupervised',
    feature_variables: SIGNALS,
    target_variables: [],
    lags: [2],
    windows: [5, '20s'],
    normal: { mode: 'rows', rows: 400 },
    models: [{ algorithm: 'pca_mspc', params: { alarm_k: 2, alarm_n: 4 } }],
  });
  await apiJson(server, 'POST', `/api/timeseries/train/model/${p.project_id}`, token);
  let model: { state: string; model_key: string } = { state: 'queued', model_key: '' };
  for (let i = 0; model.state !== 'done'; i++) {
    model = (await apiJson(server, 'GET', `/api/timseseries/project/${p.project_id}`, token)).models[0];
    assert.notEqual(model.state, 'failed');
    assert.ok(i < 1200, 'training did not finish in 20 minutes');
    await new Promise((r) => setTimeout(r, 1000));
  }
  await verifyIdentity(server, token, adminToken);
  const api = await apiJson(server, 'POST', '/api/platform/projects', token, { name: 'Valve 1 anomalies', key: 'valve-1', project_id: p.project_id, model_key: model.model_key, content_language: 'en-gb' });
  await apiJson(server, 'POST', `/api/platform/projects/${api.id}/submit`, token);
  await apiJson(server, 'POST', `/api/platform/admin/projects/${api.id}/review`, adminToken, { decision: 'approve' });
  await apiJson(server, 'POST', `/api/platform/projects/${api.id}/start`, token);

  for (const lang of ['en', 'ja'] as const) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: lang === 'ja' ? 'ja-JP' : 'en-GB' });
    const page = await ctx.newPage();
    if (lang === 'ja') {
      // Japanese picked while signed out: the sign-in keeps it
      await page.goto(`${server.url}/login`);
      await page.evaluate(() => {
        localStorage.setItem('mitate.lang', 'ja-jp');
        localStorage.setItem('mitate.lang.pending', '1');
      });
    }
    await signIn(page, server, email, lang);
    await page.goto(`${server.url}/platform/details/${api.id}`);
    const panel = page.getByTestId('ts-interface');
    await panel.waitFor();
    const t = lang === 'en' ? { title: 'Time-series interface', history: '7 rows before the row, and the rows of the last 20s', rule: '2 of the last 4 rows over the threshold', stream: 'Block (curl)' } : { title: '時系列のインターフェース', history: 'その行より前の7行、および直近20sの行', rule: '直近4行のうち2行がしきい値超え', stream: 'ブロック（curl）' };
    await panel.getByText(t.title).waitFor();
    await panel.getByText(t.history).waitFor();
    await panel.getByText(t.rule).waitFor();
    // the inputs list the time column first, then every signal
    assert.match((await page.getByTestId('ts-example').textContent()) ?? '', /"series":"line-1","rows":\[\{"datetime":"2026-01-01 08:00:00"/);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `plts-${lang}.png`), fullPage: true });
    await panel.getByRole('tab', { name: t.stream }).click();
    assert.match((await page.getByTestId('ts-example').textContent()) ?? '', /"rows": \[/);
    await ctx.close();
  }
});
