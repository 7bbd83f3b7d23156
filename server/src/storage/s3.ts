import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { LocalStorage } from './local.js';

/** MITATE_S3_* settings (README): where the objects live. */
export interface S3Settings {
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** Prepended to every object key, so one bucket can hold several installations. */
  prefix: string;
  /** Size limit of this host's cache in MB (MITATE_S3_CACHE_MB); 0 or unset: no limit. */
  cacheMb?: number;
  /** A cached folder used more recently than this is never evicted (default 15 minutes). */
  cacheIdleMs?: number;
}

export interface EvictionReport {
  /** Bytes in the cache before and after. */
  before: number;
  after: number;
  /** Keys of the folders (or files) removed from the cache. */
  evicted: string[];
}

const CACHE_IDLE_MS = 15 * 60_000;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export interface RemoteObject {
  key: string;
  size: number;
}

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: s.forcePathStyle,
    credentials: s.accessKeyId && s.secretAccessKey ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
  });
}

const FETCH_SCRIPT = path.join(import.meta.dirname, 's3-fetch.mjs');

/**
 * S3-compatible object storage. The object store is the truth; `<data>/files` is this host's cache of it, so
 * the rest of the server (and engine workers on this host) keep working with paths:
 * - a committed folder is uploaded before commitDir returns (a crash before that leaves no listed object);
 * - a key missing from the cache is read through from the store when asked for (exists, pathOf, readStream);
 * - job outputs (under `<data>/files` or `<data>/jobs`) are synchronised both ways when a job succeeds, so a
 *   worker on another host (which uploads its outputs) and a worker on this host (which wrote them here) both
 *   end with the outputs in the store and in this cache.
 * Object keys are the path relative to the data folder: `files/<key>` and `jobs/<job id>/...`.
 */
export class S3Storage extends LocalStorage {
  readonly client: S3Client;
  private readonly dataDir: string;
  private pending = new Set<Promise<unknown>>();
  private evicting: Promise<EvictionReport> | null = null;
  private evictAgain = false;
  private readonly used = new Map<string, number>();

  constructor(
    dataDir: string,
    readonly settings: S3Settings,
    private log: (msg: string) => void = () => {},
  ) {
    super(dataDir);
    this.dataDir = path.resolve(dataDir);
    this.client = s3Client(settings);
  }

  /**
   * Keeps this host's cache (`<data>/files`) under `settings.cacheMb` (MITATE_S3_CACHE_MB; unset or 0: no limit).
   * The unit is an object's folder at `org/<org>/<area>/<id>` (a dataset, a project with its runs, a prediction), or a
   * file outside such a folder. Least recently used units go first, down to 90 % of the limit, and only those that
   * (a) were not used for `cacheIdleMs` (a job may still be about to read them) and (b) are in the store file for file
   * with the same sizes; a later read of any key in them reads it through again.
   */
  async evict(now = Date.now()): Promise<EvictionReport> {
    const limit = (this.settings.cacheMb ?? 0) * 1024 * 1024;
    const report: EvictionReport = { before: 0, after: 0, evicted: [] };
    if (!limit || !fs.existsSync(this.root)) return report;
    const units = cacheUnits(this.root);
    for (const u of units) u.usedMs = Math.max(u.usedMs, this.used.get(u.path) ?? 0);
    let total = 0;
    for (const u of units) total += u.bytes;
    report.before = report.after = total;
    if (total <= limit) return report;
    const target = limit * 0.9;
    const remote = new Map((await this.list(`${this.settings.prefix}files/`)).map((o) => [o.key, o.size]));
    units.sort((a, b) => a.usedMs - b.usedMs);
    for (const u of units) {
      if (total <= target) break;
      if (now - u.usedMs < (this.settings.cacheIdleMs ?? CACHE_IDLE_MS)) break; // the rest were used even later
      const key = path.relative(this.root, u.path).split(path.sep).join('/');
      const stored = u.files.every((f) => remote.get(this.objectKeyOf(path.relative(this.root, f.path).split(path.sep).join('/'))) === f.bytes);
      if (!stored) continue;
      fs.rmSync(u.path, { recursive: true, force: true });
      this.used.delete(u.path);
      total -= u.bytes;
      report.evicted.push(key);
    }
    report.after = total;
    if (report.evicted.length) this.log(`s3: cache ${mb(report.before)} MB over ${mb(limit)} MB: evicted ${report.evicted.length} folder(s), now ${mb(total)} MB`);
    return report;
  }

  /** Runs `evict` after the cache grew; one at a time, and once more if it grew again meanwhile. */
  private scheduleEviction(): void {
    if (!this.settings.cacheMb) return;
    if (this.evicting) {
      this.evictAgain = true;
      return;
    }
    const run = (): Promise<EvictionReport> =>
      this.evict()
        .catch((err) => {
          this.log(`s3: cache eviction failed: ${(err as Error).message}`);
          return { before: 0, after: 0, evicted: [] };
        })
        .then((r) => {
          if (this.evictAgain) {
            this.evictAgain = false;
            return run();
          }
          return r;
        });
    const p = run().finally(() => {
      this.evicting = null;
      this.pending.delete(p);
    });
    this.evicting = p;
    this.pending.add(p);
  }

  /** Marks the cache unit of a key as used now, for least-recently-used eviction (this process's uses; files' write times else). */
  private touch(p: string): void {
    if (this.settings.cacheMb) this.used.set(unitOf(this.root, p), Date.now());
  }

