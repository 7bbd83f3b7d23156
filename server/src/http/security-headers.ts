import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * One Content-Security-Policy for the web app, the API and /api/docs. Scripts only from our origin (the
 * built index.html and swagger-ui load every script from files); no framing at all. style-src allows
 * 'unsafe-inline' because MUI's emotion writes <style> elements at run time and React, ECharts and
 * swagger-ui set style attributes; a nonce would need index.html rendered per request and still would not
 * cover style attributes. Injected styles cannot run code, so the script policy is what guards against XSS.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'object-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'form-action': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  // data: for swagger-ui's and MUI's inline SVG icons; blob: for previews of ID images picked or fetched.
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'", 'blob:'],
};

export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    // Our own list only: helmet's defaults add upgrade-insecure-requests, which breaks a plain-http install.
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Browsers ignore it over plain http; behind TLS it keeps them on https.
    strictTransportSecurity: { maxAge: 15_552_000, includeSubDomains: false },
  });
}

/** The same headers as a plain map, for answers written before any hook runs (framework and client errors). */
export function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': Object.entries(CONTENT_SECURITY_POLICY).map(([k, v]) => `${k} ${v.join(' ')}`).join(';'),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}
