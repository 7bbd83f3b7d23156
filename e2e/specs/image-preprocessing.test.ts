import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp } from '../support/app.ts';
import yazl from 'yazl';
import { type RunningServer, SHARED_DATA } from '../support/server.ts';
import { PASSWORD, signIn, signUp } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
// The magnetic tiles (a worktree may point at them with MITATE_SHARED_DATA).
const TILES = [path.join(SHARED_DATA, 'magnetic_tile_okng'), path.join(process.env.MITATE_SHARED_DATA ?? '/nonexistent', 'magnetic_tile_okng')].find((d) => fs.existsSync(d))!;

let server: RunningServer;
let browser: Browser;
let page: Page;

async function shot(p: Page, name: string) {
  if (SHOTS) await p.screenshot({ path: path.join(SHOTS, `imgp-${name}.png`), fullPage: true });
}

/** Every 8th tile (about 13 OK and 13 NG): the pages are what is tested, not the volume. */
function tilesZip(file: string): Promise<void> {
  const z = new yazl.ZipFile();
  for (const cls of ['OK', 'NG'])
    fs.readdirSync(path.join(TILES, cls))
      .sort()
      .filter((_, i) => i % 8 === 0)
      .forEach((f) => z.addFile(path.join(TILES, cls, f), `${cls}/${f}`));
  z.end();
  return new Promise((resolve, reject) => z.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
}

before(async () => {
  ({ server, browser, page } = await openApp({ env: { MITATE_TORCH_THREADS: '1' } }));
});

after(() => closeApp({ server, browser }));

test('image pre-processing: live preview, a run over every image, a new dataset; image classification by image and by class', { timeout: 900_000 }, async () => {
  assert.ok(TILES, 'the magnetic tile images are needed');
  const email = `imgp.${Date.now()}@example.com`;
  await signUp(server, { email, first_name: 'Ren', last_name: 'Kato', organisation_name: 'Tile Works' });
  await signIn(page, server, email);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-imgp-'));
  const zip = path.join(dir, 'tiles.zip');
  await tilesZip(zip);
  await page.goto(`${server.url}/dataset/register`);
  await page.getByTestId('file-input').setInputFiles(zip);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.waitForURL(/\/dataset\/details\//, { timeout: 240_000 });
  const sourceCounts = await page.getByRole('table', { name: 'Counts per class and split' }).innerText();

  // The dataset page leads to the image pre-processing wizard.
  await page.getByRole('link', { name: 'Pre-process images' }).click();
  await page.waitForURL(/\/pre-processing\/details\//);
  await page.getByRole('heading', { name: 'Image pre-processing' }).waitFor();
  const preUrl = page.url();
  await page.getByRole('list', { name: 'Images' }).getByRole('img').first().waitFor();
  await shot(page, '01-dataset');
  await page.getByRole('button', { name: 'Next' }).click();

  // Live preview on real tiles: a quarter turn swaps the after size, grayscale and normalisation change the pixels.
  const preview = page.getByRole('list', { name: 'Preview on images of this dataset (before → after)' });
  await preview.getByRole('img').first().waitFor({ timeout: 180_000 });
  const firstCaption = async () => (await preview.getByRole('listitem').first().innerText()).match(/After · (\d+) × (\d+) px/)!;
  const [, w0, h0] = await firstCaption();
  await page.getByRole('combobox', { name: 'Rotate (clockwise)' }).click();
  await page.getByRole('option', { name: '90°' }).click();
  await page.getByRole('checkbox', { name: 'Grayscale' }).check();
  await page.getByRole('combobox', { name: 'Normalise' }).click();
  await page.getByRole('option', { name: 'Equalise histogram' }).click();
  await preview.getByText(`After · ${h0} × ${w0} px`).first().waitFor({ timeout: 180_000 });
  await page.getByRole('checkbox', { name: 'Resize' }).check();
  await page.getByRole('spinbutton', { name: 'Width (px)' }).fill('128');
  await page.getByRole('spinbutton', { name: 'Height (px)' }).fill('128');
  await preview.getByText('After · 128 × 128 px').first().waitFor({ timeout: 180_000 });
  await page.getByRole('progressbar', { name: 'Updating the preview' }).waitFor({ state: 'detached', timeout: 180_000 });
  await shot(page, '02-preview');

  // Every image, then a new dataset with the same classes and splits.
  await page.getByRole('button', { name: /^Process all \d+ images$/ }).click();
  await page.getByText(/images processed/).waitFor({ timeout: 240_000 });
  await page.getByRole('list', { name: 'Processed images (a few of each class)' }).getByRole('img').first().waitFor();
  await shot(page, '03-processed');
  await page.getByRole('textbox', { name: 'New dataset name' }).fill('tiles 128 grey');
  await page.getByRole('button', { name: 'Register as a new dataset' }).click();
  await page.waitForURL(/\/dataset\/details\//);
  await page.getByRole('heading', { name: 'tiles 128 grey' }).waitFor();
  assert.equal(await page.getByRole('table', { name: 'Counts per class and split' }).innerText(), sourceCounts);
  await page.getByRole('list', { name: 'Images' }).getByRole('listitem').first().click();
  await page.getByRole('dialog').getByRole('img').waitFor();
  const size = await page.getByRole('dialog').getByRole('img').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
  assert.deepEqual(size, [128, 128]);
  await shot(page, '04-new-dataset');
  await page.keyboard.press('Escape');

  // Image classification pages: a small classifier trained through the API on the same tiles as two classes.
  const login = await (await fetch(`${server.url}/account/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) })).json();
  const auth = { authorization: `Bearer ${login.detail.response.access_token}` };
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: 'tiles classes', data_type: 'training_data', type: 'supervised', training_type: 'classification' })) form.append(k, v);
  form.append('file', new Blob([fs.readFileSync(zip)]), 'tiles-classes.zip');
  const ds = await (await fetch(`${server.url}/api/dataset/register`, { method: 'POST', headers: auth, body: form })).json();
  const settings = { image_size: 32, epochs: 1, batch_size: 16, early_stopping: 0 };
  const proj = await (
    await fetch(`${server.url}/api/project/register/${ds.detail.response.id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ project_type: 'classification', name: 'Tile classes', models: [{ algorithm: 'compact_cnn' }], settings }),
    })
  ).json();
  const projectId = proj.detail.response.project_id;
  await fetch(`${server.url}/api/train/${projectId}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
  for (let i = 0; i < 240; i++) {
    const v = await (await fetch(`${server.url}/api/image/train/result/${projectId}`, { headers: auth })).json();
    if (v.detail.response.training_state !== 'training') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await page.goto(`${server.url}/training/classification/images`);
  await page.getByText('Choose a project.').waitFor();
  await page.getByRole('combobox', { name: 'Project' }).click();
  await page.getByRole('option', { name: 'Tile classes' }).click();
  const gallery = page.getByRole('list', { name: 'Test images' });
  await gallery.getByRole('img').first().waitFor({ timeout: 180_000 });
  const all = await gallery.getByRole('listitem').count();
  assert.ok(all > 0);
  await page.getByRole('combobox', { name: 'True class' }).click();
  await page.getByRole('option', { name: 'NG' }).click();
  const ng = await gallery.getByRole('listitem').count();
  assert.ok(ng > 0 && ng < all);
  await shot(page, '05-classification-images');
  await gallery.getByRole('listitem').first().click();
  await page.getByRole('dialog').getByRole('table', { name: 'Class probabilities' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('tab', { name: 'By class' }).click();
  await page.waitForURL(/\/training\/classification\/class\?project_id=/);
  const table = page.getByRole('table', { name: 'Per-class results on the test images' });
  await table.getByRole('row', { name: /^OK/ }).click();
  await page.getByText(/^OK: predicted correctly \(\d+\)$/).waitFor(); // the list itself may be empty after one epoch
  await shot(page, '06-classification-class');

  // The inference wizard takes image projects: two image files from this computer.
  await page.goto(`${server.url}/training/prediction/register/${projectId}/1_compact_cnn`);
  await page.getByRole('heading', { name: 'New image prediction' }).waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('combobox', { name: 'Images to predict' }).click();
  await page.getByRole('option', { name: 'Image files or a ZIP from this computer' }).click();
  const okDir = path.join(TILES, 'OK');
  await page.getByTestId('wizard-files').setInputFiles(fs.readdirSync(okDir).sort().slice(0, 2).map((f) => path.join(okDir, f)));
  await page.getByRole('button', { name: 'Next' }).click();
  await shot(page, '07-prediction-wizard');
  await page.getByRole('button', { name: 'Predict' }).click();
  await page.waitForURL(/\/prediction\/report\/classification\//, { timeout: 180_000 });

  // Japanese.
  if (SHOTS) {
    await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
    const classUrl = `${server.url}/training/classification/class?project_id=${projectId}&model_key=1_compact_cnn`;
    await page.goto(classUrl);
    await page.getByRole('table', { name: 'テスト画像でのクラス別の結果' }).getByRole('row', { name: /^OK/ }).click();
    await shot(page, 'ja-06-classification-class');
    await page.goto(classUrl.replace('/class?', '/images?'));
    await page.getByRole('list', { name: 'テスト画像' }).getByRole('img').first().waitFor({ timeout: 180_000 });
    await shot(page, 'ja-05-classification-images');
    await page.goto(preUrl);
    await page.getByRole('heading', { name: '画像前処理' }).waitFor();
    await page.getByRole('list', { name: 'Images' }).getByRole('img').first().waitFor().catch(() => undefined);
    await shot(page, 'ja-01-dataset');
    await page.getByRole('button', { name: '次へ' }).click();
    await page.getByRole('checkbox', { name: 'グレースケール' }).check();
    await page.getByRole('list', { name: 'このデータセットの画像でプレビュー（前 → 後）' }).getByRole('img').first().waitFor({ timeout: 180_000 });
    await page.waitForTimeout(1500);
    await shot(page, 'ja-02-preview');
    await page.getByRole('button', { name: /^全\d+枚を処理$/ }).click();
    await page.getByText(/枚の画像を処理しました/).waitFor({ timeout: 240_000 });
    await shot(page, 'ja-03-processed');
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
