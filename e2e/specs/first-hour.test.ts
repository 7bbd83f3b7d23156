import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { apiJson, BLANK_INSTALLATION, pageIn as openPageIn, signIn, signUp, trainRegression, uploadDataset } from '../support/session.ts';

/**
 * Issue 33: a fresh installation with nothing configured (no MITATE_PLATFORM_ADMINS, no MITATE_BANK_*). The first
 * account is told it is the platform administrator, sets the bank account and the hosted-API review in the app, and
 * another organisation then sees the bank account for transfers.
 */
const SHOTS = process.env.E2E_SCREENSHOTS;
let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer(BLANK_INSTALLATION);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const pageIn = (lang: 'en' | 'ja') => openPageIn(browser, server, lang);

test('the first account administers a fresh installation: bank account and review set in the app, in English and Japanese', async () => {
  const founder = await signUp(server, { prefix: 'founder', first_name: 'Fumi', last_name: 'Founder', organisation_name: 'First Works' });
  const tenant = await signUp(server, { prefix: 'tenant', first_name: 'Ten', last_name: 'Ant', organisation_name: 'Tenant Works' });
  assert.equal((await apiJson(server, 'GET', '/api/billing/payment-info', tenant.token)).bank_account, null);

  const page = await pageIn('en');
  await signIn(page, server, founder.email);
  await page.goto(`${server.url}/profile`);
  await page.getByTestId('first-admin-notice').getByText(/platform administrator/).waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'first-hour-01-profile-en.png') });
  await page.getByRole('link', { name: 'Platform settings' }).click();
  await page.getByRole('heading', { name: 'Platform settings' }).waitFor();
  await page.getByText('No bank account is set').waitFor();
  const fields: [string, string][] = [
    ['Bank name', 'Mitate Bank'],
    ['Bank code (4 digits)', '0999'],
    ['Branch name', 'Head Office'],
    ['Branch code (3 digits)', '001'],
    ['Account number', '1234567'],
    ['Account holder', 'Mitate K.K.'],
  ];
  for (const [label, value] of fields) await page.getByRole('textbox', { name: label }).fill(value);
  await page.getByRole('button', { name: 'Save bank account' }).click();
  await page.getByText('Saved here', { exact: true }).waitFor();
  await page.getByRole('switch', { name: /wait for a platform administrator/ }).click();
  await page.getByTestId('review-effect').getByText(/approves it at once/).waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'first-hour-02-settings-en.png'), fullPage: true });

  // the other organisation now sees the account for transfers, and the review is off for everybody
  assert.equal((await apiJson(server, 'GET', '/api/billing/payment-info', tenant.token)).bank_account.bank_name, 'Mitate Bank');
  assert.deepEqual(await apiJson(server, 'GET', '/api/platform/admin/me', tenant.token), { platform_admin: false, first_account: false, review_required: false });

  const ja = await pageIn('ja');
  await signIn(ja, server, founder.email, 'ja');
  await ja.goto(`${server.url}/admin/settings`);
  await ja.getByRole('heading', { name: 'プラットフォーム設定' }).waitFor();
  await ja.getByTestId('first-account-admin').getByText(/最初に作成されたアカウント/).waitFor();
  await ja.getByTestId('review-effect').getByText(/即時に承認/).waitFor();
  if (SHOTS) await ja.screenshot({ path: path.join(SHOTS, 'first-hour-03-settings-ja.png'), fullPage: true });

  // the tenant is not an administrator: told so
  const other = await pageIn('en');
  await signIn(other, server, tenant.email);
  await other.goto(`${server.url}/admin/settings`);
  await other.getByText('Only platform administrators can change the platform settings.').waitFor();
});

test('predicts on a file uploaded in the prediction wizard, in English and Japanese', async () => {
  const who = await signUp(server, { prefix: 'predictor', first_name: 'Pre', last_name: 'Dictor', organisation_name: 'Predict Works' });
  const rows = Array.from({ length: 60 }, (_, i) => `${i},${(i * 7) % 13},${2 * i + ((i * 7) % 13)}`);
  const ds = await uploadDataset(server, who.token, 'lines', 'lines.csv', `x,z,y\n${rows.join('\n')}\n`);
  const { pid, modelKey } = await trainRegression(server, who.token, ds, { name: 'Lines', target_variables: ['y'], feature_variables: ['x', 'z'], models: [{ algorithm: 'linear' }] });
  for (const lang of ['en', 'ja'] as const) {
    const page = await pageIn(lang);
    await signIn(page, server, who.email, lang);
    await page.goto(`${server.url}/training/prediction/register/${pid}/${modelKey}`);
    await page.getByRole('button', { name: lang === 'en' ? 'Next' : '次へ' }).click();
    await page.getByTestId('predict-upload-file').setInputFiles({ name: `new-${lang}.csv`, mimeType: 'text/csv', buffer: Buffer.from('x,z\n100,3\n101,4\n') });
    await page.getByText(lang === 'en' ? `Registered "new-${lang}" as an inference dataset.` : `「new-${lang}」を推論用データセットとして登録しました。`).waitFor({ timeout: 60_000 });
    assert.match(await page.getByRole('combobox', { name: lang === 'en' ? /Inference dataset/ : /推論用データセット/ }).inputValue(), new RegExp(`new-${lang} \\(2 × 2\\)`));
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `first-hour-04-predict-file-${lang}.png`), fullPage: true });
    await page.getByRole('button', { name: lang === 'en' ? 'Next' : '次へ' }).click();
    await page.getByRole('button', { name: lang === 'en' ? 'Predict' : '予測する' }).click();
    await page.waitForURL(/\/prediction\/regression\/report\//, { timeout: 60_000 });
  }

  // the first test switched the review off: a draft API says submitting approves it at once; an organisation whose
  // identity is not verified is told to verify it first, and the API stays a draft
  const api = await apiJson(server, 'POST', '/api/platform/projects', who.token, { name: 'Lines API', key: `lines-${Date.now()}`, project_id: pid, model_key: modelKey, content_language: 'en-gb' });
  for (const lang of ['en', 'ja'] as const) {
    // the wizard's Japanese run above saved Japanese in the profile, which the app applies on every new browser
    await apiJson(server, 'PUT', '/account/api/settings', who.token, { language: lang === 'en' ? 'en-gb' : 'ja-jp' });
    const page = await pageIn(lang);
    await signIn(page, server, who.email, lang);
    await page.goto(`${server.url}/platform/details/${api.id}`);
    await page.getByTestId('draft-hint').getByText(lang === 'en' ? /approves it at once/ : /即時に承認/).waitFor();
    await page.getByRole('button', { name: lang === 'en' ? 'Submit' : '提出', exact: true }).click();
    await page.getByRole('dialog').getByText(lang === 'en' ? /approves submitted APIs at once/ : /審査なしで即時に承認/).waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `first-hour-05-submit-${lang}.png`) });
    await page.getByRole('dialog').getByRole('button', { name: lang === 'en' ? 'Submit' : '提出', exact: true }).click();
    await page.getByText(lang === 'en' ? /Verify your organisation's identity first/ : /先に組織の本人確認を済ませてください/).waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `first-hour-06-verify-first-${lang}.png`) });
  }
  assert.equal((await apiJson(server, 'GET', `/api/platform/projects/${api.id}`, who.token)).status, 'draft');
});
