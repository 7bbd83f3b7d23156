import { sketchChanges } from '../datasets/sketch.js';

/**
 * Written answers of the exploration routes (issue 17: a repeated question in < 20 ms): the final bytes of the
 * JSON envelope, least recently used first out, bounded in bytes (MITATE_EXPLORE_CACHE_MB, default 64). A repeat
 * is a lookup and a write of those bytes: no computing, no checking against the schema, no serialising.
 *
 * Keys begin with the dataset id and its version (`datasetId|version|...`, see `answerKey`), so another
 * dataset's answer can never be found under a key, and a dataset's entries can be dropped when it changes or is
 * deleted (`invalidate`). The routes check the caller's access to the dataset before asking the cache, on every
 * request.
 */
export class AnswerCache {
  private entries = new Map<string, Buffer>();
  bytes = 0;
  constructor(readonly limitBytes: number) {}

  get size() {
    return this.entries.size;
  }

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Keeps an answer unless it alone would take more than a quarter of the bound (it is sent, not kept). */
  set(key: string, bytes: Buffer) {
    if (bytes.length > this.limitBytes / 4) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.length;
    }
    this.entries.set(key, bytes);
    this.bytes += bytes.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.limitBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  /** Drops every answer about a dataset, or with `keepVersion` those about its other versions. */
  invalidate(datasetId: string, keepVersion?: string) {
    for (const [k, v] of this.entries) {
      if (!k.startsWith(`${datasetId}|`)) continue;
      if (keepVersion !== undefined && k.startsWith(`${datasetId}|${keepVersion}|`)) continue;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

/** `datasetId|version|route|question`: what the cache is keyed by (the version changes with the data or its sketch). */
export const answerKey = (datasetId: string, version: string, route: string, question: unknown) => `${datasetId}|${version}|${route}|${JSON.stringify(question)}`;

export const answerCache = new AnswerCache((Number(process.env.MITATE_EXPLORE_CACHE_MB) || 64) * 1024 * 1024);

// A deleted dataset's answers go at once; a rebuilt sketch makes the answers about the previous build stale.
sketchChanges.add((datasetId, buildId) => answerCache.invalidate(datasetId, buildId));
