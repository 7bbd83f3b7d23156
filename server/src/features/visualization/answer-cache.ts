import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { COMPRESSION } from '../../http/web-app.js';
import { ByteLru } from '../datasets/byte-lru.js';

/**
 * Written answers of the exploration routes (issue 17: a repeated question in < 20 ms): the final bytes of the
 * JSON envelope and their entity tag, least recently used first out, bounded in bytes (MITATE_EXPLORE_CACHE_MB,
 * default 64; one per app instance, built with the visualization service). A repeat is a lookup and a write of those bytes: no computing, no checking against the schema, no
 * serialising; or, when the caller sends the tag of the copy it holds (If-None-Match), a 304 without a body.
 *
 * Keys begin with the dataset id and its version (`datasetId|version|...`, see `answerKey`), so another
 * dataset's answer can never be found under a key, and a dataset's entries can be dropped when it changes or is
 * deleted (`invalidate`). The routes check the caller's access to the dataset before asking the cache, on every
 * request.
 */
export interface Answer {
  bytes: Buffer;
  etag: string;
  byteLength: number;
  /** The bytes compressed, per content coding, made once when a caller first accepts that coding. */
  encoded: Partial<Record<Encoding, Buffer>>;
}

export type Encoding = (typeof COMPRESSION.encodings)[number];

export class AnswerCache extends ByteLru<Answer> {
  constructor(limitBytes: number) {
    super(limitBytes, '|');
  }

  get(key: string): Answer | undefined {
    return this.touch(key);
  }

  /** Keeps an answer unless it alone would take more than a quarter of the bound (it is sent, not kept). */
  set(key: string, answer: Answer) {
    if (answer.byteLength <= this.limitBytes / 4) this.put(key, answer);
  }

  /**
   * The answer's bytes in `encoding`, compressed as the compression plugin would (same settings), once: a repeat
   * to a client holding nothing is then a lookup and a write, not brotli over half a megabyte each time (issue 17).
   * The compressed copy counts toward the bound; an answer no longer kept is compressed for this caller only.
   */
  async encoded(key: string, answer: Answer, encoding: Encoding): Promise<Buffer> {
    const had = answer.encoded[encoding];
    if (had) return had;
    const out = encoding === 'br' ? await brotli(answer.bytes, COMPRESSION.brotli) : await gzip(answer.bytes);
    if (this.has(key) && this.touch(key) === answer) {
      answer.encoded[encoding] = out;
      this.put(key, { ...answer, byteLength: answer.byteLength + out.length });
    }
    return out;
  }
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * The content coding to send an answer of `size` bytes in, as the compression plugin negotiates it: none below its
 * threshold; else the first of its encodings (brotli before gzip) that Accept-Encoding allows (q > 0, or `*`).
 */
export function acceptedEncoding(acceptEncoding: string | string[] | undefined, size: number): Encoding | null {
  if (!acceptEncoding || size < COMPRESSION.threshold) return null;
  const q = new Map<string, number>();
  for (const part of (Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding).split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const weight = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    if (coding) q.set(coding, weight ? Number(weight[1]) : 1);
  }
  return COMPRESSION.encodings.find((e) => (q.get(e) ?? q.get('*') ?? 0) > 0) ?? null;
}

/** `datasetId|version|route|question`: what the cache is keyed by (the version changes with the data or its sketch). */
export const answerKey = (datasetId: string, version: string, route: string, question: unknown) => `${datasetId}|${version}|${route}|${JSON.stringify(question)}`;

/**
 * An answer with its entity tag: a digest of its key (dataset, version, question) and its bytes, so the tag is
 * another one when the dataset's version or the answer's bytes differ, and the same only for the same answer to
 * the same question about the same version.
 */
export function answerOf(key: string, bytes: Buffer): Answer {
  const etag = `"${createHash('sha256').update(key).update('\n').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { bytes, etag, byteLength: bytes.length + etag.length, encoded: {} };
}

/**
 * Whether the caller's If-None-Match names this very tag (one of a list; weak comparison, RFC 9110 §13.1.2). `*`
 * is not honoured: a 304 means the caller holds this answer. Only asked after the caller's access is checked.
 */
export function holdsAnswer(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes(etag);
}