  /** Creates the bucket when it does not exist yet (a fresh object store). */
  async open(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
    } catch {
      await this.client.send(new CreateBucketCommand({ Bucket: this.settings.bucket }));
    }
  }

  override async close(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
    this.client.destroy();
  }

  objectKeyOf(key: string): string {
    return `${this.settings.prefix}files/${key}`;
  }

  /** The object key of an absolute path inside the data folder, or null outside it. */
  objectKeyOfPath(p: string): string | null {
    const rel = path.relative(this.dataDir, path.resolve(p));
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return this.settings.prefix + rel.split(path.sep).join('/');
  }

  override pathOf(key: string): string {
    const p = this.keyPath(key);
    if (!fs.existsSync(p)) {
      this.fetchSync(key);
      this.scheduleEviction();
    }
    this.touch(p);
    return p;
  }

  override async commitDir(tempDir: string, key: string): Promise<void> {
    await super.commitDir(tempDir, key);
    await this.uploadTree(this.keyPath(key), this.objectKeyOf(key));
    this.touch(this.keyPath(key));
    this.scheduleEviction();
  }

  override async persist(key: string): Promise<void> {
    await this.uploadTree(this.keyPath(key), this.objectKeyOf(key));
  }

  /** Removed from the cache at once; the objects follow (awaitable, and awaited by close()). */
  override remove(key: string): Promise<void> {
    super.remove(key);
    const p = this.deletePrefix(this.objectKeyOf(key)).catch((err) => this.log(`s3: could not delete ${key}: ${(err as Error).message}`));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  override async removePath(dir: string): Promise<void> {
    const key = this.objectKeyOfPath(dir);
    if (key) await this.deletePrefix(key);
  }

  /**
   * After a job: every file under `dir` (an absolute path in the data folder) ends both in the store and here.
   * Files only here are uploaded, objects only in the store (written by a worker on another host) downloaded.
   */
  override async syncPath(dir: string): Promise<{ uploaded: number; downloaded: number }> {
    const base = this.objectKeyOfPath(dir);
    if (base === null) return { uploaded: 0, downloaded: 0 };
    const remote = new Map((await this.list(base + '/')).map((o) => [o.key, o.size]));
    let uploaded = 0;
    let downloaded = 0;
    const local = new Set<string>();
    if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) {
      for (const file of walk(dir)) {
        const objectKey = `${base}/${path.relative(dir, file).split(path.sep).join('/')}`;
        local.add(objectKey);
        if (remote.get(objectKey) === fs.statSync(file).size) continue;
        await this.putFile(file, objectKey);
        uploaded++;
      }
    }
    for (const [objectKey] of remote) {
      if (local.has(objectKey)) continue;
      await this.getFile(objectKey, path.join(dir, objectKey.slice(base.length + 1)));
      downloaded++;
    }
    this.touch(dir);
    this.scheduleEviction();
    return { uploaded, downloaded };
  }

  async list(prefix: string): Promise<RemoteObject[]> {
    const out: RemoteObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: Number(o.Size ?? 0) });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async putFile(file: string, objectKey: string): Promise<void> {
    const size = fs.statSync(file).size;
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: objectKey, Body: fs.createReadStream(file), ContentLength: size }),
    );
  }

  async getFile(objectKey: string, dest: string): Promise<void> {
    const res = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.part-${process.pid}`;
    await pipeline(res.Body as Readable, fs.createWriteStream(tmp));
    fs.renameSync(tmp, dest);
  }

  async uploadTree(local: string, objectKey: string): Promise<void> {
    if (!fs.existsSync(local)) return;
    if (fs.statSync(local).isFile()) return this.putFile(local, objectKey);
    for (const file of walk(local)) await this.putFile(file, `${objectKey}/${path.relative(local, file).split(path.sep).join('/')}`);
  }

  async deletePrefix(objectKey: string): Promise<void> {
    const keys = [...(await this.list(objectKey + '/')), ...(await this.list(objectKey)).filter((o) => o.key === objectKey)].map((o) => o.key);
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }),
      );
    }
  }

  /**
   * Reads a key missing from the cache through from the store. The storage interface is synchronous (paths),
   * so the download runs in a short child process; a key absent from the store costs one listing.
   */
  private fetchSync(key: string): void {
    const res = spawnSync(process.execPath, [FETCH_SCRIPT], {
      input: JSON.stringify({ settings: this.settings, objectKey: this.objectKeyOf(key), dest: this.keyPath(key) }),
      encoding: 'utf8',
      timeout: 10 * 60_000,
    });
    if (res.status !== 0) this.log(`s3: could not read ${key} through: ${(res.stderr || res.error?.message || '').trim()}`);
  }
}

interface CacheUnit {
  path: string;
  bytes: number;
  usedMs: number;
  files: { path: string; bytes: number }[];
}

/** The folder (at org/<org>/<area>/<id>) or lone file that holds `p`, inside the cache root. */
function unitOf(root: string, p: string): string {
  const parts = path.relative(root, p).split(path.sep);
  if (parts[0] === 'org' && parts.length >= 4) return path.join(root, ...parts.slice(0, 4));
  return p;
}

/** Every eviction unit of the cache with its size and last change (its newest file's). */
function cacheUnits(root: string): CacheUnit[] {
  const units = new Map<string, CacheUnit>();
  for (const file of walk(root)) {
    const unit = unitOf(root, file);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      continue;
    }
    let u = units.get(unit);
    if (!u) {
      u = { path: unit, bytes: 0, usedMs: 0, files: [] };
      units.set(unit, u);
    }
    u.bytes += st.size;
    u.usedMs = Math.max(u.usedMs, st.mtimeMs);
    u.files.push({ path: file, bytes: st.size });
  }
  return [...units.values()];
}

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}
