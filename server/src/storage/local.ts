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
    const p = path.resolve(this.root, key);
    if (p !== this.root && !p.startsWith(this.root + path.sep)) throw new Error(`storage key escapes root: ${key}`);
    return p;
  }

  exists(key: string): boolean {
    return fs.existsSync(this.pathOf(key));
  }

  /** Moves a filled temporary folder to its final key in one step. */
  commitDir(tempDir: string, key: string): void {
    const dest = this.pathOf(key);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.renameSync(tempDir, dest);
  }

  remove(key: string): void {
    fs.rmSync(this.pathOf(key), { recursive: true, force: true });
  }

  readStream(key: string): fs.ReadStream {
    return fs.createReadStream(this.pathOf(key));
  }

  size(key: string): number {
    return fs.statSync(this.pathOf(key)).size;
  }
}
