import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import yazl from 'yazl';
import { buildApp, type BuildOptions } from '../src/app.js';
import { startS3Server, type S3Server } from './s3-server.js';

export const SHARED_DATA = process.env.MITATE_SHARED_DATA ?? path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data'); // a worktree may set it

/** A ZIP of the given entries (a file on disk or bytes), built in memory. */
export function zipOf(entries: { name: string; file?: string; data?: Buffer }[]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const e of entries) {
    if (e.file) z.addFile(e.file, e.name);
    else z.addBuffer(e.data!, e.name);
  }
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

/** Every `every`-th tile of one folder (OK or NG) of the shared magnetic-tile set, as ZIP entries under that folder. */
export const tiles = (folder: string, every = 2) => {
  const dir = path.join(SHARED_DATA, 'magnetic_tile_okng', folder);
  return fs.readdirSync(dir).sort().filter((_, i) => i % every === 0).map((f) => ({ name: `${folder}/${f}`, file: path.join(dir, f) }));
};

/** The databases every API suite runs on: SQLite always, PostgreSQL when CI gives TEST_DATABASE_URL. */
export const DATABASES = ['sqlite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])] as const;
export type DbKind = (typeof DATABASES)[number];

export interface TestApp {
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * MITATE_TEST_S3=1 runs a suite on object storage: one moto server per test file (stopped when the file's process
 * ends), each app with its own key prefix. scripts/test.mjs's 'server-s3' step re-runs the storage-touching files so.
 */
export const ON_S3 = process.env.MITATE_TEST_S3 === '1';
let s3Server: Promise<S3Server> | undefined;
function sharedS3(): Promise<S3Server> {
  if (!s3Server) {
    s3Server = startS3Server();
    void s3Server.then((s) => process.once('exit', () => void s.stop()));
  }
  return s3Server;
}

/** A fresh app on a temporary data folder and either a new SQLite file or a new PostgreSQL schema (on S3 with MITATE_TEST_S3=1). */
export async function makeTestApp(kind: DbKind, opts: BuildOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-test-'));
  let schema: string | undefined;
  let databaseUrl: string | undefined;
  if (kind === 'postgres') {
    databaseUrl = process.env.TEST_DATABASE_URL!;
    schema = `t_${crypto.randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
  }
  const app = await buildApp({
    ...opts,
    pgSchema: schema,
    config: {
      dataDir,
      databaseUrl,
      redisUrl: undefined,
      webDist: path.join(dataDir, 'no-web'),
      workers: 1,
      // Suites name their platform administrators (MITATE_PLATFORM_ADMINS); installation.test.ts turns the default on.
      firstAccountAdmin: false,
      ...(ON_S3 ? { s3: (await sharedS3()).settings(`t${crypto.randomBytes(4).toString('hex')}/`) } : {}),
      ...opts.config,
    },
  });
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      if (schema) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const STRONG_PASSWORD = 'Kx7!mQ2#vL9p';

export async function registerAndLogin(app: FastifyInstance, who = 'alice', org = 'Acme Works') {
  const email = `${who}.${crypto.randomBytes(3).toString('hex')}@example.com`;
  const reg = await app.inject({
    method: 'POST',
    url: '/account/api/auth/register',
    payload: { email, password: STRONG_PASSWORD, first_name: who, last_name: 'Tester', organisation_name: org },
  });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.body}`);
  const login = await app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email, password: STRONG_PASSWORD } });
  const tokens = login.json().detail.response;
  return { email, tokens, auth: { authorization: `Bearer ${tokens.access_token}` } };
}

/** A multipart body built by hand, so tests control every byte of the file. */
export function multipart(fields: Record<string, string>, file?: { name: string; content: Buffer | string; field?: string; type?: string }) {
  const boundary = `----mitate${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'text/csv'}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export async function upload(
  app: FastifyInstance,
  auth: Record<string, string>,
  file: { name: string; content: Buffer | string },
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const body = multipart({ name: fields.name ?? file.name, data_type: 'training_data', type: 'supervised', training_type: 'regression', ...fields }, file);
  return app.inject({ method: 'POST', url: '/api/dataset/register', payload: body.payload, headers: { ...body.headers, ...auth, ...headers } });
}

/** Lists every file under a folder (relative paths), to prove nothing half-written stays behind. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** The address mails link to in tests that read links from the outbox. */
export const PUBLIC_URL = 'http://mitate.test';

/** The token of the newest `page` link (e.g. accept-invitation) in the outbox mails addressed to `to`. */
export function outboxLink(dataDir: string, to: string, page: string): string {
  const dir = path.join(dataDir, 'outbox');
  const files = fs.readdirSync(dir).sort().reverse();
  for (const f of files) {
    const raw = fs.readFileSync(path.join(dir, f), 'utf8');
    if (!raw.includes(`To: ${to}`)) continue;
    const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const m = new RegExp(`${PUBLIC_URL}/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(text);
    if (m) return decodeURIComponent(m[1]);
  }
  throw new Error(`no ${page} mail to ${to}`);
}
