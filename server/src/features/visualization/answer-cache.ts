import { ByteLru } from '../datasets/byte-lru.js';
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
export class AnswerCache extends ByteLru<Buffer> {
  constructor(limitBytes: number) {
    super(limitBytes, '|');
  }

  get(key: string): Buffer | undefined {
    return this.touch(key);
  }

  /** Keeps an answer unless it alone would take more than a quarter of the bound (it is sent, not kept). */
  set(key: string, bytes: Buffer) {
    if (bytes.length <= this.limitBytes / 4) this.put(key, bytes);
  }
}

/** `datasetId|version|route|question`: what the cache is keyed by (the version changes with the data or its sketch). */
export const answerKey = (datasetId: string, version: string, route: string, question: unknown) => `${datasetId}|${version}|${route}|${JSON.stringify(question)}`;

export const answerCache = new AnswerCache((Number(process.env.MITATE_EXPLORE_CACHE_MB) || 64) * 1024 * 1024);

// A deleted dataset's answers go at once; a rebuilt sketch makes the answers about the previous build stale.
sketchChanges.add((datasetId, buildId) => answerCache.invalidate(datasetId, buildId));
