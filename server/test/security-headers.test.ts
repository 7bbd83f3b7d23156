import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, type TestApp } from './helpers.js';

/** Issue 18 item 2: security headers on the web app, the API (answers and errors alike) and /api/docs. */
describe('security headers', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    const web = path.join(process.env.TMPDIR ?? '/tmp', `mitate-web-${process.pid}`);
    fs.mkdirSync(web, { recursive: true });
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>');
    t = await makeTestApp('sqlite', { startJobs: false, config: { webDist: web } });
    auth = (await registerAndLogin(t.app)).auth;
  });
  afterAll(async () => t?.close());

  const expectHeaders = (h: Record<string, unknown>) => {
    const csp = String(h['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests'); // a plain-http install must keep working
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['referrer-policy']).toBe('strict-origin-when-cross-origin');
  };

  it('sends them on the web app, the API, its errors and the docs', async () => {
    for (const [url, headers, status] of [
      ['/', {}, 200],
      ['/dataset', {}, 200],
      ['/api/users/me', auth, 200],
      ['/api/users/me', {}, 401],
      ['/api/no-such-call', auth, 404],
      ['/api/docs', {}, 200],
      ['/api/docs/json', {}, 200],
      ['/account/api/auth/options', {}, 200],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect([url, res.statusCode]).toEqual([url, status]);
      expectHeaders(res.headers);
    }
  });

  it('serves swagger-ui without inline scripts, so the policy lets it run', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/api/docs' });
    if (res.statusCode === 302) res = await t.app.inject({ method: 'GET', url: res.headers.location as string });
    const html = res.body;
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expectHeaders(res.headers);
  });
});
