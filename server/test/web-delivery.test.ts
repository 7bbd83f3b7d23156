import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE } from '../src/http/web-app.js';
import { makeTestApp, registerAndLogin, type TestApp } from './helpers.js';

/** Issue 19: hashed assets cached for good, index.html revalidated, compressed files sent as built, API answers compressed. */
describe('web delivery', () => {
  let t: TestApp;
  const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-web-'));
  const js = `export const answer = ${JSON.stringify('x'.repeat(4000))};\n`;

  beforeAll(async () => {
    fs.mkdirSync(path.join(webDist, 'assets'));
    fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>');
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js'), js);
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js.br'), zlib.brotliCompressSync(js));
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js.gz'), zlib.gzipSync(js));
    t = await makeTestApp('sqlite', { startJobs: false, config: { webDist } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(webDist, { recursive: true, force: true });
  });

  it('serves hashed assets immutable and precompressed, in the encoding the browser accepts', async () => {
    const br = await t.app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['cache-control']).toBe(IMMUTABLE);
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(js);
    const gz = await t.app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(js);
    const plain = await t.app.inject({ url: '/assets/index-abc123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(js);
  });

  it('never lets a browser keep index.html, at the root or on a client route', async () => {
    for (const url of ['/', '/dataset', '/training/details/x']) {
      const r = await t.app.inject({ url });
      expect(r.statusCode).toBe(200);
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.body).toContain('id="root"');
    }
  });

  it('compresses large API answers', async () => {
    const { auth } = await registerAndLogin(t.app);
    const r = await t.app.inject({ url: '/api/docs/json', headers: { ...auth, 'accept-encoding': 'br' } });
    expect(r.headers['content-encoding']).toBe('br');
    const doc = JSON.parse(zlib.brotliDecompressSync(r.rawPayload).toString());
    expect(doc.openapi).toMatch(/^3\./);
    const small = await t.app.inject({ url: '/api/users/me', headers: { ...auth, 'accept-encoding': 'br' } });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
