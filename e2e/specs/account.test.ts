import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
// @ts-expect-error the package ships no type declarations
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from '../support/server.ts';
import { PASSWORD } from '../support/session.ts';

const SHOTS = process.env.E2E_SCREENSHOTS;

let server: RunningServer;
let browser: Browser;
let base: string;
let idp: { close(): Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A real OpenID provider on loopback; its login screen signs in the directory user at once. */
async function startProvider(port: number, redirectBase: string) {
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'mitate', client_secret: 'mitate-secret', redirect_uris: [`${redirectBase}/account/api/oidc/callback`], post_logout_redirect_uris: [`${redirectBase}/login`] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: 'ken.directory@corp.example', email_verified: true, given_name: 'Ken', family_name: 'Directory' }),
    }),
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) => {
      const grant = new provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  const srv = http.createServer(async (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      await provider.interactionFinished(req, res, { login: { accountId: 'ken' } }, { mergeWithLastSubmission: false });
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r));
  return { close: () => new Promise<void>((r) => srv.close(() => r())) };
}

/** The link of the newest mail to `to` in the server's outbox (.eml, quoted-printable undone). */
async function mailedLink(to: string, page: string): Promise<string> {
  const dir = path.join(server.dataDir, 'outbox');
  for (let i = 0; i < 40; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort().reverse() : [];
    for (const f of files) {
      const raw = fs.readFileSync(path.join(dir, f), 'utf8');
      if (!raw.includes(`To: ${to}`)) continue;
      const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const m = new RegExp(`(http://[^\\s"<]+/${page}\\?token=[A-Za-z0-9_%-]+)`).exec(text);
      if (m) return m[1];
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no ${page} mail to ${to}`);
}

async function newPage(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-GB' });
  return { ctx, page: await ctx.newPage() };
}

const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `account-${name}.png`), fullPage: true });
};

async function pickOption(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

before(async () => {
  const idpPort = await freePort();
  server = await startServer({
    MITATE_REQUIRE_EMAIL_VERIFICATION: 'true',
    OIDC_ISSUER: `http://127.0.0.1:${idpPort}`,
    OIDC_CLIENT_ID: 'mitate',
    OIDC_CLIENT_SECRET: 'mitate-secret',
    OIDC_TENANT: 'single',
  });
  // The server's links use its public address (http://localhost:<port>); the browser uses the same origin.
  base = server.url.replace('127.0.0.1', 'localhost');
  idp = await startProvider(idpPort, base);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await idp?.close();
});

