import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type RunningServer, startServer } from './server.ts';

/** The app under test as most specs use it: a fresh server, Debian's Chromium and one page of one context. */
export interface App {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

export interface AppOptions {
  env?: Record<string, string>; // extra server environment (the caller's own environment reaches it anyway)
  viewport?: { width: number; height: number };
  locale?: string;
  acceptDownloads?: boolean;
}

export async function openApp({ env = {}, viewport = { width: 1400, height: 900 }, locale = 'en-GB', acceptDownloads = false }: AppOptions = {}): Promise<App> {
  const server = await startServer(env);
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport, locale, acceptDownloads });
  return { server, browser, context, page: await context.newPage() };
}

/** Closes what openApp started, also when it stopped half-way. */
export async function closeApp(app: Partial<App> | undefined): Promise<void> {
  await app?.browser?.close();
  await app?.server?.stop();
}

/** Saves a full-page screenshot of each step when E2E_SCREENSHOTS names a folder (to look at), named `<prefix>-<step>`. */
export function shooter(prefix: string, page: () => Page) {
  const dir = process.env.E2E_SCREENSHOTS;
  return async (name: string, p: Page = page()) => {
    if (dir) await p.screenshot({ path: path.join(dir, `${prefix ? `${prefix}-` : ''}${name}.png`), fullPage: true });
  };
}

/** What a chart received: the JSON its wrapper exposes in data-chart, once the chart has drawn. */
export async function chartData(page: Page, testId: string) {
  const el = page.getByTestId(testId);
  await el.waitFor();
  await page.waitForFunction((id) => !!document.querySelector(`[data-testid="${id}"] canvas, [data-testid="${id}"] svg`), testId);
  return JSON.parse((await el.getAttribute('data-chart'))!);
}
