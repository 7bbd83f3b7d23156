import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

/** Issue 18 item 11: engine workers die with their server, even when it is killed with -9 mid-job. */
const redisUrl = process.env.TEST_REDIS_URL;
const modes = [{ name: 'local pool', redis: undefined as string | undefined }, ...(redisUrl ? [{ name: 'BullMQ', redis: redisUrl }] : [])];

/** Process ids whose parent is `ppid` (Linux /proc). */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
};

describe.skipIf(process.platform !== 'linux').each(modes)('engine workers and a killed server ($name)', ({ redis }) => {
  it('are gone within seconds after kill -9 of their server while busy', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-lifeline-'));
    const queueName = `mitate-lifeline-${crypto.randomBytes(4).toString('hex')}`;
    const host = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'pool-host.ts'), dir], {
      cwd: path.join(import.meta.dirname, '..'),
      env: { ...process.env, REDIS_URL: redis ?? '', MITATE_QUEUE_NAME: queueName, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let workers: number[] = [];
    host.stdout!.on('data', (d) => (out += d));
    host.stderr!.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 90_000;
      while (!out.includes('running') && Date.now() < deadline && host.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(out, out).toContain('running');
      workers = childrenOf(host.pid!);
      expect(workers.length).toBeGreaterThanOrEqual(1);
      host.kill('SIGKILL');
      const gone = Date.now() + 15_000;
      while (workers.some(alive) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
      expect(workers.filter(alive)).toEqual([]);
    } finally {
      if (host.exitCode === null) host.kill('SIGKILL');
      for (const pid of [...workers, ...childrenOf(host.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL'); // never leave orphans behind
      fs.rmSync(dir, { recursive: true, force: true });
      if (redis) {
        const conn = new Redis(redis, { maxRetriesPerRequest: null });
        const q = new Queue(queueName, { connection: conn });
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
        conn.disconnect();
      }
    }
  }, 150_000);
});
