import { createRequire } from 'node:module';

// ua-parser-js 1.x (MIT; 2.x is AGPL) ships no types: the little used here is typed below.
interface UAResult {
  browser: { name?: string };
  os: { name?: string };
  device: { type?: string };
}
const { UAParser } = createRequire(import.meta.url)('ua-parser-js') as { UAParser: new (ua: string) => { getResult(): UAResult } };

export interface ClientKind {
  device: string;
  browser: string;
  os: string;
}

/** Device, browser and OS of a User-Agent; programs (curl, python-requests) are named by their product token.
 * `cache`: the caller's memo (the app's statistics recorder), as callers reuse few User-Agent strings. */
export function clientOf(ua: string | undefined, cache: Map<string, ClientKind>): ClientKind {
  const key = (ua ?? '').slice(0, 512);
  const hit = cache.get(key);
  if (hit) return hit;
  const r = new UAParser(key).getResult();
  const product = /^([\w.-]+)\//.exec(key)?.[1];
  const kind: ClientKind = {
    device: r.device.type ?? (r.os.name ? 'desktop' : 'other'),
    browser: r.browser.name ?? (product && product !== 'Mozilla' ? product : 'other'),
    os: r.os.name ?? 'other',
  };
  if (cache.size > 5000) cache.clear(); // bounded
  cache.set(key, kind);
  return kind;
}
