import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, multipart, registerAndLogin, type TestApp } from './helpers.js';

/** Issue 15: a member sets their own photo; people of the same organisation see it, nobody else does. */
describe('member photo', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    alice = await registerAndLogin(t.app, 'alice', 'Photo Works');
  });
  afterAll(() => t.close());

  const put = (auth: Record<string, string>, content: Buffer, name = 'me.png', lang = 'en') => {
    const body = multipart({}, { name, content, field: 'photo', type: 'image/png' });
    return t.app.inject({ method: 'PUT', url: '/account/api/members/photo', payload: body.payload, headers: { ...body.headers, ...auth, 'accept-language': lang } });
  };

  it('stores a 256 px square JPEG without metadata, listed with a versioned URL', async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 60 } } })
      .png()
      .withMetadata({ exif: { IFD0: { Artist: 'secret place' } } })
      .toBuffer();
    const res = await put(alice.auth, png);
    expect(res.statusCode).toBe(200);
    const url: string = res.json().detail.response.photo;
    expect(url).toMatch(/^\/account\/api\/members\/[\w-]+\/photo\?v=\d+$/);
    const list = (await t.app.inject({ url: '/account/api/members', headers: alice.auth })).json().detail.response.items;
    expect(list[0].photo).toBe(url);
    const img = await t.app.inject({ url, headers: alice.auth });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(img.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['jpeg', 256, 256, undefined]);
  });

  it('refuses what is not a picture, in the caller language, and keeps the photo it had', async () => {
    const before = (await t.app.inject({ url: '/account/api/members', headers: alice.auth })).json().detail.response.items[0].photo;
    const res = await put(alice.auth, Buffer.from('not an image at all'), 'x.png', 'ja');
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json())).toContain('写真はJPEG、PNGまたはWebPの画像にしてください。');
    const after = (await t.app.inject({ url: '/account/api/members', headers: alice.auth })).json().detail.response.items[0].photo;
    expect(after).toBe(before);
  });

  it('is not shown to another organisation, and is gone once removed', async () => {
    const url = (await t.app.inject({ url: '/account/api/members', headers: alice.auth })).json().detail.response.items[0].photo;
    const bob = await registerAndLogin(t.app, 'bob', 'Elsewhere');
    expect((await t.app.inject({ url, headers: bob.auth })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: '/account/api/members/photo', headers: alice.auth })).statusCode).toBe(200);
    expect((await t.app.inject({ url, headers: alice.auth })).statusCode).toBe(404);
    const list = (await t.app.inject({ url: '/account/api/members', headers: alice.auth })).json().detail.response.items;
    expect(list[0].photo).toBeNull();
  });
});
