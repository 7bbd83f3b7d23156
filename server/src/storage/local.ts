import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Blob store on a local folder. Writers fill a private temporary folder and commit it with one rename,
 * so a crash never leaves a half-written object under its final key.
 */
export class LocalStorage {
  readonly root: string;
  readonly tmpRoot: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'files');
    this.tmpRoot = path.join(dataDir, 'tmp');
    fs.mkdirSync(this.root, { recursive: true });
    fs.mkdirSync(this.tmpRoot, { recursive: true });
  }

  /** Leftovers of writes that never committed (a process died mid-way) are removed at start-up. */
  sweepTemporary(): void {
    for (const e of fs.readdirSync(this.tmpRoot)) fs.rmSync(path.join(this.tmpRoot, e), { recursive: true, force: true });
  }

  makeTempDir(): string {
    const dir = path.join(this.tmpRoot, crypto.randomUUID());
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Absolute path of a key; keys are relative, slash-separated, and never escape the root. */
  pathOf(key: string): string {
    return this.keyPath(key);
  }

  /** The same path without any read-through (S3Storage overrides pathOf to fill its cache on a miss). */
  protected keyPath(key: string): string {
    const p = path.resolve(this.root, key);
    if (p !== this.root && !p.startsWith(this.root + path.sep)) throw new Error(`storage key escapes root: ${key}`);
    return p;
  }

  exists(key: string): boolean {
    return fs.existsSync(this.pathOf(key));
  }

  /** Moves a filled temporary folder to its final key in one step (S3: and uploads it before resolving). */
  commitDir(tempDir: string, key: string): void | Promise<void> {
    const dest = this.keyPath(key);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.renameSync(tempDir, dest);
  }

  /** Gone from this host at once (S3: the objects follow; the promise says when). */
  remove(key: string): void | Promise<void> {
    fs.rmSync(this.keyPath(key), { recursive: true, force: true });
  }

  /** A file or folder written under a key's path outside commitDir (renamed into place) is made durable. */
  persist(key: string): void | Promise<void> {
    void key;
  }

  /** After a job: its output folder (absolute path in the data folder) is the same here and in the store. */
  syncPath(dir: string): Promise<{ uploaded: number; downloaded: number }> {
    void dir;
    return Promise.resolve({ uploaded: 0, downloaded: 0 });
  }

  /** Removes the objects of a folder of the data folder outside `files` (a job's outputs); local: nothing more to do. */
  removePath(dir: string): Promise<void> {
    void dir;
    return Promise.resolve();
  }

  async close(): Promise<void> {}

  readStream(key: string): fs.ReadStream {
    return fs.createReadStream(this.pathOf(key));
  }

  size(key: string): number {
    return fs.statSync(this.pathOf(key)).size;
  }
}
