/**
 * Values kept in memory by key, least recently used out, bounded in bytes. Keys begin with a dataset id and a
 * version (`<id><sep><version><sep>…`), so a dataset's entries, or those of its other versions, can be dropped at
 * once. The sketch's column caches and the exploration routes' answer cache are both this.
 */
export class ByteLru<T extends { byteLength: number }> {
  private entries = new Map<string, T>();
  bytes = 0;
  constructor(
    readonly limitBytes: number,
    private readonly sep: string,
  ) {}

  get size() {
    return this.entries.size;
  }

  has(key: string) {
    return this.entries.has(key);
  }

  /** The value, now the most recently used; undefined when absent. */
  touch(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Keeps the value (replacing one under the key), then drops the least recently used until within the bound. */
  put(key: string, value: T) {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.byteLength;
    }
    this.entries.set(key, value);
    this.bytes += value.byteLength;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.limitBytes) break;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }

  /** Drops every entry of a dataset or, with `keepVersion`, those of its other versions. */
  invalidate(datasetId: string, keepVersion?: string) {
    for (const [k, v] of this.entries) {
      if (!k.startsWith(`${datasetId}${this.sep}`)) continue;
      if (keepVersion && k.startsWith(`${datasetId}${this.sep}${keepVersion}${this.sep}`)) continue;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }
}
