import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const SHARED_DATA = process.env.MITATE_SHARED_DATA ?? path.resolve(ROOT, '..', 'shared', 'data'); // a worktree may set it

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The real server (built web app, SQLite, local workers) on a free port with a fresh data folder. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-e2e-'));
  // node itself (not npx) so that the pid we signal is the server's own.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: path.join(ROOT, 'server'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MITATE_DATA_DIR: dataDir, MITATE_WORKERS: '1', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  // Generous: under `npm test` another suite runs beside this one, and tsx compiles the server on start.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${log}`);
    try {
      const r = await fetch(`${url}/api/docs/json`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
      clearTimeout(killer);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** How long a page action or navigation may wait: the specs run beside another suite on two cores, so a page that
 * is merely slow must not fail a spec (waits are for conditions, with this generous limit). */
export const PAGE_TIMEOUT_MS = 120_000;

/** Debian's Chromium; `env` reaches the browser process (e.g. FONTCONFIG_FILE to hide the machine's fonts). Every
 * context and page it makes waits up to PAGE_TIMEOUT_MS. */
export async function launchBrowser(env?: Record<string, string>): Promise<Browser> {
  const browser = await chromium.launch({
    ...(env ? { env: { ...process.env, ...env } as Record<string, string> } : {}),
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const ctx = await newContext(...args);
    ctx.setDefaultTimeout(PAGE_TIMEOUT_MS);
    ctx.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    return ctx;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args: Parameters<Browser['newPage']>) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    return page;
  };
  return browser;
}
