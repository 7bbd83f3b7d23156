import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|woff)$/;

/**
 * Writes a .br and a .gz beside every text asset after the build, so the server sends them as they are
 * (@fastify/static preCompressed) instead of compressing on every request.
 */
export function precompress(minBytes = 1024): Plugin {
  let outDir = 'dist';
  return {
    name: 'mitate-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir);
    },
    writeBundle() {
      for (const e of fs.readdirSync(outDir, { recursive: true, withFileTypes: true })) {
        if (!e.isFile() || !COMPRESSIBLE.test(e.name)) continue;
        const file = path.join(e.parentPath, e.name);
        const body = fs.readFileSync(file);
        if (body.length < minBytes) continue;
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
      }
    },
  };
}
