import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { storedJson } from '../db/stored.js';

/** An access token's claims as signAccess writes them; a token whose claims are not this shape is invalid. */
export const AccessClaims = z.object({
  sub: z.string(),
  /** The sign-in session (refresh-token family) the token belongs to; refused once that session ends. */
  sid: z.string(),
  org: z.string(),
  role: z.string(),
  email: z.string(),
  iat: z.number(),
  exp: z.number(),
});
export type AccessClaims = z.output<typeof AccessClaims>;

const TokenHeader = z.object({ alg: z.string() });

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** The signing key: MITATE_SECRET, or one generated once and kept (0600) in the data folder. */
export function loadSecret(dataDir: string, configured?: string): Buffer {
  if (configured) return Buffer.from(configured);
  const file = path.join(dataDir, 'secret.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch {
    const key = crypto.randomBytes(32);
    fs.writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  }
}

export function signAccess(secret: Buffer, claims: Pick<AccessClaims, 'sub' | 'sid' | 'org' | 'role' | 'email'>, ttlS: number): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify({ ...claims, iat: now, exp: now + ttlS }));
  const sig = crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Returns the claims of a well-signed, unexpired token, or null (also when its header or claims are not the shape). */
export function verifyAccess(secret: Buffer, token: string): AccessClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = crypto.createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    // a header or claims of another shape throw here: an invalid token, like a bad signature
    const head = storedJson('token header', TokenHeader, Buffer.from(parts[0], 'base64url').toString());
    if (head.alg !== 'HS256') return null;
    const claims = storedJson('token claims', AccessClaims, Buffer.from(parts[1], 'base64url').toString());
    if (claims.exp <= Math.floor(Date.now() / 1000)) return null;
    if (!claims.sid) return null; // tokens from before sessions were named
    return claims;
  } catch {
    return null;
  }
}

export const newOpaqueToken = () => crypto.randomBytes(32).toString('base64url');
export const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
