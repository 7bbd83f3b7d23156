import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signAccess, verifyAccess } from '../src/auth/tokens.js';

/** A well-signed token is still invalid when its header or claims are not the declared shape (never a fault). */
describe('access token claims', () => {
  const secret = Buffer.from('test-secret');
  const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  const signed = (head: unknown, body: unknown) => {
    const h = b64(head);
    const b = b64(body);
    return `${h}.${b}.${crypto.createHmac('sha256', secret).update(`${h}.${b}`).digest('base64url')}`;
  };
  const exp = Math.floor(Date.now() / 1000) + 600;
  const good = { sub: 'u', sid: 's', org: 'o', role: 'owner', email: 'e@x', iat: exp - 600, exp };
  const head = { alg: 'HS256', typ: 'JWT' };

  it('reads the claims of a token it signed', () => {
    expect(verifyAccess(secret, signAccess(secret, { sub: 'u', sid: 's', org: 'o', role: 'owner', email: 'e@x' }, 600))).toMatchObject({ sub: 'u', sid: 's', org: 'o' });
    expect(verifyAccess(secret, signed(head, good))).toMatchObject({ sub: 'u', exp });
  });

  it('refuses claims or a header of another shape', () => {
    for (const body of [{ ...good, sub: 5 }, { ...good, exp: String(exp) }, { ...good, sid: undefined }, { ...good, sid: '' }, { ...good, email: null }, [good], null, 'text'])
      expect(verifyAccess(secret, signed(head, body))).toBeNull();
    for (const h of [{ alg: 'none' }, {}, null, [head], 'HS256']) expect(verifyAccess(secret, signed(h, good))).toBeNull();
    expect(verifyAccess(secret, `${b64(head)}.${b64('{not json')}.x`)).toBeNull();
  });
});
