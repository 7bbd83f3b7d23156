import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface AccessClaims {
  sub: string;
  /** The sign-in session (refresh-token family) the token belongs to; refused once that session ends. */
  sid: string;
  org: string;
  role: string;
  email: string;
  iat: number;
  exp: number;
}

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

export function signAccess(secret: Buffer, claims: Omit<AccessClaims, 'iat' | 'exp'>, ttlS: number): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify({ ...claims, iat: now, exp: now + ttlS }));
  const sig = crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Returns the claims of a well-signed, unexpired token, or null. */
export function verifyAccess(secret: Buffer, token: string): AccessClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = crypto.createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const head = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
    if (head.alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString()) as AccessClaims;
    if (typeof claims.exp !== 'number' || claims.exp <= Math.floor(Date.now() / 1000)) return null;
    if (typeof claims.sid !== 'string' || !claims.sid) return null; // tokens from before sessions were named
    return claims;
  } catch {
    return null;
  }
}

export const newOpaqueToken = () => crypto.randomBytes(32).toString('base64url');
export const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
