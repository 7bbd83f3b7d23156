import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Vite names every built asset with a content hash, so a URL under /assets/ never changes its bytes. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html (and anything unhashed) is checked every time, so a new release is picked up at once. */
export const REVALIDATE = 'no-cache';

export const cacheControlFor = (file: string) => (file.split(path.sep).includes('assets') ? IMMUTABLE : REVALIDATE);

/**
 * Compression of API answers (large JSON lists, reports, CSV downloads). Registered before the routes so its
 * hook covers them. Brotli runs at a low quality, where it is still smaller than gzip and costs little CPU.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    threshold: COMPRESSION.threshold,
    encodings: [...COMPRESSION.encodings],
    brotliOptions: COMPRESSION.brotli,
  });
}

/** How answers are compressed: by the plugin for every route, and once per kept answer by the exploration cache. */
export const COMPRESSION = {
  threshold: 1024,
  encodings: ['br', 'gzip'] as const,
  brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
};

/**
 * The built web app with its caching rules. Its files are compressed once at build (web/build/precompress.ts)
 * and sent as they are. Answers whether there is a web app to serve.
 */
export async function registerWebApp(app: FastifyInstance, webDist: string): Promise<boolean> {
  const spa = fs.existsSync(path.join(webDist, 'index.html'));
  if (!spa) return false;
  await app.register(fastifyStatic, {
    root: webDist,
    wildcard: false,
    index: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, file) => reply.header('Cache-Control', cacheControlFor(file)),
    // The compressed twins are served through their originals, never by their own names.
    allowedPath: (p) => !p.endsWith('.br') && !p.endsWith('.gz') && !p.startsWith('/.vite'),
  });
  return true;
}