test('account: register, verify by mail, complete registration, invite, accept, sign in, change the role', async () => {
  const owner = `owner.${Date.now()}@example.com`;
  const member = `member.${Date.now()}@example.com`;
  const { page } = await newPage();

  await page.goto(`${base}/register`);
  await page.getByRole('textbox', { name: 'First name', exact: true }).fill('Hanako');
  await page.getByRole('textbox', { name: 'Last name', exact: true }).fill('Suzuki');
  await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(owner);
  await page.getByRole('textbox', { name: 'Organisation name', exact: true }).fill('Kobe Steelworks');
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('textbox', { name: 'Confirm password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/verify-email$/);
  await page.getByText(`We sent a verification link to ${owner}`).waitFor();
  await shot(page, '01-check-inbox');

  // Signing in before verifying says so.
  await page.goto(`${base}/login`);
  await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(owner);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText(/Please verify your e-mail address before signing in/).waitFor();
  await page.getByRole('button', { name: 'Resend verification e-mail' }).waitFor();

  // Verify through the mailed link.
  await page.goto(await mailedLink(owner, 'verify-email'));
  await page.getByText('Your e-mail address is verified. You can sign in now.').waitFor();
  await shot(page, '02-verified');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(owner);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(/\/dataset$/);

  // Complete registration from the profile.
  await page.goto(`${base}/profile`);
  await page.getByText('Your registration is not complete yet.').waitFor();
  await page.getByRole('link', { name: 'Complete registration' }).click();
  await page.waitForURL(/\/complete-registration$/);
  const fill = (name: string, value: string) => page.getByRole('textbox', { name, exact: true }).fill(value);
  // the form starts from the saved profile: wait until it is loaded before typing
  await page.getByRole('textbox', { name: 'First name', exact: true }).and(page.locator('[value="Hanako"]')).waitFor();
  await page.waitForLoadState('networkidle');
  await fill('Date of birth', '1985-07-14');
  await fill('Account name', 'kobe2024');
  await pickOption(page, 'Country', 'Japan');
  await fill('State / prefecture', 'Hyogo');
  await fill('City', 'Kobe');
  await fill('Post code', '650-0001');
  await fill('Address', '1-1 Kano-cho, Chuo-ku');
  await fill('CEO', 'Ichiro Tanaka');
  await fill('Organisation e-mail', 'info@kobe-steel.example');
  await fill('Organisation phone', '078-123-4567');
  await fill('Website', 'https://kobe-steel.example');
  await pickOption(page, 'Organisation size', '50-149');
  // a rule broken first: the server's message appears under the field and nothing is saved
  await fill('Phone', '12ab');
  await page.getByRole('button', { name: 'Complete registration' }).click();
  await page.getByText('Please enter a valid phone number.').waitFor();
  await shot(page, '03-complete-registration-error');
  await fill('Phone', '+81 78-123-4567');
  await page.getByRole('button', { name: 'Complete registration' }).click();
  await page.waitForURL(/\/profile\?tab=identity$/);
  await page.getByText('Account Updated Successfully').waitFor();
  await page.getByText('Please verify your identity before paying.', { exact: false }).waitFor();
  await shot(page, '04-identity-tab');

  // Invite a member.
  await page.goto(`${base}/users`);
  await page.getByRole('button', { name: 'Invite member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite a member' });
  await dialog.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(member);
  await dialog.getByRole('textbox', { name: 'First name', exact: true }).fill('Taro');
  await dialog.getByRole('textbox', { name: 'Last name', exact: true }).fill('Yamamoto');
  await shot(page, '05-invite');
  await dialog.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByText(`Invitation sent to ${member}.`).waitFor();
  await page.getByRole('cell', { name: member }).waitFor();

  // The member accepts in another browser and is signed in.
  const other = await newPage();
  await other.page.goto(await mailedLink(member, 'accept-invitation'));
  await other.page.getByText('Taro Yamamoto, you are invited to join Kobe Steelworks.', { exact: false }).waitFor();
  await other.page.getByRole('textbox', { name: 'New password', exact: true }).fill('Tz9$kLm4#pQ2');
  await other.page.getByRole('textbox', { name: 'Confirm password', exact: true }).fill('Tz9$kLm4#pQ2');
  await shot(other.page, '06-accept');
  await other.page.getByRole('button', { name: 'Set password and join' }).click();
  await other.page.waitForURL(/\/profile$/);
  // signs out and in again with the new password
  await other.page.getByRole('button', { name: 'Account' }).click();
  await other.page.getByRole('menuitem', { name: 'Log Out' }).click();
  await other.page.waitForURL(/\/login/);
  await other.page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill(member);
  await other.page.getByRole('textbox', { name: 'Password', exact: true }).fill('Tz9$kLm4#pQ2');
  await other.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // back where they were when they signed out
  await other.page.waitForURL(/\/profile$/);

  // The owner changes the member's role, confirming first.
  await page.reload();
  await page.getByRole('combobox', { name: 'Role of Taro Yamamoto' }).click();
  await page.getByRole('option', { name: 'Viewer', exact: true }).click();
  await page.getByRole('dialog', { name: 'Change the role?' }).getByText('Change the role of Taro Yamamoto to Viewer?').waitFor();
  await shot(page, '07-confirm-role');
  await page.getByRole('button', { name: 'Change', exact: true }).click();
  await page.getByText('Member updated successfully.').waitFor();
  await page.getByRole('combobox', { name: 'Role of Taro Yamamoto' }).filter({ hasText: 'Viewer' }).waitFor();
  await shot(page, '08-members');

  // The member sees the new role label at once.
  await other.page.goto(`${base}/profile`);
  await other.page.getByText('Viewer', { exact: true }).waitFor();
  await shot(other.page, '09-member-profile');

  // Settings: dark theme applies at once.
  await page.goto(`${base}/profile?tab=settings`);
  await page.getByRole('switch', { name: 'Dark theme' }).check();
  await page.waitForFunction(() => document.documentElement.getAttribute('data-mitate-scheme') === 'dark');
  await shot(page, '10-dark-settings');
  await page.getByRole('switch', { name: 'Dark theme' }).uncheck();
  await page.waitForFunction(() => document.documentElement.getAttribute('data-mitate-scheme') === 'light');
  await other.ctx.close();
});

test('account: sign in through the OpenID provider', async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${base}/login`);
  await page.getByRole('link', { name: 'Sign in with your corporate account' }).click();
  await page.waitForURL(/\/dataset$/);
  await page.goto(`${base}/profile`);
  await page.getByText('ken.directory@corp.example').first().waitFor();
  await page.getByText('Owner', { exact: true }).waitFor();
  await shot(page, '11-sso-profile');
  // Log out ends at the directory, which sends the browser back to the login page.
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Log Out' }).click();
  await page.waitForURL(/127\.0\.0\.1:\d+\/session\/end|\/login/);
  assert.ok(page.url());
  await ctx.close();
});
