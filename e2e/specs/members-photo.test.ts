import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { signIn, signUp } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;
let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

// A 1×1 red PNG is enough: the server crops and scales it to 256 px.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');

test('a member sets a photo on the profile and it shows in the top bar and the member list', async () => {
  const email = `photo.${Date.now()}@example.com`;
  await signUp(server, { email, first_name: 'Emi', last_name: 'Kato', organisation_name: 'Photo Works' });
  const page = await (await browser.newContext({ viewport: { width: 1300, height: 850 }, locale: 'en-GB' })).newPage();
  await signIn(page, server, email);

  await page.goto(`${server.url}/profile`);
  await page.getByLabel('Photo file').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
  await page.getByText('Your photo was saved.').waitFor();
  // The avatar images are blob: URLs loaded with the bearer (an <img> cannot send it).
  const avatars = page.locator('img.MuiAvatar-img');
  await avatars.first().waitFor();
  assert.match((await avatars.first().getAttribute('src')) ?? '', /^blob:/);
  assert.equal(await page.getByRole('button', { name: 'Account' }).locator('img').count(), 1);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'photo-01-profile.png') });

  await page.goto(`${server.url}/users`);
  await page.getByRole('cell', { name: 'Emi Kato' }).locator('img').waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'photo-02-members.png') });

  await page.goto(`${server.url}/profile`);
  await page.getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Your photo was removed.').waitFor();
  await page.getByRole('button', { name: 'Change photo' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Account' }).locator('img').count(), 0);
});
