import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from '../src/config.js';
import type { S3Settings } from '../src/storage/s3.js';

/** A real S3 protocol server for tests: moto's standalone server (PyPI `moto[server]`) on a free loopback port. */
export interface S3Server {
  endpoint: string;
  settings(prefix?: string): S3Settings;
  /** The same settings as MITATE_S3_* variables, for engine workers. */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startS3Server(): Promise<S3Server> {
  const port = await freePort();
  const bin = path.join(repoRoot, '.venv', 'bin', 'moto_server');
  const proc: ChildProcess = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const endpoint = `http://127.0.0.1:${port}`;
  const end = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`moto_server exited: ${output}`);
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) {
      proc.kill('SIGKILL');
      throw new Error(`moto_server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const bucket = `mitate-${crypto.randomBytes(4).toString('hex')}`;
  const settings = (prefix = ''): S3Settings => ({
    endpoint, bucket, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', forcePathStyle: true, prefix,
  });
  return {
    endpoint,
    settings,
    env: (prefix = '') => ({
      MITATE_S3_ENDPOINT: endpoint, MITATE_S3_BUCKET: bucket, MITATE_S3_REGION: 'us-east-1',
      MITATE_S3_ACCESS_KEY_ID: 'test', MITATE_S3_SECRET_ACCESS_KEY: 'test', MITATE_S3_PATH_STYLE: 'true', MITATE_S3_PREFIX: prefix,
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
      }),
  };
}
