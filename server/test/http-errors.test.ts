import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { makeTestApp, registerAndLogin, type TestApp } from './helpers.js';

/** Issue 18 items 9, 10 and 12: framework errors in the SPEC §8 envelope and the caller's language; roles before bodies. */
describe('errors the framework raises', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof registerAndLogin>>;
  let viewer: Awaited<ReturnType<typeof registerAndLogin>>;

  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    owner = await registerAndLogin(t.app, 'own', 'Err Org');
    viewer = await registerAndLogin(t.app, 'view', 'Err Org 2');
    await t.app.ctx.db.updateTable('users').set({ role: 'viewer' }).where('email', '=', viewer.email).execute();
  });
  afterAll(() => t?.close());

  const envelope = (res: LightMyRequestResponse, status: number, error: string, text: string | RegExp) => {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail.error).toBe(error);
    if (typeof text === 'string') expect(body.detail.response).toBe(text);
    else expect(body.detail.response).toMatch(text);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  };

  it('says the 10 MB JSON limit for a JSON body over it (413), in en and ja', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024), steps: [] });
    for (const [lang, text] of [
      ['en', 'The request body is larger than the 10 MB limit for JSON.'],
      ['ja', 'リクエスト本文がJSONの上限10 MBを超えています。'],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/preprocess/conditions', payload, headers: { ...owner.auth, 'content-type': 'application/json', 'accept-language': lang } });
      envelope(res, 413, 'json_too_large', text);
    }
  });

  it('answers a path part over the limit with 414 in the envelope, and a long search under it normally', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/regress/project/list/${'q'.repeat(300)}`, headers: { ...owner.auth, 'accept-language': 'ja' } });
    envelope(res, 414, 'uri_too_long', 'アドレスが長すぎます。パスの各部分は最大256文字です。');
    const long = await t.app.inject({ method: 'GET', url: `/api/regress/project/list/${'q'.repeat(150)}`, headers: owner.auth });
    expect(long.statusCode).toBe(200);
  });

  it('answers a broken URL encoding, unreadable JSON, an empty JSON body and an unknown content type in the envelope', async () => {
    envelope(await t.app.inject({ method: 'GET', url: '/api/dataset/%E0%A4%A/true', headers: owner.auth }), 400, 'bad_url', /not valid/);
    const post = (payload: string, type: string, lang = 'en') =>
      t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload, headers: { 'content-type': type, 'accept-language': lang } });
    envelope(await post('{"email": ', 'application/json', 'ja'), 400, 'invalid_json', 'リクエスト本文が正しいJSONではありません。');
    envelope(await post('', 'application/json'), 400, 'empty_json', 'The request body is empty, but its content type says JSON.');
    envelope(await post('<a/>', 'application/xml'), 415, 'unsupported_media_type', 'This call does not accept a body of this content type.');
    envelope(await t.app.inject({ method: 'GET', url: '/api/no/such/call', headers: { ...owner.auth, 'accept-language': 'ja' } }), 404, 'not_found', '要求されたURLは存在しません');
  });

  it('answers a request Node cannot parse with the envelope too', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /api/users/me HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1.1 400/);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ detail: { response: 'Bad request.', error: 'bad_request' } });
  });

  it('checks the role before the body on every guarded route: a viewer with an invalid body gets 403', async () => {
    const routes = t.app.guardedRoutes.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const { method, url } of routes) {
      const path = url.replace(/:[A-Za-z_]+/g, 'x');
      const res = await t.app.inject({
        method: method as 'POST',
        url: path,
        headers: viewer.auth,
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: { bogus: ['not', 'valid'], name: 12345, steps: 'no' } }),
      });
      if (res.statusCode !== 403) wrong.push(`${method} ${url}: ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });
});
